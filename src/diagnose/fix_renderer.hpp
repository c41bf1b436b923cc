#pragma once
// Fills the placeholders of explanations and fix templates (signature.hpp) from the numbers read
// from the log and the user's config, so that a fix reads "ppo_micro_batch_size_per_gpu=8  # was 16"
// when the config is known and names the knob when it is not.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnosis.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// What is known about the run beyond its log.
struct FixContext {
  /// Resolved config values by dotted key ("actor_rollout_ref.rollout.n" -> "8"), from --config or,
  /// failing that, from the Hydra override list printed in the log.
  std::map<std::string, std::string, std::less<>> config;
  std::string config_source;  ///< the --config file ("" when none)
  /// Every valid config key, for "did you mean" (empty: no suggestion).
  std::vector<std::string> known_keys;
  /// The sections each dataclass fills, by class name (RunConfig::sections_by_class).
  std::map<std::string, std::vector<std::string>, std::less<>> sections_by_class;
  /// Overrides Hydra refuses that a choice of configs fixes (RunConfig::choice_fixes).
  std::map<std::string, std::string> choice_fixes;
  std::optional<ModelSpec> model;  ///< --model
  double gpu_memory_bytes = 0;     ///< --gpu: usable memory of one GPU; 0 when unknown

  /// The roles the run is known to have or lack (its config, or what its log shows); nullopt:
  /// unknown. A fix for a role the run lacks is not offered, nor, when the failed phase is
  /// unknown, one for a role it is not known to have.
  std::optional<bool> has_critic;
  std::optional<bool> has_reference;
  /// The rollout engine runs with vLLM's or SGLang's sleep mode (verl's free_cache_engine, on by
  /// default): fixes that conflict with it (expandable segments) are not offered.
  bool sleep_mode_engine = false;

  /// The run as the cost model sees it (--config with --model and --gpu): predicted peaks.
  struct Job {
    Strategy strategy;
    Workload workload;
    Cluster cluster;
  };
  std::optional<Job> job;
};

/// A number read from the log (not a text field); nullopt when absent.
std::optional<double> number_in(const Numbers& numbers, std::string_view name);

/// A number from the user's config ("16" -> 16); nullopt when absent or not a number.
std::optional<double> config_number(const FixContext& context, std::string_view key);

/// Text with every placeholder filled; nullopt when one of them cannot be filled.
std::optional<std::string> fill_placeholders(std::string_view text, const Numbers& numbers,
                                             std::string_view phase, const FixContext& context);

/// The fix for this event, or nullopt when it does not apply (other phase, the config already has
/// it) or cannot be written (placeholders unknown and no generic form).
std::optional<Fix> render_fix(const FixTemplate& fix, const Numbers& numbers, std::string_view phase,
                              const FixContext& context);

/// "9.28", "8", "0.67": integers without decimals, others with at most two.
std::string format_number(double value);

}  // namespace meshplan
