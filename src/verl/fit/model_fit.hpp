#pragma once
// The findings that need the model (and the GPU): the strategy rules of strategy/validate.hpp
// that depend on the model's shape, mapped back to verl keys, and the memory fit of every RL
// phase from the memory model (cost/memory/memory_estimate.hpp).
#include <optional>
#include <vector>

#include "hardware/cluster.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

/// The preset actor_rollout_ref.model.path stands for (model_preset_for_path: its last component or
/// Hugging Face cache directory, the same-architecture variants of a preset included), if any.
std::optional<ModelSpec> model_from_path(const std::string& model_path);

/// Below this share of the GPU's memory left at the peak, check warns (memory.low-headroom):
/// fragmentation or a long batch may push the phase over.
inline constexpr double kLowHeadroomShare = 0.05;

/// trainer.nnodes x trainer.n_gpus_per_node of `gpu`; a rack-scale part's hosts share their NVLink
/// domain (make_node_group).
Cluster job_cluster(const VerlJob& job, const GpuSpec& gpu);

/// strategy/validate rules that depend on the model (tp.divides-heads, pp.divides-layers, ...).
std::vector<Finding> check_model_shape(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model);

/// strategy/validate rules that depend on the GPU (an FP8 or FP4 recipe the GPU cannot run).
std::vector<Finding> check_gpu_support(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                       const GpuSpec& gpu);

/// Memory per RL phase on `gpu` (nodes and GPUs per node from trainer.*): an error when a phase
/// does not fit, a warning under 5% headroom. Rule ids start with `memory`.
std::vector<Finding> check_memory_fit(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                      const GpuSpec& gpu);

}  // namespace meshplan
