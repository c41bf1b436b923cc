#pragma once
// The verl rule table run over a resolved launch: batch, layout, option, role, Megatron,
// dispatch and feature rules, then the pass-through and environment rules. Every finding names
// its rule id, keys, value, message and fix.
#include <vector>

#include "model/model_spec.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

/// Runs every rule. `model` may be null: model-shape rules are then skipped with one info finding.
std::vector<Finding> check_verl_rules(const VerlLaunch& launch, const ModelSpec* model);

/// Every rule id of the verl table (for documentation and tests).
std::vector<std::string> verl_rule_ids();

}  // namespace meshplan
