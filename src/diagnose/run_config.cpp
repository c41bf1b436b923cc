#include "diagnose/run_config.hpp"

#include "verl/hydra/verl_base.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

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

std::vector<std::string> verl_base_config_keys() {
  const auto base = embedded_verl_base(newest_verl_version(), "ppo_trainer", {});
  return base.ok() ? leaf_keys(*base) : std::vector<std::string>{};
}

}  // namespace meshplan
