#include "verl/hydra/verl_base.hpp"

#include <mutex>

#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/hydra_compose.hpp"

namespace meshplan {
namespace {

// The embedded texts are compacted (comments dropped), so their line numbers are no one's: the
// base config's values carry no origin, as verl's own defaults.
void clear_origins(ConfigNode& node) {
  node.origin = SourceLocation{};
  for (auto& entry : node.entries) clear_origins(entry.second);
  for (ConfigNode& item : node.items) clear_origins(item);
}

}  // namespace

Result<ConfigNode> load_verl_base(const ConfigTexts& texts, const std::string& name,
                                  const std::map<std::string, std::string>& choices, const std::string& origin,
                                  GeneratedBase generated_base) {
  if (name.empty()) {
    return Error{"", 0, "--config-name",
                 "the launch's --config-name is empty or not known statically (a positional parameter or a variable "
                 "the script leaves unset); "
                 "give --config-name ppo_trainer|ppo_megatron_trainer"};
  }
  const auto generated = texts.find("_generated_" + name);
  const bool generated_first = generated_base == GeneratedBase::first && choices.empty();
  if (generated_first && generated != texts.end()) return config_from_yaml(generated->second, generated->first + ".yaml");
  const auto own = texts.find(name);
  if (own == texts.end()) {
    if (generated != texts.end()) return config_from_yaml(generated->second, generated->first + ".yaml");
    return Error{"", 0, "--config-name", "config '" + name + "' is not in " + origin};
  }
  if (!has_defaults_list(own->second)) return config_from_yaml(own->second, name + ".yaml");
  auto composed = compose_hydra_config(texts, name, choices);
  if (!composed.ok() && choices.empty() && generated != texts.end()) {
    return config_from_yaml(generated->second, generated->first + ".yaml");
  }
  return composed;
}

const ConfigTexts& embedded_config_texts(const VerlVersion& version) {
  static std::mutex mutex;
  static std::map<std::string, ConfigTexts> trees;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = trees.find(version.id);
  if (found == trees.end()) found = trees.emplace(version.id, verl_config_texts(version)).first;
  return found->second;
}

Result<ConfigNode> embedded_verl_base(const VerlVersion& version, const std::string& name,
                                      const std::map<std::string, std::string>& choices) {
  static std::mutex mutex;
  static std::map<std::string, Result<ConfigNode>> composed;
  std::string key = version.id + "\n" + name;
  for (const auto& [group, option] : choices) key += "\n" + group + "=" + option;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = composed.find(key);
    if (found != composed.end()) return found->second;
  }
  auto base = load_verl_base(embedded_config_texts(version), name, choices, "verl " + version.id + "'s config tree",
                             GeneratedBase::first);
  if (base.ok()) clear_origins(base.value());
  const std::lock_guard<std::mutex> lock(mutex);
  return composed.emplace(key, std::move(base)).first->second;
}

}  // namespace meshplan
