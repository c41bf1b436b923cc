#pragma once
// A launch that sets the keys of a training engine it does not choose: the Megatron actor's keys
// (`actor_rollout_ref.actor.megatron.*`) over the FSDP actor that ppo_trainer composes by default,
// or the engine group written as a section's key (`actor_rollout_ref.actor.model_engine=megatron`).
// verl chooses the engine with the model_engine config group (verl 2edc06a4e on: ppo_trainer.yaml
// `- model_engine: dp`, `actor@actor_rollout_ref.actor: ${model_engine}_actor`), before that with
// --config-name ppo_megatron_trainer.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"
#include "verl/hydra/verl_base.hpp"
#include "verl/rules/finding.hpp"
#include "verl/shell/shell_script.hpp"

namespace meshplan {

/// A training engine to compose the launch with: a model_engine choice or a config name, and the
/// fix line that makes it.
struct EngineChoice {
  std::string fix;
  std::string config_name;
  std::map<std::string, std::string> choices;
  ConfigNode base;  ///< config_name composed with choices, before the launch's overrides
};

/// A config name composed with the given group choices from the launch's config tree.
using Composer =
    std::function<Result<ConfigNode>(const std::string& config_name, const std::map<std::string, std::string>& choices)>;

/// An unknown key whose last part is a config group (`actor_rollout_ref.actor.model_engine`): the
/// finding says the group is chosen at the top level, with that choice as its fix (recorded in
/// `choice_fixes`), or "drop this line" when the launch already makes it (`choices`, where
/// `choice_locations`).
void note_group_keys(std::vector<Finding>& findings, const ConfigTexts& texts,
                     const std::map<std::string, std::string>& choices,
                     const std::map<std::string, SourceLocation>& choice_locations,
                     std::map<std::string, std::string>& choice_fixes);

/// The unknown keys that another engine's configs hold: the choice under which the most of them
/// compose, the model_engine group first, is offered in one `hydra.engine-keys` error that replaces
/// their findings (and recorded for each of them in `choice_fixes`), and returned; none when no
/// choice composes any of them, or when a choice would lose a key the launch sets today (`overrides`).
std::optional<EngineChoice> note_engine_keys(std::vector<Finding>& findings, const ConfigNode& config,
                                             const std::string& config_name, const ConfigTexts& texts,
                                             const std::map<std::string, std::string>& choices,
                                             const std::vector<ShellArgument>& overrides, const Composer& compose,
                                             std::map<std::string, std::string>& choice_fixes);

}  // namespace meshplan
