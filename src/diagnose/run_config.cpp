#include "diagnose/run_config.hpp"

#include "verl/hydra/verl_base.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

namespace {

std::map<std::string, std::vector<std::string>, std::less<>> sections_by_class(const ConfigNode& root) {
  constexpr std::string_view kTarget = "._target_";
  std::map<std::string, std::vector<std::string>, std::less<>> sections;
  for (const std::string& key : leaf_keys(root)) {
    if (!key.ends_with(kTarget)) continue;
    const ConfigNode* node = find_path(root, key);
    if (node == nullptr || node->kind == NodeKind::map) continue;
    const std::string target = node->to_text();
    sections[target.substr(target.rfind('.') + 1)].push_back(key.substr(0, key.size() - kTarget.size()));
  }
  return sections;
}

}  // namespace

Result<RunConfig> read_run_config(std::string_view text, const std::string& file_name) {
  auto launch = read_verl_launch(text, file_name);
  if (!launch.ok()) return launch.error();
  RunConfig run;
  run.keys = leaf_keys(launch->config);
  for (const std::string& key : run.keys) {
    const ConfigNode* node = find_path(launch->config, key);
    // Values a script leaves unknowable ($(...)) or unset (???) are not the run's values.
    if (node == nullptr || node->kind == NodeKind::unknown || node->kind == NodeKind::missing) continue;
    if (node->kind == NodeKind::map) continue;
    run.values[key] = node->to_text();
  }
  run.choice_fixes = launch->choice_fixes;
  run.sections_by_class = sections_by_class(launch->config);
  run.job = verl_to_strategy(*launch);
  return run;
}

Result<RunConfig> run_config_from_values(const std::map<std::string, std::string, std::less<>>& values,
                                         const std::string& source) {
  std::string script = "python3 -m verl.trainer.main_ppo";
  for (const auto& [key, value] : values) {
    const bool plain = value.find_first_of("'\n{}") == std::string::npos && key.find_first_of("'\n ") == std::string::npos;
    if (plain && !key.starts_with("hydra.")) script += " \\\n    '" + key + "=" + value + "'";
  }
  script += "\n";
  return read_run_config(script, source);
}

ConfigVocabulary verl_base_vocabulary() {
  const auto base = embedded_verl_base(newest_verl_version(), "ppo_trainer", {});
  if (!base.ok()) return {};
  return {leaf_keys(*base), sections_by_class(*base)};
}

}  // namespace meshplan
