#pragma once
// Binds the search's CostModel to the cost models: estimate_memory (cost/memory/memory_estimate.hpp)
// and estimate_time (cost/time/step_time.hpp). Phases map to the planner's three:
//   rollout  <- memory rollout + weight_sync, time timing_s/gen
//   log_prob <- memory old_log_prob + ref_log_prob, time timing_s/old_log_prob, ref, values
//   update   <- memory train / update_actor / update_critic, time train / update_*
// A candidate using fewer GPUs than the cluster has is estimated on those GPUs.
#include "cost/memory/memory_estimate.hpp"
#include "cost/time/step_time.hpp"
#include "search/cost_model.hpp"

namespace meshplan {

/// `model` and `cluster` must outlive the returned CostModel.
CostModel real_cost_model(const ModelSpec& model, const Cluster& cluster, const MemoryOptions& memory_options,
                          const TimeOptions& time_options);

/// The time options with the rollout concurrency the memory estimate's KV budget allows.
TimeOptions time_options_for(const MemoryEstimate& memory, const TimeOptions& base);
/// The same from the search's per-candidate memory (PlanMemory::rollout_concurrent_sequences).
TimeOptions time_options_for(const PlanMemory& memory, const TimeOptions& base);

}  // namespace meshplan
