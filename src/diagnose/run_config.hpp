#pragma once
// `diagnose --config`: the run's launch script or YAML read through check's verl reader
// (verl/verl_launch.hpp), turned into what the fixes need: the resolved values by dotted key, the
// valid keys (for "did you mean"), and the job as the cost model sees it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "verl/fit/to_strategy.hpp"

namespace meshplan {

struct RunConfig {
  std::map<std::string, std::string, std::less<>> values;  ///< "actor_rollout_ref.rollout.n" -> "8"
  std::vector<std::string> keys;                           ///< every key of the composed config
  /// The fix check offers for an override Hydra refuses when it is a choice of configs, not a
  /// spelling (VerlLaunch::choice_fixes): the training engine its keys need, the top-level choice
  /// of a group written as a section's key. Dotted key -> override line.
  std::map<std::string, std::string> choice_fixes;
  /// The sections a dataclass fills, by its class name: "HFModelConfig" -> {"actor_rollout_ref.model"}
  /// (each section's `_target_`), so a key a dataclass refuses can be placed in the config.
  std::map<std::string, std::vector<std::string>, std::less<>> sections_by_class;
  VerlJob job;
};

/// Reads one launch script or YAML config; an Error when it is unusable (check's exit-2 cases).
Result<RunConfig> read_run_config(std::string_view text, const std::string& file_name);

/// The run's config from the values its log printed (verl's resolved config, or the Hydra override
/// list of a failed start), composed as check composes a launch with those overrides: verl's
/// defaults fill what the log did not print. Values a shell word cannot carry are left out.
Result<RunConfig> run_config_from_values(const std::map<std::string, std::string, std::less<>>& values,
                                         const std::string& source);

/// What "did you mean" needs of verl's embedded base config (ppo_trainer) when no --config is given:
/// its keys and the sections each dataclass fills, from one composition.
struct ConfigVocabulary {
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::string>, std::less<>> sections_by_class;
};
ConfigVocabulary verl_base_vocabulary();

}  // namespace meshplan
