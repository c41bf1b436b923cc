#include "verl/rules/verl_rules.hpp"

#include <fmt/format.h>

#include "verl/rules/passthrough_rules.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

std::vector<const std::vector<VerlRule>*> all_tables() {
  return {&option_rules(), &batch_rules(),    &layout_rules(),  &role_rules(),
          &megatron_rules(), &dispatch_rules(), &feature_rules()};
}

// Where to point: the last place any of the rule's keys was set; the launch otherwise.
SourceLocation location_of(const VerlLaunch& launch, const std::vector<std::string_view>& keys) {
  SourceLocation best = launch.location;
  bool found = false;
  for (std::string_view key : keys) {
    const auto it = launch.set_at.find(std::string(key));
    if (it != launch.set_at.end() && (!found || it->second.line >= best.line)) {
      best = it->second;
      found = true;
    }
  }
  return best;
}

Finding skipped_rule(const VerlLaunch& launch, const VerlRule& rule, const ConfigView& view) {
  const std::string& key = view.unknown_key();
  const ConfigNode* node = find_path(launch.config, key);
  Finding skipped;
  skipped.severity = Severity::info;
  skipped.rule = std::string(rule.id);
  skipped.keys = {key};
  skipped.message =
      view.unknown_too_large()
          ? fmt::format("skipped: {} ({}) is beyond what the rules evaluate ({}); no real size, count or length "
                        "is that large",
                        key, node != nullptr ? node->to_text() : "?", kLargestEvaluatedInteger)
          : "skipped: the value of " + key + " is not known statically (" + (node != nullptr ? node->text : "?") + ")";
  skipped.location = location_of(launch, {key});
  return skipped;
}

}  // namespace

std::vector<Finding> check_verl_rules(const VerlLaunch& launch, const ModelSpec* model) {
  std::vector<Finding> findings;
  const ConfigView view(launch.config, model, &launch.verl_version);
  bool skipped_for_model = false;
  for (const auto* table : all_tables()) {
    for (const VerlRule& rule : *table) {
      if (!rule_applies(rule, launch.verl_version)) continue;
      if (rule.needs_model && model == nullptr) {
        skipped_for_model = true;
        continue;
      }
      view.reset_unknown();
      std::optional<RuleHit> hit = rule.check(view);
      // A verdict that read an unknown value (even through a default) is not certain: skipped.
      if (!view.unknown_key().empty()) {
        findings.push_back(skipped_rule(launch, rule, view));
        continue;
      }
      if (!hit) continue;
      Finding finding;
      finding.severity = rule.severity;
      finding.rule = std::string(rule.id);
      finding.keys.assign(rule.keys.begin(), rule.keys.end());
      finding.value = std::move(hit->value);
      finding.message = std::move(hit->message);
      finding.fix = std::move(hit->fix);
      finding.location = location_of(launch, rule.keys);
      findings.push_back(std::move(finding));
    }
  }
  if (skipped_for_model) {
    Finding info;
    info.severity = Severity::info;
    info.rule = "model.unknown";
    info.keys = {"actor_rollout_ref.model.path"};
    info.message = "model-shape rules (heads, layers, experts, max_model_len) skipped: no --model given and the model "
                   "path matches no embedded preset";
    findings.push_back(std::move(info));
  }
  for (Finding& finding : check_passthrough_dictionaries(launch)) findings.push_back(std::move(finding));
  return findings;
}

std::vector<std::string> verl_rule_ids() {
  std::vector<std::string> ids;
  for (const auto* table : all_tables()) {
    for (const VerlRule& rule : *table) ids.emplace_back(rule.id);
  }
  return ids;
}

}  // namespace meshplan
