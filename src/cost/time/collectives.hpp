#pragma once
// α–β cost models of NCCL collectives (Thakur, Rabenseifner & Gropp 2005, "Optimization of
// Collective Communication Operations in MPICH"; NCCL docs, "Performance" / nccl-tests
// PERFORMANCE.md for the 2(n−1)/n bus-bandwidth factors). Pure arithmetic, no allocation.
#include "hardware/cluster.hpp"

namespace meshplan {

/// One link class as a collective sees it: achievable bandwidth per rank per direction and the
/// latency of one algorithm step.
struct LinkPath {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

/// Ring all-reduce of `bytes` (the buffer each rank holds) over `ranks`:
/// 2(n−1)/n · S/β + 2(n−1)·α. One rank or no data: 0.
double ring_all_reduce_seconds(double bytes, int ranks, const LinkPath& link);
/// Ring all-gather; `bytes` is the gathered (full) buffer: (n−1)/n · S/β + (n−1)·α.
double ring_all_gather_seconds(double bytes, int ranks, const LinkPath& link);
/// Ring reduce-scatter; `bytes` is the full input buffer: same cost as the all-gather.
double ring_reduce_scatter_seconds(double bytes, int ranks, const LinkPath& link);
/// NCCL double binary tree all-reduce: 2·S/β (reduce up + broadcast down, pipelined) +
/// 2·log2(n)·α. Cheaper than the ring at small sizes and many ranks.
double tree_all_reduce_seconds(double bytes, int ranks, const LinkPath& link);
/// The cheaper of ring and tree, as NCCL's tuner picks.
double all_reduce_seconds(double bytes, int ranks, const LinkPath& link);
/// Pairwise all-to-all; `bytes` is what one rank sends in total: (n−1)/n · S/β + (n−1)·α.
double all_to_all_seconds(double bytes, int ranks, const LinkPath& link);
/// Point-to-point send of `bytes`: S/β + α.
double p2p_seconds(double bytes, const LinkPath& link);

/// Two-level all-reduce (NCCL's intra-node reduce-scatter, inter-node all-reduce of 1/g of the
/// data, intra-node all-gather) over `per_node` ranks in each of `nodes` nodes.
double hierarchical_all_reduce_seconds(double bytes, int per_node, int nodes, const LinkPath& intra,
                                       const LinkPath& inter);

/// Where a group of ranks lives: `ranks` members, consecutive members `stride` global ranks
/// apart (Megatron's rank order tp → cp → ep/dp → pp, so the DP stride is tp·cp).
struct GroupPlacement {
  int ranks = 1;
  int stride = 1;
};

/// Members of a group inside one node and the number of nodes it spans.
struct GroupSpan {
  int per_node = 1;
  int nodes = 1;
};
GroupSpan group_span(const NodeGroup& node, const GroupPlacement& group);

/// Reduce-scatter (or all-gather: same cost) of a `bytes` buffer over a group, in two levels
/// when the group has several members in each of several nodes: within the node over NVLink,
/// then 1/g of the data between nodes, each member on its own share of the node's NICs
/// (NCCL runs one ring channel per NIC, so a node's traffic spreads over all of them).
double group_reduce_scatter_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                    const LinkPath& intra, const LinkPath& inter);
/// All-to-all over a group; `bytes` is what one rank sends in total, 1/n to each member. The
/// share for members in its own node goes over NVLink, the rest through the rank's NIC share,
/// both at once (NCCL posts every peer's send and receive together), so the slower sets the time.
double group_all_to_all_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                const LinkPath& intra, const LinkPath& inter);
/// All-reduce over a group, two-level like group_reduce_scatter_seconds.
double group_all_reduce_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                const LinkPath& intra, const LinkPath& inter);

/// The link class a group's collective runs on: the intra-node link when the whole group fits
/// in one node, else the inter-node network (the ring's bottleneck hop).
LinkPath group_link(const NodeGroup& node, const GroupPlacement& group, double nvlink_efficiency,
                    double nic_efficiency);

/// Achievable intra-node and inter-node paths of a node group: the cluster file's figures, or
/// the catalog's line rates times the measured NCCL efficiencies.
LinkPath intra_node_link(const NodeGroup& node, double nvlink_efficiency);
LinkPath inter_node_link(const NodeGroup& node, double nic_efficiency);

}  // namespace meshplan
