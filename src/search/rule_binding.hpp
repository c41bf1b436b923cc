#pragma once
// Binds the search's RuleCheck to the rule table (strategy/validate.hpp) for one model and
// cluster; a candidate using fewer GPUs is checked against the GPUs it uses.
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "search/cost_model.hpp"

namespace meshplan {

/// `model` and `cluster` must outlive the returned function.
RuleCheck validate_rule_check(const ModelSpec& model, const Cluster& cluster);

}  // namespace meshplan
