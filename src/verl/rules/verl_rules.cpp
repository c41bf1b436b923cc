#include "verl/rules/verl_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "verl/rules/passthrough_rules.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

std::vector<const std::vector<VerlRule>*> all_tables() {
  return {&option_rules(),      &batch_rules(),        &layout_rules(),       &role_rules(),
          &megatron_rules(),    &dispatch_rules(),     &feature_rules(),      &fully_async_rules(),
          &v1_trainer_rules(),  &distillation_rules(), &disaggregation_rules(), &weight_sync_rules()};
}

// Where to point: the last place any of the rule's keys was set; the launch otherwise. `check
// --set` lines are applied after the launch's own, so they come last whatever their line.
SourceLocation location_of(const VerlLaunch& launch, const std::vector<std::string_view>& keys) {
  SourceLocation best = launch.location;
  bool found = false;
  const auto rank = [](const SourceLocation& at) { return std::pair(at.file == "--set", at.line); };
  for (std::string_view key : keys) {
    const auto it = launch.set_at.find(std::string(key));
    if (it != launch.set_at.end() && (!found || rank(it->second) >= rank(best))) {
      best = it->second;
      found = true;
    }
  }
  return best;
}

// The embedded verl versions (but the launch's) on which `rule` would not fire: it does not exist
// there, or their registries accept what the launch sets.
std::vector<std::string> versions_without(const VerlRule& rule, const VerlLaunch& launch, const ModelSpec* model) {
  std::vector<std::string> passing;
  for (const VerlVersion& other : embedded_verl_versions()) {
    if (other.index == launch.verl_version.index) continue;
    if (!rule_applies(rule, other)) {
      passing.push_back(other.id);
      continue;
    }
    ConfigView view(launch.config, model, &other);
    view.set_trainer(launch.trainer);
    if (launch.opaque_argument) view.assume_opaque(launch.set_at, *launch.opaque_argument);
    view.assume_maybe_set(launch.maybe_set);
    if (!rule.check(view)) passing.push_back(other.id);
  }
  return passing;
}

// "Class (it adds a, b)" when the launch's verl checkout has fields of the config class `rule`
// mirrors ("verl/<module>.py:<Class>[.<method>]") that no embedded verl has: a fork's own change, not
// a development snapshot's upstream fields; "" otherwise.
std::string fields_added_by_checkout(const VerlRule& rule, const VerlLaunch& launch) {
  const std::size_t colon = rule.mirrors.find(':');
  const auto own = launch.registry_names.find("dataclass_field");
  if (colon == std::string_view::npos || own == launch.registry_names.end()) return "";
  std::string cls(rule.mirrors.substr(colon + 1));
  cls = cls.substr(0, cls.find('.'));
  if (cls.empty() || !std::isupper(static_cast<unsigned char>(cls.front()))) return "";
  const auto upstream = [](const std::string& field) {
    const auto& versions = embedded_verl_versions();
    return std::any_of(versions.begin(), versions.end(), [&](const VerlVersion& version) {
      const std::vector<std::string>& fields = verl_registry_names(version, "dataclass_field");
      return std::find(fields.begin(), fields.end(), field) != fields.end();
    });
  };
  const std::string prefix = cls + ".";
  std::string added;
  for (const std::string& field : own->second) {
    if (!field.starts_with(prefix) || upstream(field)) continue;
    added += (added.empty() ? "" : ", ") + field.substr(prefix.size());
  }
  return added.empty() ? "" : cls + " (it adds " + added + ")";
}

}  // namespace

std::vector<Finding> check_verl_rules(const VerlLaunch& launch, const ModelSpec* model) {
  std::vector<Finding> findings;
  ConfigView view(launch.config, model, &launch.verl_version);
  view.use_registries(launch.registry_names);
  view.set_trainer(launch.trainer);
  if (launch.opaque_argument) view.assume_opaque(launch.set_at, *launch.opaque_argument);
  view.assume_maybe_set(launch.maybe_set);
  bool skipped_for_model = false;
  std::string skipped_for_opaque;  ///< ids of the rules that read a default the opaque argument may change
  for (const auto* table : all_tables()) {
    for (const VerlRule& rule : *table) {
      if (!rule_applies(rule, launch.verl_version)) continue;
      if (view.fully_async() && not_run_by_fully_async(rule.id)) continue;
      if (rule.needs_model && model == nullptr) {
        skipped_for_model = true;
        continue;
      }
      view.reset_unknown();
      std::optional<RuleHit> hit = rule.check(view);
      // A verdict that read a value not known statically is not certain: skipped, like no verdict.
      if (!hit || !view.unknown_key().empty()) {
        if (view.unknown_from_opaque()) {
          skipped_for_opaque += (skipped_for_opaque.empty() ? "" : ", ") + std::string(rule.id);
        } else if (!view.unknown_key().empty()) {
          Finding skipped;
          skipped.severity = Severity::info;
          skipped.rule = std::string(rule.id);
          skipped.keys = {view.unknown_key()};
          const ConfigNode* value = find_path(launch.config, view.unknown_key());
          skipped.message =
              view.unknown_too_large()
                  ? fmt::format("skipped: {} ({}) is beyond what the rules evaluate ({}); no real size, count or "
                                "length is that large",
                                view.unknown_key(), value != nullptr ? value->to_text() : "?", kLargestEvaluatedInteger)
                  : "skipped: the value of " + view.unknown_key() + " is not known statically (" +
                        view.unknown_reason() + ")";
          skipped.location = location_of(launch, {view.unknown_key()});
          findings.push_back(std::move(skipped));
        }
        continue;
      }
      Finding finding;
      finding.severity = hit->uncertain && rule.severity == Severity::error ? Severity::warning : rule.severity;
      if (finding.severity == Severity::error && launch.verl_version_assumed) {
        // The launch names no verl: a failure that an embedded verl would not have is not certain.
        const std::vector<std::string> passing = versions_without(rule, launch, model);
        if (!passing.empty()) {
          finding.severity = Severity::warning;
          hit->message += "; the launch names no verl and " + launch.verl_version.id + ", the newest, is assumed: verl " +
                          version_list(passing) + " would not stop here (give --verl-version)";
        }
      }
      if (finding.severity == Severity::error && !rule.since.empty() &&
          launch.checkout_version == std::string(rule.since) + ".dev") {
        // A development snapshot of the release that added the check may predate it (forks vendor
        // verl 0.7.0.dev from before sync rollout was removed).
        finding.severity = Severity::warning;
        hit->message += "; a check of verl " + std::string(rule.since) + ", and the launch's verl " +
                        launch.checkout_version + " is a development snapshot that may predate it";
      }
      if (finding.severity == Severity::error) {
        // A checkout whose copy of the mirrored config class adds fields has changed that class: its
        // checks may differ from the release's (opd_code_base's DistillationConfig adds `mode` and
        // returns early for mode=self).
        if (const std::string added = fields_added_by_checkout(rule, launch); !added.empty()) {
          finding.severity = Severity::warning;
          hit->message += "; the launch's verl checkout changed " + added + ", so its own check may differ";
        }
      }
      if (finding.severity == Severity::error && !launch.own_entry_point.empty()) {
        // verl's check runs in RayPPOTrainer or its workers; a fork's own trainer may not run it.
        finding.severity = Severity::warning;
        hit->message += "; the launch runs " + launch.own_entry_point +
                        ", not verl's main_ppo: this holds if its trainer keeps verl's check";
      }
      finding.rule = std::string(rule.id);
      finding.keys.assign(rule.keys.begin(), rule.keys.end());
      finding.value = std::move(hit->value);
      finding.message = std::move(hit->message);
      finding.fix = std::move(hit->fix);
      finding.location = location_of(launch, rule.keys);
      findings.push_back(std::move(finding));
    }
  }
  if (!skipped_for_opaque.empty()) {
    Finding info;
    info.severity = Severity::info;
    info.rule = "launch.not-checked";
    info.message = "skipped, as they read defaults that the argument " + *launch.opaque_argument +
                   " (not known statically) may override: " + skipped_for_opaque;
    info.location = launch.location;
    findings.push_back(std::move(info));
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
