#include "cost/time/engine_all_reduce.hpp"

#include <algorithm>
#include <string>

namespace meshplan {
namespace {

// vLLM's custom all-reduce (custom_all_reduce.py CustomAllreduce.__init__ and should_custom_ar):
// world sizes 2, 4, 6, 8 (_SUPPORTED_WORLD_SIZES); every rank on the same host
// (parallel_state.in_the_same_node_as, a shared-memory test, and CUDA IPC handles from
// cudaIpcGetMemHandle, which open only under one operating system); NVLink between all of them
// when more than 2 (is_fully_connected); messages under max_size = 8 MiB. SGLang's custom all-reduce,
// derived from it, has the same checks (srt/distributed/device_communicators/custom_all_reduce.py).
// On Blackwell and Hopper, vLLM sends the larger of these messages to torch symmetric memory
// instead (all_reduce_utils.py CUSTOM_ALL_REDUCE_MAX_SIZES, SYMM_MEM_ALL_REDUCE_MAX_SIZES: world
// sizes 2-8 as well), also NVLink peer memory: it is costed the same. SymmMemCommunicator does not
// test for one host; whether its rendezvous succeeds across NVL72 trays is not established, and
// the model gives them NCCL.
constexpr int kPeerMaxRanks = 8;
constexpr double kPeerMaxBytes = 8.0 * 1024 * 1024;
// Its time, α + (n−1)/n · S / β, fit to vLLM's kernel measured on H100 (sgl-project/sglang
// PR #2904, without CUDA graphs, TP 2/4/8, 512 B to 1 MiB: 9.5/9.1/10.1 µs at 512 B,
// 26.6/40.2/45.0 µs at 1 MiB). Other GPUs are not measured.
constexpr double kPeerLatencySeconds = 9.5e-6;
constexpr double kPeerBytesPerSecond = 27e9;

// NCCL's LL protocol inside a node (src/graph/tuning.cc: baseLat Ring/LL 6.6 µs, hwLat NVLINK
// Ring/LL 0.6 µs, llMaxBws for one node).
constexpr double kNcclLlBaseSeconds = 6.6e-6;
constexpr double kNcclLlStepSeconds = 0.6e-6;

// NCCL indexes llMaxBws by compute capability: Volta, Ampere (and Ada, sm_89), Hopper, Blackwell.
double nccl_ll_bus_bandwidth(const std::string& arch) {
  if (arch.starts_with("Blackwell")) return 282e9;
  if (arch.starts_with("Hopper")) return 141e9;
  if (arch.starts_with("Ampere") || arch.starts_with("Ada")) return 87.7e9;
  if (arch.starts_with("Volta")) return 39e9;
  return 0.0;  // not an NVIDIA GPU: the ring alone
}

bool peer_memory_eligible(double bytes, int ranks, const NodeGroup& node) {
  const bool supported_size = ranks % 2 == 0 && ranks <= kPeerMaxRanks;
  // Two PCIe GPUs also qualify in vLLM, but the figures above are NVLink measurements: they keep
  // the NCCL cost.
  const bool nvlink = node.gpu.intra_node_link != LinkKind::pcie;
  return supported_size && ranks <= node.gpus_per_host() && nvlink && bytes < kPeerMaxBytes;
}

}  // namespace

EngineAllReduce engine_all_reduce(double bytes, int ranks, const NodeGroup& node, const LinkPath& nccl_link) {
  if (ranks <= 1 || bytes <= 0) return {};
  if (peer_memory_eligible(bytes, ranks, node)) {
    const double n = ranks;
    return {EngineAllReducePath::peer_memory, kPeerLatencySeconds + (n - 1.0) / n * bytes / kPeerBytesPerSecond};
  }
  // PyNccl. Across nodes NCCL picks the cheaper of ring and tree. Inside one NVLink domain its
  // tree is a chain (the tree spans nodes; a node's ranks form a chain), so both algorithms take
  // 2(n-1) steps, and its tuner (src/graph/tuning.cc ncclTopoTuneModel) picks the protocol:
  // - LL for small messages: 6.6 µs + 0.6 µs per step (baseLat and hwLat[NVLINK] of Ring/LL),
  //   at most llMaxBws of bus bandwidth (one node: Volta 39, Ampere 87.7, Hopper 141, Blackwell 282 GB/s);
  // - LL128 / Simple for large ones: the ring α-β with the link's per-step latency, which matches
  //   NCCL on 8 GPUs at 1 MiB and more (A100: 50.7 µs at 1 MiB; H100: 125 µs at 16 MiB;
  //   Azure AI-benchmarking-guide sweeps, ../shared/hardware/gpus.md).
  double seconds = all_reduce_seconds(bytes, ranks, nccl_link);
  if (ranks <= node.gpus_per_node) {
    seconds = ring_all_reduce_seconds(bytes, ranks, nccl_link);
    const double ll_bus_Bps = nccl_ll_bus_bandwidth(node.gpu.arch);
    if (ll_bus_Bps > 0) {
      const double n = ranks;
      const double ll_s = kNcclLlBaseSeconds + 2.0 * (n - 1.0) * kNcclLlStepSeconds +
                          2.0 * (n - 1.0) / n * bytes / std::min(ll_bus_Bps, nccl_link.bandwidth_Bps);
      seconds = std::min(seconds, ll_s);
    }
  }
  return {EngineAllReducePath::nccl, seconds};
}

const char* engine_all_reduce_path_name(EngineAllReducePath path) {
  switch (path) {
    case EngineAllReducePath::peer_memory: return "custom all-reduce (one host)";
    case EngineAllReducePath::nccl: return "NCCL";
    case EngineAllReducePath::none: break;
  }
  return "none";
}

}  // namespace meshplan
