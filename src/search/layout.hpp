#pragma once
// A parallel layout: the part of a strategy that decides how the model is cut across GPUs
// (backend, TP/PP/VPP/CP/EP/ETP/DP, sequence parallel, optimizer sharding, FSDP groups). The
// search enumerates layouts first (cheap rules prune them) and then the per-phase options.
#include <cstdint>
#include <vector>

#include "search/search_space.hpp"

namespace meshplan {

struct Layout {
  int world = 0;
  Backend backend = Backend::megatron;
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1, dp = 1;
  bool sequence_parallel = false;
  bool distributed_optimizer = true;
  int ulysses = 1;
  int fsdp_shard_size = 0;
  /// PP > 1: explicit first/last stage layers (split_given), else the planner's balanced split.
  bool split_given = false;
  int first_stage_layers = 0, last_stage_layers = 0;
  /// Megatron-FSDP (optim_grads_params): weights, gradients and optimizer states sharded over DP.
  bool megatron_fsdp = false;
};

/// Every factorisation of each world size into the space's values, Megatron layouts first.
/// Combinations that do not multiply to the world size are not layouts (nothing to reject);
/// everything else is left to the rules.
std::vector<Layout> enumerate_layouts(const SearchSpace& space);

/// The strategy of a layout with micro-batch 1, no recompute, no offload; the pipeline split is
/// the layout's own or, when it gives none, the balanced one (strategy/pipeline_split.hpp).
Strategy layout_strategy(const Layout& layout, Dtype compute_dtype, std::int64_t num_layers);

/// The search's recompute choice of a strategy (its granularity, method and modules).
RecomputeChoice recompute_choice_of(const Strategy& strategy);

/// Applies a recompute choice; `full_block` recomputes the first half of each model chunk's
/// layers (layers per chunk = num_layers / (pp * vpp)).
void apply_recompute(Strategy& strategy, RecomputeChoice choice, std::int64_t num_layers);

/// The RL settings of one candidate on top of `base` (unchanged for pretraining/SFT). With
/// dynamic batch sizes the token budgets equal the micro-batches times the padded sequence
/// width (verl-rules §0, R64).
Workload with_rl_settings(const Workload& base, bool dynamic_bsz, int micro_batch, int rollout_tp, int rollout_dp,
                          double gmu, int log_prob_micro_batch);

/// Rollout replicas of `rollout_tp` x `rollout_dp` GPUs; with several engines a replica's experts
/// are split over all its GPUs with expert parallelism (rollout.expert_parallel_size = TP x DP,
/// verl RolloutConfig.__post_init__ requires exactly that product).
void set_rollout_layout(RlSettings& rl, int rollout_tp, int rollout_dp);

/// With dynamic batch sizes: explicit token budgets (actor update, log-prob passes) and the
/// micro-batches they hold at the padded width (at least 1).
void set_token_budgets(Workload& workload, Strategy* strategy, std::int64_t ppo_tokens, std::int64_t log_prob_tokens);

}  // namespace meshplan
