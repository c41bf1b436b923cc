#pragma once
// The part of a cluster a candidate uses when the planner tries fewer GPUs than it has
// (objective gpus, --min-gpus): the first `gpus` GPUs, whole nodes of the first groups.
#include "hardware/cluster.hpp"

namespace meshplan {

/// `gpus` GPUs taken in order: whole nodes, or part of one node when fewer than a node.
/// Unchanged when `gpus` >= the cluster's total.
Cluster first_gpus(const Cluster& cluster, int gpus);

/// The same GPU groups with `nodes` nodes in the first group (for --min-gpus beyond the cluster).
Cluster with_nodes(const Cluster& cluster, int nodes);

}  // namespace meshplan
