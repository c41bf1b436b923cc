#pragma once
// Heterogeneous clusters (e.g. 2x8xA100-80GB + 2x8xV100-32GB): the options are
//  (a) one group alone, the others idle;
//  (b) one pipeline across the groups, each group holding a number of layers proportional to
//      its speed, capped by what its memory holds;
//  (c) for RL, generation on one group and training on another.
// Each group alone is planned by the ordinary search (real cost models); (b) and (c) are
// derived from those numbers and the split below. A compute dtype every group supports is used
// (V100 has no bf16 -> fp16).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "search/candidate.hpp"

namespace meshplan {

struct GroupShare {
  std::string gpu;
  int gpus = 0;
  double speed_flops = 0;         ///< gpus x dense peak for the common dtype
  std::int64_t max_layers = 0;    ///< what the group's memory holds (model states, see below)
  std::int64_t layers = 0;        ///< assigned pipeline layers
};

/// Layers per group for one pipeline across all groups: layers are handed out one at a time to
/// the group whose stage time (layers + 1) / speed stays lowest, while its memory holds them;
/// this minimises the slowest stage, which paces a pipeline (Narayanan et al. 2021 §2.2).
/// A group's memory holds floor(gpus x memory x (1 - headroom) / (16 x params per layer)) layers:
/// mixed-precision Adam keeps 16 bytes per parameter (ZeRO, Rajbhandari et al. 2020 §3.1),
/// sharded over the group's GPUs. Empty when the groups together cannot hold the model.
std::vector<GroupShare> split_layers(const ModelSpec& model, const Cluster& cluster, Dtype dtype, double headroom);

/// Relative step time of a split: the slowest stage, max(layers / speed).
double split_stage_seconds(const std::vector<GroupShare>& shares);

struct HeterogeneousPlan {
  Dtype compute_dtype = Dtype::bf16;
  std::vector<std::optional<PlanCandidate>> alone;  ///< best plan of each group by itself
  int best_alone = -1;                              ///< index into alone, -1 when none fits
  std::vector<GroupShare> pipeline;                 ///< (b); empty when it does not fit
  double pipeline_step_seconds = 0;                 ///< (b) scaled from the best single group
  int rollout_group = -1, train_group = -1;         ///< (c) when better than (a) and (b)
  double pool_split_step_seconds = 0;
  std::string choice;                               ///< "alone", "pipeline" or "pool_split"
  double gain_over_alone = 0;                       ///< chosen vs best single group, (t_alone / t) - 1
  std::vector<std::string> explanation;
};

/// The chosen cross-group pipeline as one Megatron strategy, when Megatron can express it: one
/// pipeline stage per group (at most 3 groups: first, middle and last stage; Megatron-core gives
/// only the first and last stages their own layer counts), equal GPUs per group, and the best
/// single group's plan unpipelined (its TP/CP/EP and batch settings are kept; DP fills the
/// group). Stage k runs on group k. nullopt otherwise, or when the pipeline was not chosen.
std::optional<Strategy> cross_group_pipeline(const HeterogeneousPlan& plan, const Cluster& cluster,
                                             const ModelSpec& model);

/// `best_on(i)` plans group i alone with the common dtype (nullopt: nothing fits there).
HeterogeneousPlan plan_heterogeneous(const ModelSpec& model, const Cluster& cluster, const Workload& workload,
                                     double headroom,
                                     const std::function<std::optional<PlanCandidate>(std::size_t)>& best_on);

}  // namespace meshplan
