#pragma once
// Hydra's defaults-list composition, for a user's own verl config directory (`--verl-config`,
// e.g. <verl>/verl/trainer/config of a verl newer than the embedded schema): a config's
// `defaults:` entries are loaded in order and merged, each at its package, with `_self_` (the
// config's own keys) where it is listed (last when absent, as in Hydra >= 1.1).
// The subset verl's configs use: `name` or `name@package` (a config of the same group, merged at the parent's
// package), `group: option`, `group@package: option`, `../group@package: option` (relative to
// the parent's group), `override group: option`, options interpolating another group's choice
// (`${model_engine}_actor`), and the `# @package _global_` header. Command-line choices
// (`model_engine=megatron`) win over the defaults lists.
#include <map>
#include <string>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"

namespace meshplan {

/// `texts` maps a config's path without `.yaml` ("ppo_trainer", "actor/dp_actor") to its YAML.
/// `choices` are command-line group choices ("model_engine" -> "megatron"), also for one package
/// ("actor@actor_rollout_ref.actor" -> "mlite_actor", Hydra's `group@package=option`).
Result<ConfigNode> compose_hydra_config(const std::map<std::string, std::string>& texts, const std::string& primary,
                                        const std::map<std::string, std::string>& choices);

/// Whether a config text has a Hydra defaults list (then it needs composing).
bool has_defaults_list(const std::string& text);

/// Whether `group` names a config group of `texts` (a directory holding configs).
bool is_config_group(const std::map<std::string, std::string>& texts, const std::string& group);

}  // namespace meshplan
