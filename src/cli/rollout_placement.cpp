#include "cli/rollout_placement.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>

#include "cli/number_checks.hpp"
#include "hardware/cluster_spec.hpp"

namespace meshplan {

void add_rollout_placement_flags(CLI::App& c, RolloutPlacementFlags& f) {
  c.add_option("--rollout-gpus", f.rollout_gpus,
               "GPUs that run only the rollout engines, whole nodes or the same GPUs of every node; the trainer "
               "gets the rest "
               "(verl one_step_off_policy / fully_async_policy rollout.nnodes x rollout.n_gpus_per_node)")
      ->check(number_between(0.0, 1e6));
  c.add_option("--off-policy-steps", f.off_policy_steps,
               "steps the rollout may run ahead of the trainer on its own GPUs (verl one-step-off: 1; "
               "NeMo RL max_trajectory_age_steps); needs --rollout-gpus")
      ->check(number_between(0.0, 1e6));
  c.add_flag("--in-flight-weight-updates", f.in_flight_weight_updates,
             "off-policy engines keep generating while new weights arrive (NeMo RL "
             "grpo.async_grpo.in_flight_weight_updates); needs --off-policy-steps");
  c.add_option("--weight-broadcast", f.weight_broadcast,
               "how engines on GPUs of their own get new weights: checkpoint-engine (verl's nccl checkpoint engine: "
               "one sender, at the rate verl measured) or pipelined (a broadcast at the link's rate, NeMo RL's "
               "packed broadcast); needs --rollout-gpus (plan: or --rollout-split)")
      ->check(CLI::IsMember({"checkpoint-engine", "pipelined"}));
  c.add_flag("--partial-rollout", f.partial_rollout,
             "a step's generation ends when its batch is ready: the responses still decoding are aborted and "
             "resumed after the weight update, so no step waits for the longest one (verl's V1 trainer, "
             "trainer.v1.trainer_mode=colocate_async or separate_async)");
  c.add_option("--warmup-batches", f.warmup_batches,
               "with --partial-rollout: batches queued for generation beside the one being sampled "
               "(trainer.v1.<mode>.num_warmup_batches, default 1)")
      ->check(number_between(0.0, 64.0));
}

void add_rollout_split_flag(CLI::App& c, RolloutPlacementFlags& f) {
  c.add_flag("--rollout-split", f.split_search,
             "also plan with the rollout engines on whole nodes of their own, one step ahead (verl's one-step-off "
             "trainer), and keep the placement with the shortest step (placements compared in a table)");
}

std::vector<int> rollout_split_candidates(const Cluster& cluster, int most) {
  std::vector<int> gpus = {0};
  if (cluster.groups.size() != 1) return gpus;
  const int per_node = cluster.groups.front().gpus_per_host();  // a Ray node: a host (a rack-scale part's tray)
  const int nodes = cluster.total_gpus() / per_node;
  const int splits = std::min(most, nodes - 1);
  for (int i = 1; i <= splits; ++i) {
    // Evenly spread over 1 .. nodes - 1 engine nodes.
    const int engine_nodes = static_cast<int>(std::lround(double(i) * double(nodes) / double(splits + 1)));
    const int clamped = std::clamp(engine_nodes, 1, nodes - 1);
    if (clamped * per_node != gpus.back()) gpus.push_back(clamped * per_node);
  }
  return gpus;
}

int rollout_gpus_per_shared_host(const Cluster& cluster, int rollout_gpus) {
  if (cluster.groups.size() != 1 || rollout_gpus <= 0) return 0;
  const NodeGroup& group = cluster.groups.front();
  const int per_host = group.gpus_per_host();
  // The same GPUs of every host (verl's one-step-off recipes: 2 of each node's 8 generate, two
  // resource pools on the same nodes), for hosts that are the model's nodes.
  const bool hosts_are_nodes = per_host >= group.gpus_per_node;
  if (rollout_gpus % per_host == 0 || !hosts_are_nodes || rollout_gpus % group.nodes != 0 ||
      rollout_gpus / group.nodes >= per_host) {
    return 0;
  }
  return rollout_gpus / group.nodes;
}

Result<Cluster> trainer_cluster(const Cluster& cluster, const RolloutPlacementFlags& f, bool rl) {
  if (f.in_flight_weight_updates && f.off_policy_steps <= 0) {
    return Error{"", 0, "--in-flight-weight-updates", "needs --off-policy-steps: on-policy engines drain every batch"};
  }
  if (f.off_policy_steps > 0 && (!rl || f.rollout_gpus <= 0)) {
    return Error{"", 0, "--off-policy-steps",
                 "needs --workload rl and --rollout-gpus: generation runs ahead only on engines of their own"};
  }
  if (f.weight_broadcast != "checkpoint-engine" && f.rollout_gpus <= 0 && !f.split_search) {
    return Error{"", 0, "--weight-broadcast",
                 "needs --rollout-gpus or --rollout-split: colocated engines take the weights in place"};
  }
  if (f.partial_rollout && !rl) return Error{"", 0, "--partial-rollout", "applies to --workload rl only"};
  if (f.warmup_batches >= 0 && !f.partial_rollout) {
    return Error{"", 0, "--warmup-batches", "needs --partial-rollout: without it a step generates its own batch only"};
  }
  if (f.rollout_gpus <= 0) return cluster;
  if (!rl) return Error{"", 0, "--rollout-gpus", "applies to --workload rl only"};
  const NodeGroup& group = cluster.groups.front();
  const int per_node = group.gpus_per_host();  // a Ray node: a host (a rack-scale part's tray)
  const int shared = rollout_gpus_per_shared_host(cluster, f.rollout_gpus);
  if (cluster.groups.size() != 1 || f.rollout_gpus >= cluster.total_gpus() ||
      (f.rollout_gpus % per_node != 0 && shared == 0)) {
    return Error{"", 0, "--rollout-gpus",
                 fmt::format("{} is neither whole hosts nor the same GPUs of every host, leaving the trainer some: the "
                             "cluster has {} GPUs, {} per host",
                             f.rollout_gpus, cluster.total_gpus(), per_node)};
  }
  Cluster trainer;
  if (shared > 0) {
    // Every host keeps the trainer's share: nodes x (per host - engines per host).
    NodeGroup part = group;
    part.gpus_per_node = per_node - shared;
    trainer.groups.push_back(part);
    return trainer;
  }
  trainer.groups.push_back(node_group_part(group, cluster.total_gpus() - f.rollout_gpus));
  return trainer;
}

void apply_rollout_placement(const RolloutPlacementFlags& f, RlSettings& rl) {
  rl.rollout_gpus = f.rollout_gpus;
  rl.off_policy_steps = f.off_policy_steps;
  rl.in_flight_weight_updates = f.in_flight_weight_updates;
  rl.standalone_weight_sync = f.weight_broadcast == "pipelined" ? StandaloneWeightSync::link_rate
                                                                : StandaloneWeightSync::verl_checkpoint_engine;
  // Given, it replaces what a launch (plan --from) said; not given, the launch's stands.
  if (f.partial_rollout) {
    rl.partial_rollout = true;
    rl.warmup_batches = f.warmup_batches >= 0 ? f.warmup_batches : 1;
  }
}

}  // namespace meshplan
