#pragma once
// The search's view of the cost models: per-phase memory peaks and seconds for one candidate.
// The planner is written against these callbacks so that it can be tested with hand-written
// cost functions; search/real_cost_model.cpp binds them to the cost models of src/cost/.
//
// verl runs an RL step's phases one after another on the same GPUs (generation, old/ref
// log-prob passes, actor update; verl/trainer/ppo/ray_trainer.py: fit), so a step's time is the
// sum of its phases and its peak memory the largest phase peak. The search relies on that: it
// evaluates each phase's own options once per parallel layout and combines them.
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strategy/strategy.hpp"

namespace meshplan {

/// The phases whose options the search chooses separately. Pretraining and SFT have `update`
/// only. `rollout` includes the weight sync to the inference engine; `log_prob` the old and ref
/// forward passes.
enum class PlanPhase { rollout, log_prob, update, count };
inline constexpr std::size_t kPlanPhaseCount = static_cast<std::size_t>(PlanPhase::count);
std::string_view plan_phase_name(PlanPhase phase);

/// Step-time components, named as `time.breakdown` of `estimate --json` (issue 4) plus the
/// RL phases that are not the training update.
enum class TimeComponent {
  compute, moe_host_wait, tp_comm, pp_bubble, pp_comm, dp_comm_exposed, cp_comm, ep_comm, offload,
  rollout, log_prob, weight_sync, count
};
inline constexpr std::size_t kTimeComponentCount = static_cast<std::size_t>(TimeComponent::count);
std::string_view time_component_name(TimeComponent component);

/// The phase whose option decides a time component.
PlanPhase phase_of(TimeComponent component);

/// Per-GPU memory of the most loaded rank, per phase (0 for a phase the workload lacks).
/// The start-up rule a rollout option breaks when its engine's KV cache cannot hold one
/// max_model_len sequence (vLLM refuses to start; docs/memory-model.md "Engine start-up").
inline constexpr std::string_view kKvBelowOneSequenceRule = "rl.kv-below-max-model-len";

struct PlanMemory {
  std::array<double, kPlanPhaseCount> peak_bytes{};
  /// A rule only the memory model can decide (kKvBelowOneSequenceRule), broken by the rollout
  /// settings of the workload; empty when none. The search applies it to rollout options.
  std::string_view broken_rule;
  /// Sequences one rollout replica's KV cache holds at once (RolloutCapacity), for the rollout time.
  std::int64_t rollout_concurrent_sequences = 0;
  double of(PlanPhase phase) const { return peak_bytes[static_cast<std::size_t>(phase)]; }
};

/// Seconds per step, by component (the sum is the step time).
struct PlanTime {
  std::array<double, kTimeComponentCount> seconds{};
  double update_mfu = 0;  ///< model FLOPs utilisation of the training update (verl perf/mfu/actor)
  double of(TimeComponent c) const { return seconds[static_cast<std::size_t>(c)]; }
  /// Seconds of the components that belong to `phase`.
  double phase_seconds(PlanPhase phase) const;
};

/// One phase's memory by component, for the reports' bars (the search itself needs peaks only).
struct PhaseBreakdown {
  std::string name;  ///< the cost model's phase name, e.g. "rollout", "actor_update"
  double peak_bytes = 0;
  std::vector<std::pair<std::string, double>> components;  ///< name -> bytes, summing to the peak
};

/// What the search asks about a candidate. `memory` is always asked first; `time` only for
/// options that fit.
struct CostModel {
  std::function<PlanMemory(const Strategy&, const Workload&)> memory;
  /// `memory` is what `memory` returned for the same candidate (its rollout concurrency).
  std::function<PlanTime(const Strategy&, const Workload&, const PlanMemory&)> time;
  /// The rollout phase's memory alone (PlanPhase::rollout), for rollout options: the search asks
  /// it instead of `memory` when set.
  std::function<PlanMemory(const Strategy&, const Workload&)> rollout_memory;
  /// The rollout's seconds alone (TimeComponent::rollout), for rollout options: the search asks
  /// it instead of `time` when set (the whole step's training and log-prob passes are the same for
  /// every rollout option of a layout).
  std::function<double(const Strategy&, const Workload&, const PlanMemory&)> rollout_seconds;
  /// Per-phase components for the plans that are reported (may be empty in tests).
  std::function<std::vector<PhaseBreakdown>(const Strategy&, const Workload&)> breakdown;
  double capacity_bytes = 0;  ///< per GPU, before headroom
};

/// Divisibility and consistency rules: the id of the first rule the candidate breaks, or "" when
/// none. Bound to validate_strategy() (strategy/validate.hpp) outside tests.
/// The ids are static (the rule tables of strategy/strategy_rule.hpp).
using RuleCheck = std::function<std::string_view(const Strategy&, const Workload&)>;

}  // namespace meshplan
