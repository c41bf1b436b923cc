#pragma once
// Finds trainer launches among a script's invocations: `python3 -m verl.trainer.main_ppo`,
// `.../verl/trainer/main_ppo.py`, the one-step-off trainer (`verl.experimental.one_step_off_policy.main_ppo`,
// `recipe.one_step_off_policy.main_ppo` before v0.8), the fully-async trainer
// (`verl.experimental.fully_async_policy.fully_async_main`, `recipe.fully_async_policy.fully_async_main`
// in v0.6.1 / v0.7.0), `torchrun [opts] -m ...`, `ray job submit
// ... -- ...`, with `nohup`/`exec`/`env` prefixes; and Megatron-LM `pretrain_*.py` launches.
#include <optional>
#include <string>
#include <vector>

#include "verl/shell/shell_script.hpp"

namespace meshplan {

enum class LaunchKind { verl_ppo, megatron, other_trainer };

struct Launch {
  LaunchKind kind = LaunchKind::verl_ppo;
  std::string entry;                      ///< module or script, e.g. verl.trainer.main_ppo
  /// The entry point's @hydra.main config_name: ppo_trainer (main_ppo), one_step_off_ppo_trainer or
  /// fully_async_ppo_trainer.
  std::string default_config = "ppo_trainer";
  std::optional<std::string> config_name; ///< --config-name / -cn
  std::optional<std::string> config_path; ///< --config-path / -cp
  std::vector<ShellArgument> arguments;   ///< overrides (verl) or flags (Megatron), in order
  std::map<std::string, ShellArgument> environment;
  SourceLocation location;
  bool uses_script_arguments = false;
};

/// Every launch in the script, in order (usually one).
std::vector<Launch> find_launches(const ShellScript& script);

/// A launch read from plain override lines (a file of `key=value` lines, or --set flags).
Launch launch_from_override_lines(const std::vector<ShellArgument>& lines);

}  // namespace meshplan
