#include "search/real_cost_model.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "cost/time/rl_step_time.hpp"
#include "search/sized_cluster.hpp"

namespace meshplan {
namespace {

PlanPhase plan_phase_of(MemoryPhaseKind kind) {
  switch (kind) {
    case MemoryPhaseKind::rollout:
    case MemoryPhaseKind::weight_sync: return PlanPhase::rollout;
    case MemoryPhaseKind::old_log_prob:
    case MemoryPhaseKind::ref_log_prob: return PlanPhase::log_prob;
    default: return PlanPhase::update;
  }
}

bool is_log_prob_phase(const char* name) {
  return std::strcmp(name, "timing_s/old_log_prob") == 0 || std::strcmp(name, "timing_s/ref") == 0 ||
         std::strcmp(name, "timing_s/values") == 0;
}

// The clusters of the GPU counts the search tries, made once each.
class SizedClusters {
 public:
  explicit SizedClusters(const Cluster& cluster) : cluster_(cluster) {}
  const Cluster& for_gpus(int gpus) {
    if (gpus == cluster_.total_gpus()) return cluster_;
    auto part = parts_.find(gpus);
    if (part != parts_.end()) return part->second;
    const int per_node = cluster_.groups.front().gpus_per_node;
    Cluster sized = gpus > cluster_.total_gpus() ? with_nodes(cluster_, (gpus + per_node - 1) / per_node)
                                                 : first_gpus(cluster_, gpus);
    return parts_.emplace(gpus, std::move(sized)).first->second;
  }

 private:
  const Cluster& cluster_;
  std::map<int, Cluster> parts_;
};

PlanMemory plan_memory(const MemoryEstimate& estimate) {
  PlanMemory memory;
  for (int i = 0; i < estimate.phase_count; ++i) {
    const PhaseMemory& phase = estimate.phases[static_cast<std::size_t>(i)];
    double& slot = memory.peak_bytes[static_cast<std::size_t>(plan_phase_of(phase.kind))];
    slot = std::max(slot, phase.peak_bytes());
  }
  memory.rollout_concurrent_sequences = estimate.rollout.concurrent_sequences_per_replica;
  if (estimate.kv_cache_exhausted || estimate.kv_below_one_sequence) {
    // vLLM refuses to start without room for one max_model_len sequence in its KV cache
    // (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory): the rollout option cannot run.
    memory.broken_rule = kKvBelowOneSequenceRule;
  }
  return memory;
}

}  // namespace

TimeOptions time_options_for(const MemoryEstimate& memory, const TimeOptions& base) {
  TimeOptions options = base;
  options.rollout_concurrent_sequences = memory.rollout.concurrent_sequences_per_replica;
  return options;
}

TimeOptions time_options_for(const PlanMemory& memory, const TimeOptions& base) {
  TimeOptions options = base;
  options.rollout_concurrent_sequences = memory.rollout_concurrent_sequences;
  return options;
}

CostModel real_cost_model(const ModelSpec& model, const Cluster& cluster, const MemoryOptions& memory_options,
                          const TimeOptions& time_options) {
  auto clusters = std::make_shared<SizedClusters>(cluster);
  CostModel cost;
  cost.capacity_bytes = static_cast<double>(cluster.groups.front().gpu.memory_bytes);
  cost.memory = [&model, clusters, memory_options](const Strategy& s, const Workload& w) {
    return plan_memory(estimate_memory(model, clusters->for_gpus(s.world_size()), s, w, memory_options, nullptr));
  };
  MemoryOptions rollout_options = memory_options;
  rollout_options.rollout_phases_only = true;
  cost.rollout_memory = [&model, clusters, rollout_options](const Strategy& s, const Workload& w) {
    return plan_memory(estimate_memory(model, clusters->for_gpus(s.world_size()), s, w, rollout_options, nullptr));
  };
  cost.time = [&model, clusters, time_options](const Strategy& s, const Workload& w, const PlanMemory& memory) {
    const Cluster& sized = clusters->for_gpus(s.world_size());
    const TimeOptions options = time_options_for(memory, time_options);
    const TimeEstimate estimate = estimate_time(model, sized, s, w, options, nullptr);
    PlanTime time;
    double log_prob = 0;
    for (int i = 0; i < estimate.num_phases; ++i) {
      const TimePhase& phase = estimate.phases[static_cast<std::size_t>(i)];
      if (is_log_prob_phase(phase.name)) log_prob += phase.seconds;
    }
    const TimeBreakdown& b = estimate.breakdown;
    // The breakdown covers the whole step; its training components include the log-prob
    // passes, so they are scaled to the update's share of the non-rollout time.
    const double training = b.total() - b.rollout;
    const double update_share = training > 0 ? std::max(0.0, training - log_prob) / training : 0;
    auto set = [&](TimeComponent c, double seconds) { time.seconds[static_cast<std::size_t>(c)] = seconds; };
    set(TimeComponent::compute, b.compute * update_share);
    set(TimeComponent::moe_host_wait, b.moe_host_wait * update_share);
    set(TimeComponent::tp_comm, b.tp_comm * update_share);
    set(TimeComponent::pp_bubble, b.pp_bubble * update_share);
    set(TimeComponent::pp_comm, b.pp_comm * update_share);
    set(TimeComponent::dp_comm_exposed, b.dp_comm_exposed * update_share);
    set(TimeComponent::cp_comm, b.cp_comm * update_share);
    set(TimeComponent::ep_comm, b.ep_comm * update_share);
    set(TimeComponent::offload, b.offload * update_share);
    set(TimeComponent::rollout, b.rollout);
    set(TimeComponent::log_prob, log_prob);
    time.update_mfu = w.kind == WorkloadKind::rl ? estimate.actor_update_mfu : estimate.mfu;
    return time;
  };
  cost.rollout_seconds = [&model, clusters, time_options](const Strategy& s, const Workload& w, const PlanMemory& memory) {
    const Cluster& sized = clusters->for_gpus(s.world_size());
    if (sized.groups.empty() || w.kind != WorkloadKind::rl) return 0.0;
    const TimeOptions options = time_options_for(memory, time_options);
    return rl_step_rollout(model, sized.groups.front(), s, w, options, nullptr).total();
  };
  cost.breakdown = [&model, clusters, memory_options](const Strategy& s, const Workload& w) {
    const MemoryEstimate estimate = estimate_memory(model, clusters->for_gpus(s.world_size()), s, w, memory_options, nullptr);
    std::vector<PhaseBreakdown> phases;
    for (int i = 0; i < estimate.phase_count; ++i) {
      const PhaseMemory& phase = estimate.phases[static_cast<std::size_t>(i)];
      PhaseBreakdown breakdown{memory_phase_name(phase.kind), phase.peak_bytes(), {}};
      for (int c = 0; c < kMemoryComponentCount; ++c) {
        if (phase.bytes[static_cast<std::size_t>(c)] > 0) {
          breakdown.components.emplace_back(memory_component_name(static_cast<MemoryComponent>(c)),
                                            phase.bytes[static_cast<std::size_t>(c)]);
        }
      }
      phases.push_back(std::move(breakdown));
    }
    return phases;
  };
  return cost;
}

}  // namespace meshplan
