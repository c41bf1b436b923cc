#pragma once
// How much a MoE step's time rests on the host CPU that launches it. The MoE layers' host time
// (efficiency.hpp moe_layer_host_seconds, moe_expert_host_seconds) is fit on runs launched from
// x86 hosts (the DGX H100's Xeon Platinum 8480C); a part whose catalog entry measures its host's
// per-op time apart (GpuSpec::host_op_time_ratio: Grace on GB200 / GB300) is estimated again with
// that host time scaled, which the time model does not do itself: the held-out GB200 / GB300 runs
// put their measured steps between the two (docs/accuracy-held-out-training.md, session 58).
#include <optional>

#include "cost/time/time_estimate.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// The step again with the MoE layers' host time scaled by the host's per-op ratio.
struct HostCpuSensitivity {
  double host_op_time_ratio = 0;      ///< the host's per-op time over the fit's x86 hosts
  double step_seconds = 0;            ///< the step at that ratio
  double moe_host_wait_seconds = 0;   ///< the MoE layers' host wait at that ratio
};

/// Set for a MoE model trained (pretrain, SFT) with layers that launch some of their kernels from
/// the host (no full-iteration or whole-layer CUDA graph) on a part with a measured host ratio above
/// 1; nullopt otherwise, and for RL, whose measured GB200 steps the model meets as it stands.
std::optional<HostCpuSensitivity> host_cpu_sensitivity(const ModelSpec& model, const Cluster& cluster,
                                                       const Strategy& strategy, const Workload& workload,
                                                       const TimeOptions& options);

}  // namespace meshplan
