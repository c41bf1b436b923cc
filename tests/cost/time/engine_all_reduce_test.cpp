#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/engine_all_reduce.hpp"

namespace meshplan {
namespace {

NodeGroup nvlink_node(int gpus_per_node, const char* arch, double nvlink_Bps) {
  NodeGroup node;
  node.gpus_per_node = gpus_per_node;
  node.gpu.arch = arch;
  node.gpu.intra_node_link = LinkKind::nvlink;
  node.gpu.intra_node_Bps = nvlink_Bps;
  return node;
}

// H100 SXM figures of ../shared/hardware/gpus.md: 450 GB/s NVLink per direction, NCCL at 0.8 of it.
NodeGroup h100_node() { return nvlink_node(8, "Hopper GH100", 450e9); }

// A GB200 NVL72 rack as the time model sees it: one 64-GPU NVLink domain (2x64xGB200-NVL72) of
// 4-GPU compute trays (the catalog's gpus_per_host).
NodeGroup nvl72_node() {
  NodeGroup node = nvlink_node(64, "Blackwell (2 dies, GB200 superchip)", 900e9);
  node.gpu.gpus_per_host = 4;
  return node;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("engine all-reduce: vLLM's custom all-reduce inside one host, as measured on H100") {
  const NodeGroup node = h100_node();
  const LinkPath nccl{450e9 * 0.8, 3e-6};
  // sgl-project/sglang PR #2904, vLLM's kernel on H100 without CUDA graphs (TP 2/4/8):
  // 512 B 9.5/9.1/10.1 µs, 512 KiB 17.7/26.9/30.4 µs, 1 MiB 26.6/40.2/45.0 µs. The model,
  // 9.5 µs + (n-1)/n * S / 27 GB/s, within 20% of each.
  const struct {
    int ranks;
    double bytes, measured_s;
  } points[] = {{2, 512, 9.5e-6},        {4, 512, 9.1e-6},        {8, 512, 10.1e-6},
                {2, 0.5 * kMiB, 17.7e-6}, {4, 0.5 * kMiB, 26.9e-6}, {8, 0.5 * kMiB, 30.4e-6},
                {2, kMiB, 26.6e-6},       {4, kMiB, 40.2e-6},       {8, kMiB, 45.0e-6}};
  for (const auto& point : points) {
    const EngineAllReduce reduce = engine_all_reduce(point.bytes, point.ranks, node, nccl);
    CHECK(reduce.path == EngineAllReducePath::peer_memory);
    CHECK(reduce.seconds == test::approx(point.measured_s).epsilon(0.2));
  }
  // Hand-worked: TP 8, 1 MiB: 9.5 µs + 7/8 * 1048576 / 27e9 = 43.48 µs.
  CHECK(engine_all_reduce(kMiB, 8, node, nccl).seconds == test::approx(9.5e-6 + 7.0 / 8.0 * kMiB / 27e9));
  // 8 MiB and more (max_size), 3 ranks (not in _SUPPORTED_WORLD_SIZES) and PCIe GPUs go to NCCL.
  CHECK(engine_all_reduce(8 * kMiB, 8, node, nccl).path == EngineAllReducePath::nccl);
  CHECK(engine_all_reduce(kMiB, 3, node, nccl).path == EngineAllReducePath::nccl);
  NodeGroup pcie = node;
  pcie.gpu.intra_node_link = LinkKind::pcie;
  CHECK(engine_all_reduce(kMiB, 4, pcie, nccl).path == EngineAllReducePath::nccl);
  // One rank: nothing to reduce.
  CHECK(engine_all_reduce(kMiB, 1, node, nccl).path == EngineAllReducePath::none);
  CHECK(engine_all_reduce(kMiB, 1, node, nccl).seconds == 0.0);
}

TEST_CASE("engine all-reduce: NCCL inside an NVLink domain, LL for small messages, the ring for large") {
  // NCCL's ring α-β with 3 µs per step against the Azure sweeps (../shared/hardware/gpus.md):
  // 8 A100 at 1 MiB busbw 36.2 GB/s = 2*7/8 * S / busbw = 50.7 µs; the ring 2*7*3 µs +
  // 2*7/8 * S / 240 GB/s = 49.6 µs. 8 H100 at 16 MiB: 125.2 µs measured, 123.6 µs the ring.
  CHECK(ring_all_reduce_seconds(kMiB, 8, LinkPath{300e9 * 0.8, 3e-6}) == test::approx(50.7e-6).epsilon(0.05));
  CHECK(ring_all_reduce_seconds(16 * kMiB, 8, LinkPath{450e9 * 0.8, 3e-6}) == test::approx(125.2e-6).epsilon(0.05));
  // Above the custom all-reduce's 8 MiB, 8 H100 take NCCL: the ring (42 µs + 1.75 * 8 MiB /
  // 360 GB/s = 82.8 µs) beats LL (15 µs + 1.75 * 8 MiB / 141 GB/s = 119.1 µs).
  const NodeGroup node = h100_node();
  const LinkPath nccl{450e9 * 0.8, 3e-6};
  const EngineAllReduce large = engine_all_reduce(8 * kMiB, 8, node, nccl);
  CHECK(large.path == EngineAllReducePath::nccl);
  CHECK(large.seconds == test::approx(42e-6 + 1.75 * 8 * kMiB / 360e9));
}

TEST_CASE("engine all-reduce: a GB200 NVL72 host is a 4-GPU tray, so TP 8 and TP 32 take NCCL") {
  const NodeGroup node = nvl72_node();
  const LinkPath nccl{900e9 * 0.8, 3e-6};
  CHECK(node.gpus_per_host() == 4);
  // No host size in the catalog: the node is one host.
  CHECK(h100_node().gpus_per_host() == 8);
  CHECK(nvlink_node(16, "Hopper GH100", 450e9).gpus_per_host() == 16);
  // TP 4 stays in one tray: the custom all-reduce.
  CHECK(engine_all_reduce(kMiB, 4, node, nccl).path == EngineAllReducePath::peer_memory);
  // TP 8 spans two trays: in_the_same_node_as fails, NCCL. 64 sequences of Qwen3-235B (h 4096,
  // bf16: 512 KiB) with LL: 6.6 µs + 14 * 0.6 µs + 2*7/8 * 524288 / 282 GB/s = 18.25 µs (the
  // ring: 43.3 µs).
  const EngineAllReduce tp8 = engine_all_reduce(64 * 4096 * 2.0, 8, node, nccl);
  CHECK(tp8.path == EngineAllReducePath::nccl);
  CHECK(tp8.seconds == test::approx(15e-6 + 1.75 * 524288 / 282e9));
  // TP 32, DeepSeek-V3 (h 7168): 128 sequences (1.75 MiB) 6.6 + 62 * 0.6 + 2*31/32 * S / 282 GB/s
  // = 56.4 µs (the ring: 190.9 µs); one sequence (14 KiB) 43.9 µs.
  const double bytes = 128 * 7168 * 2.0;
  CHECK(engine_all_reduce(bytes, 32, node, nccl).seconds == test::approx(43.8e-6 + 62.0 / 32.0 * bytes / 282e9));
  CHECK(engine_all_reduce(7168 * 2.0, 32, node, nccl).seconds == test::approx(43.9e-6).epsilon(0.01));
}

}  // namespace meshplan
