#include "strategy/validate.hpp"

#include <array>
#include <span>

#include "strategy/strategy_rule.hpp"

namespace meshplan {
namespace {

using strategy_rule::Inputs;
using strategy_rule::Rule;

// The tables in evaluation order (strategy_rule.hpp).
std::array<std::span<const Rule>, 3> rule_tables() {
  return {strategy_rule::layout_rules(), strategy_rule::feature_rules(), strategy_rule::batch_rules()};
}

}  // namespace

const std::vector<RuleInfo>& strategy_rules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> list;
    for (const std::span<const Rule> table : rule_tables()) {
      for (const Rule& rule : table) list.push_back(rule.info);
    }
    return list;
  }();
  return infos;
}

std::vector<Violation> validate_strategy(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                         const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  const Rule& sizes_positive = strategy_rule::layout_rules().front();
  std::vector<Violation> violations;
  for (const std::span<const Rule> table : rule_tables()) {
    for (const Rule& rule : table) {
      if (!rule.violated(in)) continue;
      Violation violation{std::string(rule.info.id), "", ""};
      rule.explain(in, violation);
      violations.push_back(std::move(violation));
      // Every later rule divides by these sizes: with one below 1 only this rule is reported.
      if (&rule == &sizes_positive) return violations;
    }
  }
  return violations;
}

std::string_view first_violation(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                 const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  for (const std::span<const Rule> table : rule_tables()) {
    for (const Rule& rule : table) {
      if (rule.violated(in)) return rule.info.id;
    }
  }
  return {};
}

}  // namespace meshplan
