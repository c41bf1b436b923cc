#include "verl/hydra/engine_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "verl/hydra/hydra_compose.hpp"

namespace meshplan {
namespace {

// What Hydra prints, as an unknown-key finding quotes it ("Could not override ...").
std::string hydra_quote(const std::string& message) {
  const std::size_t open = message.find("(\"");
  const std::size_t close = message.find("\")", open);
  return open == std::string::npos || close == std::string::npos ? message : message.substr(open + 1, close - open);
}

// The unknown keys an error stops Hydra at, without their '+' / '~'.
// A finding's key without its '+' / '~'.
std::string unknown_key(const Finding& finding) {
  std::string key = finding.keys.front();
  while (!key.empty() && (key.front() == '+' || key.front() == '~')) key.erase(0, 1);
  return key;
}

std::vector<std::pair<std::size_t, std::string>> unknown_key_errors(const std::vector<Finding>& findings) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& finding = findings[i];
    if (finding.rule != "hydra.unknown-key" || finding.severity != Severity::error || finding.keys.empty()) continue;
    out.emplace_back(i, unknown_key(finding));
  }
  return out;
}

// `actor_rollout_ref.actor.model_engine=megatron` (verl's examples/README.md at 1dda039b9 says to
// write it; two of its scripts do): model_engine is a config group that ppo_trainer.yaml chooses
// at the top level (`defaults: - model_engine: dp`, `actor@actor_rollout_ref.actor:
// ${model_engine}_actor`), not a key of a section; the top-level choice is what selects the engine.
}  // namespace

void note_group_keys(std::vector<Finding>& findings, const ConfigTexts& texts,
                     const std::map<std::string, std::string>& choices,
                     const std::map<std::string, SourceLocation>& choice_locations,
                     std::map<std::string, std::string>& choice_fixes) {
  for (const auto& [index, key] : unknown_key_errors(findings)) {
    const std::size_t dot = key.rfind('.');
    const std::string group = dot == std::string::npos ? "" : key.substr(dot + 1);
    if (group.empty() || !is_config_group(texts, group)) continue;
    Finding& finding = findings[index];
    finding.message += "; '" + group + "' is a config group chosen at the top level (" + group +
                       "=OPTION), not a key of " + key.substr(0, dot);
    finding.fix.clear();
    const auto chosen = choices.find(group);
    if (chosen != choices.end()) {
      const auto located = choice_locations.find(group);
      const SourceLocation where = located != choice_locations.end() ? located->second : SourceLocation{};
      const std::string at = where.line > 0 ? where.file + ":" + std::to_string(where.line) : where.file;
      finding.message += ": " + group + "=" + chosen->second + " (" + at + ") already chooses it; drop this line";
    } else if (texts.count(group + "/" + finding.value) > 0) {
      finding.fix.push_back(group + "=" + finding.value);
      choice_fixes[key] = finding.fix.back();
    }
  }
}

// Keys of another training engine's configs (`actor_rollout_ref.actor.megatron.*` over the FSDP
// actor that ppo_trainer composes by default): the launch wants that engine and composes the
// default one. verl chooses the engine with the model_engine group (verl 2edc06a4e on:
// ppo_trainer.yaml `- model_engine: dp`, `actor@actor_rollout_ref.actor: ${model_engine}_actor`),
// before that with --config-name ppo_megatron_trainer (verl 0.7.1 has the group but its
// ppo_trainer does not choose the actor by it). The choice under which the most of the unknown
// keys compose is offered, the group first (checked: they are in that config), in one error.
std::optional<EngineChoice> note_engine_keys(std::vector<Finding>& findings, const ConfigNode& config,
                                             const std::string& config_name, const ConfigTexts& texts,
                                             const std::map<std::string, std::string>& choices,
                                             const std::vector<ShellArgument>& overrides, const Composer& compose,
                                             std::map<std::string, std::string>& choice_fixes) {
  const auto unknown = unknown_key_errors(findings);
  if (unknown.empty()) return std::nullopt;
  std::vector<EngineChoice> candidates;
  const ConfigNode* current = find_path(config, "model_engine");
  const std::string current_engine = current != nullptr ? current->text : "";
  if (is_config_group(texts, "model_engine") && choices.count("model_engine") == 0) {
    for (const auto& entry : texts) {
      const std::string& name = entry.first;
      if (!name.starts_with("model_engine/") || name.substr(13) == current_engine) continue;
      EngineChoice choice{"model_engine=" + name.substr(13), config_name, choices, ConfigNode{}};
      choice.choices["model_engine"] = name.substr(13);
      candidates.push_back(std::move(choice));
    }
  }
  if (config_name == "ppo_trainer" && texts.count("ppo_megatron_trainer") > 0) {
    candidates.push_back({"--config-name ppo_megatron_trainer", "ppo_megatron_trainer", choices, ConfigNode{}});
  }
  std::vector<std::size_t> best;
  EngineChoice* chosen = nullptr;
  for (EngineChoice& candidate : candidates) {
    auto composed = compose(candidate.config_name, candidate.choices);
    if (!composed.ok()) continue;
    std::vector<std::size_t> resolved;
    for (const auto& [index, key] : unknown) {
      if (find_path(composed.value(), key) != nullptr) resolved.push_back(index);
    }
    // A choice that loses keys the launch sets today (a Megatron launch with one stray
    // fsdp_config key) is not the engine the launch is for.
    const bool keeps_the_rest = std::all_of(overrides.begin(), overrides.end(), [&](const ShellArgument& word) {
      const std::size_t eq = word.text.find('=');
      if (word.unknown || eq == std::string::npos) return true;
      if (word.text.front() == '+' || word.text.front() == '~') return true;
      const std::string key = word.text.substr(0, eq);
      return find_path(config, key) == nullptr || find_path(composed.value(), key) != nullptr;
    });
    if (!keeps_the_rest) continue;
    if (resolved.size() > best.size()) {
      best = std::move(resolved);
      candidate.base = std::move(composed.value());
      chosen = &candidate;
    }
  }
  if (chosen == nullptr) return std::nullopt;
  Finding engine;
  engine.rule = "hydra.engine-keys";
  engine.location = findings[best.front()].location;
  for (std::size_t index : best) {
    engine.keys.push_back(findings[index].keys.front());
    choice_fixes[unknown_key(findings[index])] = chosen->fix;
  }
  const ConfigNode* actor = find_path(config, "actor_rollout_ref.actor._target_");
  engine.message = fmt::format(
      "{} override(s) set keys of the configs that {} composes ({}{}), but the launch composes {}{}{}: Hydra stops "
      "at the first ({}); choose the engine with {}",
      best.size(), chosen->fix, engine.keys.front(), best.size() > 1 ? ", ..." : "", config_name,
      current_engine.empty() ? "" : " with model_engine=" + current_engine,
      actor != nullptr ? " (the actor built as " + actor->text + ")" : "",
      hydra_quote(findings[best.front()].message), chosen->fix);
  engine.fix = {chosen->fix};
  for (auto it = best.rbegin(); it != best.rend(); ++it) {
    findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  findings.insert(findings.begin() + static_cast<std::ptrdiff_t>(best.front()), std::move(engine));
  return std::move(*chosen);
}

}  // namespace meshplan
