#pragma once
// The user's own launch as a plan: its layout estimated like any candidate (the baseline the
// plans are compared with), its values added to the search space so that the search can reach it,
// and what of it the space still cannot express (a defect of the space, reported, never hidden).
#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "search/candidate.hpp"
#include "search/cost_model.hpp"
#include "search/search_space.hpp"

namespace meshplan {

struct Baseline {
  PlanCandidate candidate;  ///< every phase's memory and the step time (time even when it does not fit)
  bool fits = false;        ///< peak within the usable memory (capacity after headroom)
  std::string broken_rule;  ///< a rule of strategy/validate the launch breaks ("" when none)
};

/// A launch's settings in the search's terms: a dense model has no expert layers (ETP 1); unset
/// micro-batches take the actor's (cost/ convention); with dynamic batch sizes the micro-batches are
/// the token budgets at the padded width (search/layout.hpp: set_token_budgets).
void normalize_launch(Strategy& strategy, Workload& workload, const ModelSpec& model);

/// Estimates `strategy` + `workload` as the search would (phases summed, peak over phases).
Baseline evaluate_baseline(const Strategy& strategy, const Workload& workload, const CostModel& cost,
                           const RuleCheck& check, double usable_bytes);

/// Adds each of the launch's values that the space lacks (parallel sizes, pipeline split,
/// offload items, micro-batches or token budgets, recompute, rollout TP, gmu, log-prob
/// micro-batches, adapters), so the search can reach the launch and anything one step from it.
void include_in_space(SearchSpace& space, const Strategy& strategy, const Workload& workload,
                      std::int64_t num_layers);

/// The launch's settings the space cannot express, as "name=value" (empty: the search reaches it).
std::vector<std::string> outside_space(const SearchSpace& space, const Strategy& strategy, const Workload& workload,
                                       std::int64_t num_layers);

}  // namespace meshplan
