#pragma once
// Why the winner beats the runner-ups, computed from the numbers: for each dimension where a
// different value also fits, the best such plan, how much slower (or bigger) it is, and the
// step-time component responsible ("PP=2 instead of TP=16 because TP all-reduce would cross
// nodes: +31% step time"). Also the seeds' rule of thumb (model size -> strategy) and whether
// the search agrees with it.
#include <string>
#include <vector>

#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "search/search.hpp"

namespace meshplan {

struct Comparison {
  Dimension dimension = Dimension::tp;
  std::string winner_setting;       ///< the winner's values where the runner-up differs
  std::string other_setting;        ///< the runner-up's values there
  double step_time_change = 0;      ///< (other - winner) / winner
  double peak_bytes_change = 0;     ///< other - winner
  TimeComponent cause = TimeComponent::compute;  ///< the component that grows the most
  double cause_seconds = 0;         ///< by how much
  std::string sentence;
};

struct Explanation {
  std::vector<Comparison> comparisons;  ///< one per dimension with a feasible alternative
  std::string rule_of_thumb;            ///< the seeds' decision tree applied to this case
};

/// Explains result.top.front() (none when the result has no feasible plan).
Explanation explain_winner(const SearchResult& result, const ModelSpec& model, const Cluster& cluster,
                           Objective objective);

}  // namespace meshplan
