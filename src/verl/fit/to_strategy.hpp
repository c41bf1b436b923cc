#pragma once
// The mapping from a resolved verl config to meshplan's Strategy + Workload (the contract the
// cost model, the planner and the strategy rules share). Values a script left unknown fall back
// to verl's defaults; `unknown_key` names the first such value the mapping read, so that no
// verdict or plan is given on a default the launch may not run with.
#include <string>
#include <vector>

#include "strategy/strategy.hpp"
#include "verl/hydra/config_node.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct VerlJob {
  Strategy strategy;
  Workload workload;
  int nnodes = 1;
  int gpus_per_node = 8;
  std::string model_path;  ///< actor_rollout_ref.model.path as written (may hold $VARS)
  /// The launch sets the deprecated global ppo_micro_batch_size / log_prob_micro_batch_size
  /// (a fix must change that key: verl rejects both forms together).
  bool global_ppo_micro_batch = false;
  bool global_log_prob_micro_batch = false;
  /// A size read beyond kLargestEvaluatedInteger ("" when none): the memory fit is not evaluated.
  std::string too_large_key;
  /// The first key read whose value is not known statically ("" when none), e.g. a `case` branch
  /// chosen by `$(python3 -c ...)`, and why ("$rollout_tp is set differently in the branches of
  /// the case at line 68"): the job then holds verl's default for it, not the launch's value.
  std::string unknown_key;
  std::string unknown_reason;
};

/// `trainer`: the one the launch's entry point runs (VerlLaunch::trainer); none, the one the
/// config's keys suggest (a composed one-step-off or fully-async config).
VerlJob verl_to_strategy(const ConfigNode& config, std::optional<VerlTrainer> trainer = std::nullopt);

/// The same for a read launch, with what depends on its verl version and installs beyond the
/// config: whether its vLLM engines run async scheduling (verl/fit/vllm_scheduling.hpp).
VerlJob verl_to_strategy(const VerlLaunch& launch);

}  // namespace meshplan
