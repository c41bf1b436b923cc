#pragma once
// Reading a verl launch end to end: shell script and/or YAML config and/or override lines ->
// Hydra composition over verl's base config (struct mode) -> OmegaConf resolution. The result
// is the config verl's TaskRunner would see, plus every finding met on the way. Also used by
// `diagnose --config`.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"
#include "verl/schema/verl_versions.hpp"
#include "verl/shell/launch.hpp"

namespace meshplan {

struct InputText {
  std::string file_name;
  std::string text;
};

/// A YAML config among the inputs (`x.yaml`, `x.yml`), not a script or override lines.
bool is_yaml_input(const InputText& input);

/// A launch's own --config-path directory, found on disk by the caller.
struct LaunchConfigDirectory {
  std::string path;                           ///< where it was found
  std::map<std::string, std::string> texts;   ///< config name -> YAML text
};

/// A trainer entry point of the launch's own repository (a fork's `recipe.dapo.main_dapo`), found
/// on disk by the caller: its @hydra.main config (hydra_main.hpp) and that config's directory.
struct EntryPointConfig {
  std::string file;                 ///< the entry point's Python file
  std::string config_name;          ///< its @hydra.main config_name
  LaunchConfigDirectory directory;  ///< its @hydra.main config_path, read
  /// The *.py files of its top-level package (`verl_tool/` for verl_tool.trainer.main_ppo; path ->
  /// text), whose registrations it may import (a fork's policy loss, reward manager, agent loop).
  std::map<std::string, std::string> package_sources;
};

struct VerlReadOptions {
  std::optional<std::string> config_name;           ///< --config-name (wins over the script's)
  std::map<std::string, std::string> config_texts;   ///< --verl-config DIR: config name -> YAML text
  bool config_texts_from_verl = false;  ///< config_texts is a verl checkout's tree (--verl-path), not the launch's own
  /// The registry names of that checkout's sources (verl/schema/registry_sources.hpp): kind -> names,
  /// used instead of the embedded version's for the kinds it gives.
  std::map<std::string, std::vector<std::string>> registry_names;
  /// Inference engines the repository ships its own copy of (engine -> its package path, e.g.
  /// "sglang" -> "sglang/python/sglang"): their arguments are that copy's, not a release's.
  std::map<std::string, std::string> vendored_engines;
  /// The argument names read from those copies (ServerArgs / EngineArgs fields), per engine.
  std::map<std::string, std::vector<std::string>> vendored_engine_arguments;
  /// Finds the directory a launch's --config-path names (as written in the script, unknown parts
  /// such as $(pwd) as written), when it is not verl's own; none when it cannot be found. Unset:
  /// such a directory is not read (a launch checked without its files).
  std::function<std::optional<LaunchConfigDirectory>(const std::string& config_path)> find_config_path;
  /// The entry point a launch names when it is not one of verl's trainers (`recipe.dapo.main_dapo`,
  /// `verl/trainer/main_ppo_ood.py`); none when it is not found or has no @hydra.main config.
  /// Unset: such a launch is not checked.
  /// `config_path` is the launch's --config-path ("" when it gives none), which replaces the
  /// decorator's (relative to the entry point's file).
  std::function<std::optional<EntryPointConfig>(const std::string& entry, const std::string& config_path)>
      find_entry_point;
  std::string verl_found_at;  ///< where the CLI found verl_version and config_texts next to the script (no flag given)
  /// --verl-version X, or the verl/version/version file of --verl-path or of a verl found next to
  /// the script; else a `verl==X` pin in the script, else the newest embedded version.
  std::optional<std::string> verl_version;
  std::vector<std::string> set_overrides;            ///< --set key=value, applied last
  std::map<std::string, std::string> environment;    ///< --env VAR=value, set before the script
  int launch_index = 0;  ///< which verl launch of the scripts (in order) to compose: one per branch of an if
};

/// Which verl trainer runs the launch: decided by its entry point (verl.trainer.main_ppo, the
/// one-step-off or the fully-async trainer's module), never by the keys its config holds (a
/// main_ppo launch may add `+rollout.n_gpus_per_node`; a fork's config may carry `async_training`).
enum class VerlTrainer { main_ppo, one_step_off, fully_async };

/// The trainer whose @hydra.main config is `config_name` (one_step_off_ppo_trainer*,
/// fully_async_ppo_trainer*), main_ppo otherwise.
VerlTrainer trainer_of_config(std::string_view config_name);

struct VerlLaunch {
  std::string config_name;          ///< ppo_trainer | ppo_megatron_trainer | a user's config
  /// The trainer the entry point runs; for override lines or YAML alone (no entry point), the one
  /// whose config they compose.
  VerlTrainer trainer = VerlTrainer::main_ppo;
  VerlVersion verl_version;         ///< the verl whose registries the rules consult (and whose config tree, without --verl-config)
  /// The registry names read from the launch's own verl checkout (kind -> names), which the rules
  /// consult before verl_version's (VerlReadOptions::registry_names).
  std::map<std::string, std::vector<std::string>> registry_names;
  std::map<std::string, std::string> vendored_engines;  ///< VerlReadOptions::vendored_engines
  std::map<std::string, std::vector<std::string>> vendored_engine_arguments;  ///< and their arguments
  /// No flag, checkout or pin named the verl: verl_version is the newest embedded, assumed. A
  /// failure some other embedded version would not have is then not certain (a warning).
  bool verl_version_assumed = false;
  /// The version file of a verl older than every embedded one ("0.1", from --verl-path): its own
  /// config tree is composed and verl_version is the oldest embedded, whose rules it may lack.
  std::string older_verl;
  /// The version file of the verl checkout the launch is checked against (--verl-path, or one
  /// next to the script), e.g. "0.7.0.dev"; "" for an embedded version.
  std::string checkout_version;
  /// `vllm==X` installed by the script (its last pin), with the file it is in; none when not pinned.
  std::optional<VersionPin> vllm_pin;
  std::string vllm_pin_file;
  ConfigNode config;                ///< composed and resolved
  std::vector<Finding> findings;    ///< shell.*, hydra.*, config.* findings
  /// Overrides Hydra refuses that a choice of configs fixes, not a spelling: the keys of an engine
  /// the launch does not choose (hydra.engine-keys) and an engine group written as a section's key
  /// (engine_keys.hpp). Dotted key -> the override line that makes the choice.
  std::map<std::string, std::string> choice_fixes;
  std::vector<Launch> megatron;     ///< Megatron-LM launches found in the scripts
  std::map<std::string, ShellArgument> environment;  ///< exported variables at the verl launch
  std::map<std::string, SourceLocation> set_at;      ///< override key -> where it was written
  /// The first argument whose key is not known statically ("'${ACTOR[@]}' at line 9"): it may
  /// set any key, so a key not in set_at keeps its default only if it does not.
  std::optional<std::string> opaque_argument;
  /// Keys that an argument not known statically may set, when it is one of known words (an array
  /// set differently in the branches of an if): key -> that argument.
  std::map<std::string, std::string> maybe_set;
  SourceLocation location;          ///< the verl launch command (or the first input)
  /// The repository's own entry point the launch runs instead of one of verl's trainers: what Hydra
  /// composes is certain, whether its trainer keeps verl's start-up checks is not.
  std::string own_entry_point;
  bool has_verl_launch = false;
  int verl_launch_count = 0;        ///< verl launches in the scripts; read again with launch_index for each
};

/// Reads the inputs in order (YAML configs merge, scripts and override lines apply their
/// overrides; --set last). Errors (exit 2) only for unusable input: unreadable YAML, no
/// launch, a config name that is not available.
Result<VerlLaunch> read_verl_launch(const std::vector<InputText>& inputs, const VerlReadOptions& options);

/// Convenience for one script.
Result<VerlLaunch> read_verl_launch(std::string_view text, const std::string& file_name,
                                    const VerlReadOptions& options = {});

/// Where the launch sets `key` (its override, or the --set line); the launch command when it
/// leaves the key to verl's config.
SourceLocation where_set(const VerlLaunch& launch, std::string_view key);

}  // namespace meshplan
