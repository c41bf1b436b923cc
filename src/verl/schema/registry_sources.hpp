#pragma once
// The names a verl checkout's start-up looks up in its registries, read from its sources (never
// run), for a verl meshplan has not embedded (--verl-path, or one a research repository vendors):
// a fork may add a logger backend, an advantage estimator, a policy loss or a reward manager. The
// patterns are tools/generate_verl_versions.py's, which reads the embedded versions.
#include <map>
#include <string>
#include <vector>

#include "verl/schema/verl_versions.hpp"

namespace meshplan {

/// The files (relative to the verl package directory, "verl/") the names are read from; a path
/// ending in '/' is a directory whose *.py files are read, one ending in '/**/' a directory whose
/// *.py files are read with its subdirectories'.
const std::vector<std::string>& registry_source_paths();

/// kind -> sorted names, from `sources` (path relative to the package -> text): "logger"
/// (utils/tracking.py Tracking.supported_backend), "adv_estimator" (class AdvantageEstimator in
/// trainer/ppo/core_algos.py or ray_trainer.py), "policy_loss" (@register_policy_loss and the
/// actors' `loss_mode == "..."`), "reward_manager" (@register in workers/reward_manager/, or
/// `reward_manager_name == "..."` in trainer/ppo/reward.py), "agent_loop" (@register in
/// experimental/agent_loop/), "checkpoint_engine" (@CheckpointEngineRegistry.register in
/// checkpoint_engine/), "v1_trainer" (@register_trainer in trainer/ppo/v1/), "strategy" (main_ppo's
/// dispatch, the engines' backends, the actor configs' defaults), "rollout_name" (the rollout
/// registries; before them, the workers' _build_rollout branches), "fsdp_lr_scheduler" /
/// "fsdp_warmup_style" (FSDPOptimizerConfig's asserted lists),
/// "eager_free_cache_assert" (the rollouts asserting enforce_eager with free_cache_engine, or
/// "none"), "loss_agg_mode" (ActorConfig's valid_loss_agg_modes in
/// workers/config/actor.py, or ray_trainer.py's list before it), "dataclass_field" and
/// "dataclass_field_str" ("Class.field" of the @dataclass classes of workers/config/,
/// trainer/config/, utils/profiler/ and base_config.py, with their bases' fields: a fork adds
/// fields to PolicyLossConfig). A kind no source gives is left out.
std::map<std::string, std::vector<std::string>> registry_names_from_sources(
    const std::map<std::string, std::string>& sources);

/// The names a fork's own package registers with verl's registry decorators (its entry point's
/// directory, `sources`: file name -> text): kind -> sorted names, for "policy_loss"
/// (register_policy_loss), "adv_estimator" (register_adv_est with a string), "reward_manager" and
/// "agent_loop" (@register, @register_manager, @register_manager_legacy; and the names an entry point
/// dispatches on itself, `reward_manager_name == "x"`) and "rollout_name" (its
/// workers' `rollout.name == "x"` branches). A kind none gives is left out.
std::map<std::string, std::vector<std::string>> registrations_in(const std::map<std::string, std::string>& sources);

/// `names` (a checkout's registries, kind -> names) with what `package_sources` registers added; a
/// kind the checkout did not give starts from `version`'s embedded names.
void add_registrations(std::map<std::string, std::vector<std::string>>& names,
                       const std::map<std::string, std::string>& package_sources, const VerlVersion& version);

/// The fields of the @dataclass `class_name` in a Python source, with those of its bases that the
/// source defines (a vendored engine's ServerArgs or EngineArgs), sorted; empty when it has none.
std::vector<std::string> dataclass_field_names(const std::string& text, const std::string& class_name);

}  // namespace meshplan
