#pragma once
// The winner with one choice changed at a time — everything else held, DP re-derived so the GPU
// count stays — evaluated on the same rules and cost model as the search. This is what the
// explanation compares against: "PP=2 rather than PP=1: PP=1 would not fit", "TP=4 rather than
// TP=8: +31% step time", each difference caused by one decision (the seeds' decision tree).
#include <cstdint>
#include <string_view>
#include <vector>

#include "search/candidate.hpp"
#include "search/cost_model.hpp"
#include "search/dimension.hpp"
#include "search/search_space.hpp"

namespace meshplan {

struct Neighbour {
  Dimension dimension = Dimension::tp;
  DimensionValues values{};      ///< every dimension's value after the change
  std::string_view broken_rule;  ///< non-empty: the change breaks this rule (nothing evaluated)
  bool fits = false;             ///< peak within the usable memory (time evaluated only then)
  PlanCandidate candidate;
};

struct NeighbourSearch {
  const SearchSpace& space;
  const CostModel& cost;
  const RuleCheck& check;
  double usable_bytes = 0;
  std::int64_t num_layers = 0;
};

/// A strategy and workload as one whole candidate (all phases from one evaluation): its memory
/// peaks, then, for one that fits, its time.
PlanCandidate evaluate_memory(const Strategy& strategy, const Workload& workload, const CostModel& cost);
void evaluate_time(PlanCandidate& candidate, const CostModel& cost);

/// Every one-dimension change of `winner` to another value of the search space, on the same GPUs
/// (DP absorbs a TP/PP/CP change; where it cannot, PP or TP compensates). The backend is not a
/// one-step change (the two backends share no parallel sizes) and is left out.
std::vector<Neighbour> neighbours_of(const PlanCandidate& winner, const NeighbourSearch& search);

}  // namespace meshplan
