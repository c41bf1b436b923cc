#pragma once
// verl's base config for a launch, from a config tree (a user's checkout or an embedded verl
// version): verl's fully composed `_generated_<name>.yaml` when the tree has one and no group is
// chosen on the command line, else `<name>.yaml` composed through its defaults lists. A checkout
// composes first: forks edit ppo_trainer.yaml or its groups and leave _generated_ stale (verl's
// own CI regenerates it, scripts/generate_trainer_config.sh; a fork's rarely does).
#include <map>
#include <string>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {

using ConfigTexts = std::map<std::string, std::string>;

/// Whether verl's `_generated_<name>.yaml` is read before composing `<name>.yaml` (an embedded,
/// released tree) or only when composing fails (a checkout that may have been edited).
enum class GeneratedBase { first, fallback };

/// From a config tree (config path without ".yaml" -> YAML text); `origin` names the tree in errors.
Result<ConfigNode> load_verl_base(const ConfigTexts& texts, const std::string& name,
                                  const std::map<std::string, std::string>& choices, const std::string& origin,
                                  GeneratedBase generated_base);

/// From an embedded verl version; composed once per (version, name, choices) and process.
Result<ConfigNode> embedded_verl_base(const VerlVersion& version, const std::string& name,
                                      const std::map<std::string, std::string>& choices);

/// The embedded config tree of `version`, parsed once per process.
const ConfigTexts& embedded_config_texts(const VerlVersion& version);

}  // namespace meshplan
