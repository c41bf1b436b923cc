#pragma once
// What the emitters turn into launch files: a chosen strategy, its workload and the GPUs it
// runs on. Emitters take these as they are and never re-derive a setting.
#include <string>
#include <vector>

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
};

enum class EmitFormat { verl, megatron, env, slurm };

/// verl Hydra overrides (key=value), in the order a person reads them.
std::vector<std::string> verl_overrides(const LaunchSpec& launch);
/// A bash script running `python3 -m verl.trainer.main_ppo` with the overrides ("$@" appended).
std::string emit_verl(const LaunchSpec& launch);
/// Megatron-LM `pretrain_gpt.py` arguments under torchrun, one per line.
std::string emit_megatron(const LaunchSpec& launch);
/// `export` lines for the topology, each preceded by a comment saying why.
std::string emit_env(const LaunchSpec& launch);
/// An sbatch script: Ray head + workers, then the job (verl) or torchrun on every node (Megatron).
std::string emit_slurm(const LaunchSpec& launch);

std::string emit(const LaunchSpec& launch, EmitFormat format);

}  // namespace meshplan
