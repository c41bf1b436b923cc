#pragma once
// The divisibility and compatibility rules a Strategy must satisfy against a model, a cluster
// and a workload. The ONE place these rules live: estimate rejects with them, plan prunes with
// them, check maps verl/Megatron keys onto them. Each rule has a stable id.
#include <string>
#include <string_view>
#include <vector>

#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

struct Violation {
  std::string rule;     ///< stable id, e.g. "tp.divides-heads"
  std::string message;  ///< what is wrong, with the numbers: "TP=3 does not divide 28 attention heads"
  std::string valid;    ///< what would be valid, e.g. "TP in {1, 2, 4, 7, 14, 28}"; may be empty
};

/// The id and one-line description of every rule, in evaluation order (cheapest first).
struct RuleInfo {
  std::string_view id;
  std::string_view description;
  std::string_view source;  ///< the framework check it mirrors
};
const std::vector<RuleInfo>& strategy_rules();

/// Every violated rule, in the order of strategy_rules(). Empty when the strategy is valid.
std::vector<Violation> validate_strategy(const Strategy& strategy, const ModelSpec& model,
                                         const Cluster& cluster, const Workload& workload);

/// The id of the first violated rule, or an empty view when valid. Allocation-free: the
/// planner calls it for every candidate.
std::string_view first_violation(const Strategy& strategy, const ModelSpec& model,
                                 const Cluster& cluster, const Workload& workload);

}  // namespace meshplan
