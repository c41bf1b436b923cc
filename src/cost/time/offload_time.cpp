#include "cost/time/offload_time.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cost/memory/activations.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

// Host DRAM bandwidth a node's CPU Adam can stream (2-socket server, ~8-12 DDR4/5 channels per
// socket: 200-400 GB/s peak); the lower end, since DeepSpeed CPU-Adam (Ren et al. 2021,
// ZeRO-Offload §4.2) is memory-bound. An estimate, not a fit; the catalog's host_memory_Bps where
// it has one (Grace's LPDDR5X). Shared by the GPUs of one host (NodeGroup::gpus_per_host: a GB200
// NVL72 rack's 4-GPU trays each have their own CPUs and memory).
constexpr double kHostMemoryBandwidthBps = 200e9;
// CPU Adam touches fp32 master, grad, m, v (16 B read) and writes master, m, v (12 B) + bf16 copy.
constexpr double kCpuAdamBytesPerParam = 30.0;
// One rank's CPU optimizer: Megatron-core's HybridDeviceOptimizer steps torch.optim.AdamW(fused=True)
// on the host (megatron/core/optimizer/__init__.py). Measured (NVIDIA-NeMo/RL#3628, one H100,
// Qwen3-0.6B, 596,049,920 parameters, optimizer_offload_fraction 1 with overlap_cpu_optimizer_d2h_h2d):
// 1.678 s a step against 0.752 s without, 0.926 s, of which the copies take 6 B x 596M / 51 GB/s =
// 0.070 s: 0.856 s of CPU Adam, 30 B a parameter at 20.9 GB/s. A rank streams no faster alone on
// its node; several share the node's DRAM bandwidth.
constexpr double kCpuAdamRankBps = 20.9e9;

// A device-to-host copy into freshly allocated pageable memory (a blocking `tensor.to("cpu")`):
// pytorch/pytorch PR #120378 (2024-02), one H100 on PCIe 5, 150 tensors of 50 MB (7.5 GB):
// 4.6556 s into new CPU tensors against 0.1566 s into pinned ones, 1.61 GB/s against 47.9 GB/s.
constexpr double kPageableDeviceToHostBps = 7.5e9 / 4.6556;
// PCIe Gen4 x16 pinned copy rate when the catalog has none (gpus.md: 26.3 GB/s measured).
constexpr double kDefaultHostToDeviceBps = 25e9;

// What one GPU's share of its host's DRAM bandwidth is.
double host_memory_share_Bps(const NodeGroup& node) {
  const double host_Bps = node.gpu.host_memory_Bps > 0 ? node.gpu.host_memory_Bps : kHostMemoryBandwidthBps;
  return host_Bps / std::max(node.gpus_per_host(), 1);
}

}  // namespace

double host_link_Bps(const NodeGroup& node) {
  return node.gpu.host_to_device_Bps > 0 ? node.gpu.host_to_device_Bps : kDefaultHostToDeviceBps;
}

double offload_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                       std::int64_t micro_batches, StepOffload mode, Trace* trace) {
  Offload offload = strategy.offload;
  if (mode == StepOffload::paged) offload = Offload{false, false, offload.optimizer_on_cpu, offload.optimizer_fraction, false};
  if (!offload.params && !offload.grads && !offload.optimizer) return 0.0;
  const double pcie = host_link_Bps(node);
  // The rank's shard of the states: Megatron's distributed optimizer keeps a rank's routed experts
  // over the expert-DP group, not DP (model_states.hpp optimizer_params_per_rank).
  const double sharded = optimizer_params_per_rank(rank_params(model, strategy), strategy);
  double copies_bytes = 0;
  // FSDP CPUOffload(offload_params): weights stream in for every forward and backward.
  if (offload.params) copies_bytes += 2.0 * static_cast<double>(micro_batches) * 2.0 * sharded;
  if (offload.grads) copies_bytes += 4.0 * sharded;
  double cpu_seconds = 0;
  if (offload.optimizer) {
    const double fraction = std::clamp(offload.optimizer_fraction, 0.0, 1.0);
    const double offloaded = sharded * fraction;
    // Megatron hybrid CPU optimizer: fp32 grads down, updated 16-bit params up.
    copies_bytes += offloaded * (4.0 + 2.0);
    const double cpu_Bps_per_gpu = std::min(kCpuAdamRankBps, host_memory_share_Bps(node));
    cpu_seconds = kCpuAdamBytesPerParam * offloaded / cpu_Bps_per_gpu;
  }
  const double seconds = copies_bytes / pcie + cpu_seconds;
  if (trace) {
    trace->push_back({"time/offload", seconds, "seconds",
                      "host<->device bytes / PCIe_Bps + 30 B * offloaded_params / "
                      "min(CPU Adam rank rate, host_DRAM_Bps / gpus_per_host)",
                      fmt::format("copies={:.4g} B, pcie={:.4g} B/s, cpu_adam={:.4g} s", copies_bytes, pcie,
                                  cpu_seconds),
                      "ZeRO-Offload (Ren et al. 2021) §4; gpus.md measured H2D rates; "
                      "NVIDIA-NeMo/RL#3628 (CPU Adam rate)"});
  }
  return seconds;
}

double host_copy_seconds(double bytes, const NodeGroup& node) {
  if (bytes <= 0) return 0.0;
  return bytes / std::min(host_link_Bps(node), host_memory_share_Bps(node));
}

double paging_seconds(double bytes, const NodeGroup& node) { return 2.0 * host_copy_seconds(bytes, node); }

double pageable_paging_seconds(double bytes, const NodeGroup& node) {
  const double back_s = host_copy_seconds(bytes, node);
  return std::max(bytes / kPageableDeviceToHostBps, back_s) + back_s;
}

double activation_offload_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                  std::int64_t seq_len, int micro_batch, const StageCompute& stage,
                                  const TimeOptions& options, Trace* trace) {
  if (strategy.activation_offload_layers <= 0) return 0.0;
  MicroBatchShape mb;
  mb.seq_tokens = static_cast<double>(seq_len) / (strategy.cp * (strategy.backend == Backend::fsdp ? strategy.ulysses_sp : 1));
  mb.kv_tokens = static_cast<double>(seq_len);
  mb.sequences = micro_batch;
  MemoryOptions memory;
  memory.flash_attention = options.flash_attention;
  const double bytes = offloaded_activation_bytes(model, strategy, PipelineStage::first, mb, memory);
  const double layers = static_cast<double>(max_stage_layers(model.num_layers, strategy));
  const double offloaded = std::min(static_cast<double>(strategy.activation_offload_layers), std::max(layers - 1.0, 0.0));
  if (bytes <= 0 || offloaded <= 0) return 0.0;
  // Each offloaded layer's tensors go down while the next layer computes its forward and come back
  // while the layer after it in the backward computes; both handlers wait for the copy before
  // going on (verl activation_offload.py synchronize_on_group_commit_forward; TE cpu_offload.py
  // fwd_step / bwd_step), so what the copy takes beyond a layer's compute is exposed.
  const double copy_s = bytes / offloaded / host_link_Bps(node);
  const double forward_s = stage.layers_forward_s / std::max(layers, 1.0);
  const double backward_s = (stage.layers_backward_s + stage.recompute_s) / std::max(layers, 1.0);
  const double seconds = offloaded * (std::max(0.0, copy_s - forward_s) + std::max(0.0, copy_s - backward_s));
  if (trace) {
    trace->push_back({"time/activation_offload", seconds, "seconds",
                      "per micro-batch: N * (max(0, copy - layer forward) + max(0, copy - layer backward)), copy = "
                      "offloaded bytes / N / host link",
                      fmt::format("N={:.0f}, bytes={:.4g}, host_link={:.4g} B/s, copy={:.4g} s, fwd/layer={:.4g} s, "
                                  "bwd/layer={:.4g} s",
                                  offloaded, bytes, host_link_Bps(node), copy_s, forward_s, backward_s),
                      "verl utils/activation_offload.py; Transformer Engine pytorch/cpu_offload.py"});
  }
  return seconds;
}

}  // namespace meshplan
