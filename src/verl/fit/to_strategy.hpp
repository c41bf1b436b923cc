#pragma once
// The mapping from a resolved verl config to meshplan's Strategy + Workload (the contract the
// cost model, the planner and the strategy rules share). Values a script left unknown fall back
// to verl's defaults; `unknown_keys` lists them.
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
};

/// `trainer`: the one the launch's entry point runs (VerlLaunch::trainer); none, the one the
/// config's keys suggest (a composed one-step-off or fully-async config).
VerlJob verl_to_strategy(const ConfigNode& config, std::optional<VerlTrainer> trainer = std::nullopt);

/// The same for a read launch, with what depends on its verl version and installs beyond the
/// config: whether its vLLM engines run async scheduling (verl/fit/vllm_scheduling.hpp).
VerlJob verl_to_strategy(const VerlLaunch& launch);

}  // namespace meshplan
