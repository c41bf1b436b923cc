#pragma once
// Why the winner beats the runner-ups, computed from the numbers. Each choice is compared with
// the winner changed in that choice alone (search/neighbours.hpp): the best smaller and larger
// value, how much slower (or bigger) each is and the step-time component responsible ("TP=8
// rather than TP=16: TP all-reduce would cross nodes, +86% step time"), the values that would not fit or
// break a rule, and the choices that make no measurable difference. The backend is compared
// with the best plan of the other backend. Also the seeds' rule of thumb (model size ->
// strategy) and whether the search agrees with it.
#include <string>
#include <vector>

#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "search/neighbours.hpp"
#include "search/search.hpp"

namespace meshplan {

/// The winner against one other plan.
struct Versus {
  std::string winner_setting;       ///< the winner's values where the other differs, "TP=8, PP=2"
  std::string other_setting;        ///< the other's values there, "TP=16, PP=1"
  double step_time_change = 0;      ///< (other - winner) / winner
  double peak_bytes_change = 0;     ///< other - winner
  TimeComponent cause = TimeComponent::compute;  ///< the component that grows the most
  double cause_seconds = 0;         ///< by how much
  std::string reason;               ///< "TP all-reduce would cross nodes, +86% step time (+1.90 s of tp_comm)"
};

/// One choice of the winner: against the best smaller and larger value that fit (or the best
/// other choice), the values that would not fit and those that break a rule.
struct Comparison {
  Dimension dimension = Dimension::tp;
  std::vector<Versus> versus;            ///< empty: no other value fits
  std::vector<std::string> not_fitting;  ///< "TP=1 (41.2 GiB in update)"
  std::vector<std::string> breaking;     ///< "TP=8, TP=16 break tp.divides-heads"
  std::string sentence;
};

struct Explanation {
  std::vector<Comparison> comparisons;  ///< the decisive choices first
  std::vector<std::string> indifferent;  ///< other values within 0.5% of the winner, e.g. "mb=8"
  std::string rule_of_thumb;            ///< the seeds' decision tree applied to this case
};

/// Explains result.top.front() (empty when the result has no feasible plan). `search` is what
/// the result was searched with.
Explanation explain_winner(const SearchResult& result, const ModelSpec& model, const Cluster& cluster,
                           Objective objective, const NeighbourSearch& search);

}  // namespace meshplan
