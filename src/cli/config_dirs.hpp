#pragma once
// Hydra config directories on disk, for check: a verl tree (--verl-path, --verl-config) and the
// directory a launch's own --config-path names.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

/// Every *.yaml below DIR by its path without the suffix ("ppo_trainer", "actor/dp_actor",
/// "_generated_ppo_trainer"): the Hydra config tree of a verl checkout (verl/trainer/config).
Result<std::map<std::string, std::string>> read_config_dir(const std::string& dir);

/// The directory a launch's --config-path (`written`, as the script has it) names, found from the
/// script's place: an absolute path that exists is taken as is; a relative one is first tried
/// against the entry point's directory (`verl_package`/trainer, as Hydra resolves it); a path
/// with a part the script does not fix ("$(pwd)/configs", "${PROJECT_DIR}/config") or a
/// container's mount ("/verl/spectra/config") is tried by its tail, longest first, against the
/// script's directory and each directory above it up to the repository root. The first that holds
/// *.yaml files wins; none when nothing does.
std::optional<LaunchConfigDirectory> find_launch_config_dir(const std::filesystem::path& script,
                                                            const std::filesystem::path& verl_package,
                                                            const std::string& written);

/// The trainer entry point a launch names when it is not one of verl's (a module such as
/// `recipe.dapo.main_dapo`, or a file path), found against the script's directory and each above
/// it up to the repository root, then `repository` (where a vendored verl is), with its config
/// directory read: the launch's `config_path` (--config-path: relative to the entry point's file,
/// else found as find_launch_config_dir finds it) or, without one, its @hydra.main config_path.
/// None when it is not found, is not a Hydra app with a literal config_path and config_name, or
/// that directory holds no *.yaml.
std::optional<EntryPointConfig> find_entry_point_config(const std::filesystem::path& script,
                                                       const std::filesystem::path& repository,
                                                       const std::filesystem::path& verl_package,
                                                       const std::string& entry, const std::string& config_path);

}  // namespace meshplan
