#include "strategy/validate.hpp"

#include <initializer_list>
#include <span>
#include <vector>

#include "strategy/strategy_rule.hpp"

namespace meshplan {
namespace {

using strategy_rule::Inputs;
using strategy_rule::Rule;

// Every rule in evaluation order (strategy_rule.hpp), in one contiguous table: the planner calls
// first_violation for every candidate, so the hot loop runs over one array as before the split.
const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> list;
    for (const std::span<const Rule> table :
         {strategy_rule::layout_rules(), strategy_rule::feature_rules(), strategy_rule::batch_rules()}) {
      list.insert(list.end(), table.begin(), table.end());
    }
    return list;
  }();
  return rules;
}

}  // namespace

const std::vector<RuleInfo>& strategy_rules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> list;
    for (const Rule& rule : all_rules()) list.push_back(rule.info);
    return list;
  }();
  return infos;
}

std::vector<Violation> validate_strategy(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                         const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  const std::vector<Rule>& rules = all_rules();
  std::vector<Violation> violations;
  for (const Rule& rule : rules) {
    if (!rule.violated(in)) continue;
    Violation violation{std::string(rule.info.id), "", ""};
    rule.explain(in, violation);
    violations.push_back(std::move(violation));
    // Every later rule divides by these sizes: with one below 1 only this rule is reported.
    if (&rule == &rules.front()) break;
  }
  return violations;
}

std::string_view first_violation(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                 const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  for (const Rule& rule : all_rules()) {
    if (rule.violated(in)) return rule.info.id;
  }
  return {};
}

}  // namespace meshplan
