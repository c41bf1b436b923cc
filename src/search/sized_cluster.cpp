#include "search/sized_cluster.hpp"

#include <algorithm>

namespace meshplan {

Cluster first_gpus(const Cluster& cluster, int gpus) {
  if (gpus >= cluster.total_gpus()) return cluster;
  Cluster part;
  int left = gpus;
  for (const NodeGroup& group : cluster.groups) {
    if (left <= 0) break;
    NodeGroup used = group;
    if (left < group.gpus_per_node) {
      used.nodes = 1;
      used.gpus_per_node = left;
    } else {
      used.nodes = std::min(group.nodes, left / group.gpus_per_node);
    }
    left -= used.gpus();
    part.groups.push_back(used);
  }
  return part;
}

Cluster with_nodes(const Cluster& cluster, int nodes) {
  Cluster grown = cluster;
  if (!grown.groups.empty()) grown.groups.front().nodes = nodes;
  return grown;
}

}  // namespace meshplan
