#pragma once
// `--rollout-gpus`, `--off-policy-steps`, `--in-flight-weight-updates`, `--weight-broadcast`
// (estimate and plan): the
// rollout engines on GPUs of their own, generating ahead of the trainer (verl recipe
// one_step_off_policy / fully_async_policy, NeMo RL async GRPO). The cost models then see the
// trainer's GPUs as the cluster and the engines' GPUs in RlSettings::rollout_gpus.
// `--partial-rollout`, `--warmup-batches`: how the engines end a step's generation (verl's V1
// colocate_async and separate_async trainers), colocated or not.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"
#include "strategy/strategy.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace meshplan {

struct RolloutPlacementFlags {
  int rollout_gpus = 0;
  int off_policy_steps = 0;
  bool in_flight_weight_updates = false;
  /// --weight-broadcast: checkpoint-engine (verl's nccl checkpoint engine, measured) or pipelined
  /// (a broadcast at the link's rate, NeMo RL's).
  std::string weight_broadcast = "checkpoint-engine";
  bool partial_rollout = false;  ///< --partial-rollout
  int warmup_batches = -1;       ///< --warmup-batches (-1: not given, verl's default 1)
  bool split_search = false;  ///< plan --rollout-split: try colocated and whole-node splits
};

void add_rollout_placement_flags(CLI::App& command, RolloutPlacementFlags& flags);
/// plan's --rollout-split.
void add_rollout_split_flag(CLI::App& command, RolloutPlacementFlags& flags);

/// The engine-GPU counts plan --rollout-split tries: 0 (colocated), then whole-node pools that
/// leave the trainer at least a node, at most `most` of them spread evenly over the node counts.
std::vector<int> rollout_split_candidates(const Cluster& cluster, int most = 6);

/// The GPUs the trainer runs on: the cluster less rollout_gpus (whole nodes, taken from the end, or
/// the same GPUs of every node) when the engines have GPUs of their own, else the whole cluster.
/// Errors name the flag: a combination that needs another flag, a count that is neither or leaves
/// no trainer.
Result<Cluster> trainer_cluster(const Cluster& cluster, const RolloutPlacementFlags& flags, bool rl);

/// Engines on the same GPUs of every host, the trainer on the rest of each (trainer_cluster): how
/// many a host; 0 when they take whole hosts, cannot share them (a rack's trays) or are none.
int rollout_gpus_per_shared_host(const Cluster& cluster, int rollout_gpus);

/// The placement into verl's RL settings.
void apply_rollout_placement(const RolloutPlacementFlags& flags, RlSettings& rl);

}  // namespace meshplan
