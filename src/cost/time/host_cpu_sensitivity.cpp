#include "cost/time/host_cpu_sensitivity.hpp"

#include "cost/time/step_time.hpp"
#include "strategy/cuda_graphs.hpp"

namespace meshplan {

std::optional<HostCpuSensitivity> host_cpu_sensitivity(const ModelSpec& model, const Cluster& cluster,
                                                       const Strategy& strategy, const Workload& workload,
                                                       const TimeOptions& options) {
  // Not for RL: NeMo RL's GB200 GRPO steps, whose Megatron-core MoE updates launch eagerly from
  // Grace, sit within -19..+23% of the model as it stands (v0.5 / v0.6 rows of the RL fit,
  // docs/accuracy.md), where the ratio would double their update phases.
  if (!model.moe || cluster.groups.empty() || workload.kind == WorkloadKind::rl) return std::nullopt;
  const double ratio = cluster.groups.front().gpu.host_op_time_ratio;
  if (!(ratio > 1.0)) return std::nullopt;
  const MoeHostLaunches launches = moe_host_launches(strategy.cuda_graph_impl, strategy.cuda_graph_modules);
  if (!launches.layer && !launches.experts) return std::nullopt;
  TimeOptions scaled = options;
  scaled.constants.moe_layer_host_seconds *= ratio;
  scaled.constants.moe_expert_host_seconds *= ratio;
  const TimeEstimate estimate = estimate_time(model, cluster, strategy, workload, scaled, nullptr);
  return HostCpuSensitivity{ratio, estimate.step_seconds, estimate.breakdown.moe_host_wait};
}

}  // namespace meshplan
