#include "cost/time/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace meshplan {
namespace {

// Per-step latencies when the cluster file gives none: NCCL's LL protocol reaches a few
// microseconds per hop over NVLink and ~5-10 µs over InfiniBand (nccl-tests small-message
// rows; NCCL docs "Environment variables", NCCL_PROTO). Order of magnitude only: they matter
// for small messages and very large rings.
constexpr double kIntraNodeLatencySeconds = 3e-6;
constexpr double kInterNodeLatencySeconds = 8e-6;

double transfer_seconds(double bytes, const LinkPath& link) {
  return link.bandwidth_Bps > 0 ? bytes / link.bandwidth_Bps : 0.0;
}

}  // namespace

double ring_all_reduce_seconds(double bytes, int ranks, const LinkPath& link) {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return 2.0 * (n - 1.0) / n * transfer_seconds(bytes, link) + 2.0 * (n - 1.0) * link.latency_s;
}

double ring_all_gather_seconds(double bytes, int ranks, const LinkPath& link) {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return (n - 1.0) / n * transfer_seconds(bytes, link) + (n - 1.0) * link.latency_s;
}

double ring_reduce_scatter_seconds(double bytes, int ranks, const LinkPath& link) {
  return ring_all_gather_seconds(bytes, ranks, link);
}

double tree_all_reduce_seconds(double bytes, int ranks, const LinkPath& link) {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  return 2.0 * transfer_seconds(bytes, link) + 2.0 * std::log2(static_cast<double>(ranks)) * link.latency_s;
}

double all_reduce_seconds(double bytes, int ranks, const LinkPath& link) {
  return std::min(ring_all_reduce_seconds(bytes, ranks, link), tree_all_reduce_seconds(bytes, ranks, link));
}

double all_to_all_seconds(double bytes, int ranks, const LinkPath& link) {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return (n - 1.0) / n * transfer_seconds(bytes, link) + (n - 1.0) * link.latency_s;
}

double p2p_seconds(double bytes, const LinkPath& link) {
  if (bytes <= 0) return 0.0;
  return transfer_seconds(bytes, link) + link.latency_s;
}

double hierarchical_all_reduce_seconds(double bytes, int per_node, int nodes, const LinkPath& intra,
                                       const LinkPath& inter) {
  const double g = std::max(per_node, 1);
  return ring_reduce_scatter_seconds(bytes, per_node, intra) + all_reduce_seconds(bytes / g, nodes, inter) +
         ring_all_gather_seconds(bytes, per_node, intra);
}

GroupSpan group_span(const NodeGroup& node, const GroupPlacement& group) {
  const int per_node = group.stride >= node.gpus_per_node
                           ? 1
                           : std::clamp(node.gpus_per_node / std::max(group.stride, 1), 1, std::max(group.ranks, 1));
  return GroupSpan{per_node, (group.ranks + per_node - 1) / per_node};
}

double group_reduce_scatter_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                    const LinkPath& intra, const LinkPath& inter) {
  const GroupSpan span = group_span(node, group);
  if (span.nodes <= 1) return ring_reduce_scatter_seconds(bytes, group.ranks, intra);
  return ring_reduce_scatter_seconds(bytes, span.per_node, intra) +
         ring_reduce_scatter_seconds(bytes / span.per_node, span.nodes, inter);
}

double group_all_to_all_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                const LinkPath& intra, const LinkPath& inter) {
  const GroupSpan span = group_span(node, group);
  if (span.nodes <= 1) return all_to_all_seconds(bytes, group.ranks, intra);
  if (bytes <= 0) return 0.0;
  const double n = group.ranks;
  const double local_peers = span.per_node - 1.0;
  const double remote_peers = n - span.per_node;
  const double intra_s = local_peers / n * transfer_seconds(bytes, intra) + local_peers * intra.latency_s;
  const double inter_s = remote_peers / n * transfer_seconds(bytes, inter) + remote_peers * inter.latency_s;
  return std::max(intra_s, inter_s);
}

double group_all_reduce_seconds(double bytes, const NodeGroup& node, const GroupPlacement& group,
                                const LinkPath& intra, const LinkPath& inter) {
  const GroupSpan span = group_span(node, group);
  if (span.nodes <= 1) return all_reduce_seconds(bytes, group.ranks, intra);
  return hierarchical_all_reduce_seconds(bytes, span.per_node, span.nodes, intra, inter);
}

LinkPath intra_node_link(const NodeGroup& node, double nvlink_efficiency) {
  // Catalog figures are line rates: NCCL reaches ~77-82% of NVLink (A100 231.6/300 GB/s, H100
  // ring ~370/450 GB/s; ../shared/hardware/gpus.md). Figures from `meshplan calibrate` are
  // achieved bus bandwidths already (bandwidths_measured).
  const double rate = node.intra_node_Bps > 0 ? node.intra_node_Bps : node.gpu.intra_node_Bps;
  return LinkPath{node.bandwidths_measured ? rate : rate * nvlink_efficiency,
                  node.intra_node_latency_s > 0 ? node.intra_node_latency_s : kIntraNodeLatencySeconds};
}

LinkPath inter_node_link(const NodeGroup& node, double nic_efficiency) {
  double rate = node.inter_node_Bps;
  if (rate <= 0) {  // not resolved by the cluster reader: the catalog's one NIC per GPU, shared
    rate = node.gpu.nic_Bps;
    if (node.nics_per_node > 0 && node.gpus_per_node > 0) rate *= static_cast<double>(node.nics_per_node) / node.gpus_per_node;
  }
  return LinkPath{node.bandwidths_measured ? rate : rate * nic_efficiency,
                  node.inter_node_latency_s > 0 ? node.inter_node_latency_s : kInterNodeLatencySeconds};
}

LinkPath group_link(const NodeGroup& node, const GroupPlacement& group, double nvlink_efficiency,
                    double nic_efficiency) {
  const long span = static_cast<long>(group.ranks - 1) * group.stride + 1;
  if (span <= node.gpus_per_node) return intra_node_link(node, nvlink_efficiency);
  return inter_node_link(node, nic_efficiency);
}

}  // namespace meshplan
