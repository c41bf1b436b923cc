#pragma once
// What the emitters turn into launch files: a chosen strategy, its workload and the GPUs it
// runs on. Emitters take these as they are and never re-derive a setting.
#include <string>
#include <vector>

#include "cost/time/time_estimate.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

struct LaunchSpec {
  const ModelSpec& model;
  std::string model_path;       ///< what the launch loads (HF id or directory)
  const Strategy& strategy;
  const Workload& workload;
  const Cluster& cluster;       ///< the GPUs the plan uses (whole nodes)
  int dataloader_workers = 0;   ///< 0: leave verl's default
  TimeOptions time{};           ///< what the time estimate assumed (overlaps): the launch sets it
};

enum class EmitFormat { verl, megatron, env, slurm };

/// verl Hydra overrides (key=value), in the order a person reads them.
std::vector<std::string> verl_overrides(const LaunchSpec& launch);
/// Shell assignments with defaults for the run's own inputs (data files, model path, learning
/// rate, reward, logger) that verl_overrides refers to as "$NAME".
std::string verl_variables(const LaunchSpec& launch);
/// The verl entry point and its config: `verl.trainer.main_ppo` with ppo_trainer /
/// ppo_megatron_trainer, or, with the engines on GPUs of their own one step ahead
/// (RlSettings::rollout_gpus), the one-step-off trainer with its own config.
struct VerlEntry {
  std::string module;
  std::string config_name;
};
VerlEntry verl_entry(const LaunchSpec& launch);
/// A bash script running verl_entry's module with the overrides ("$@" appended).
std::string emit_verl(const LaunchSpec& launch);
/// A bash script: data, tokenizer, checkpoint and optimizer settings as variables, then
/// Megatron-LM `pretrain_gpt.py` under torchrun, one argument per line.
std::string emit_megatron(const LaunchSpec& launch);
/// `export` lines for the topology, each preceded by a comment saying why.
std::string emit_env(const LaunchSpec& launch);
/// An sbatch script: Ray head + workers, then the job (verl) or torchrun on every node (Megatron).
std::string emit_slurm(const LaunchSpec& launch);

std::string emit(const LaunchSpec& launch, EmitFormat format);

}  // namespace meshplan
