#pragma once
// The planner's search: enumerate layouts, prune them with the rule table (cheap rules first),
// evaluate each phase's options (memory before time), combine, rank, keep the top K, the Pareto
// frontier, rejection counts and the runner-ups per dimension.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "search/candidate.hpp"
#include "search/cost_model.hpp"
#include "search/dimension.hpp"
#include "search/search_space.hpp"

namespace meshplan {

struct SearchOptions {
  Objective objective = Objective::throughput;
  double headroom = 0.1;  ///< keep this fraction of GPU memory free
  int top_k = 5;
  /// Called after each layout with (layouts done, layouts in all); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// The best feasible candidate with a given value along one dimension (the search keeps one per backend).
struct Alternative {
  Dimension dimension = Dimension::tp;
  int value = 0;
  PlanCandidate candidate;
};

struct SearchResult {
  std::int64_t searched = 0;  ///< candidates in the space (every combination visited or pruned)
  std::int64_t feasible = 0;
  std::map<std::string, std::int64_t> rejected;  ///< rule id -> candidates; "memory" for no fit
  /// Best first, at most top_k, one per plan shape (variants differing only in micro-batch
  /// sizes or gpu_memory_utilization are listed once, the best of them).
  std::vector<PlanCandidate> top;
  std::vector<PlanCandidate> pareto;             ///< memory ascending
  std::optional<PlanCandidate> closest_miss;     ///< least memory among rule-passing candidates
  std::vector<Alternative> alternatives;         ///< the best candidate of each backend
  double usable_bytes = 0;                       ///< capacity x (1 - headroom)
  /// (peak bytes, tokens/s) of an evenly spaced sample of feasible candidates (at most
  /// kSampleLimit), for the throughput-vs-memory scatter.
  std::vector<std::pair<double, double>> sample;
  static constexpr std::size_t kSampleLimit = 2000;
};

/// Searches `space` for `workload` on GPUs of `capacity` (CostModel). `check` names the first
/// broken rule of a strategy (empty: valid).
SearchResult search_plans(const ModelSpec& model, const SearchSpace& space, const Workload& workload,
                          const CostModel& cost, const RuleCheck& check, const SearchOptions& options);

}  // namespace meshplan
