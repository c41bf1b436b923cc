#include "report/cluster_table.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "hardware/cluster_spec.hpp"
#include "report/table.hpp"

namespace meshplan {
namespace {

std::string rate(double Bps, double catalog_Bps) {
  return fmt::format("{:.1f}{}", Bps / kGB, Bps == catalog_Bps ? " (catalog)" : "");
}

std::string latency(double seconds) { return seconds == 0 ? "-" : fmt::format("{:g}", seconds * 1e6); }

}  // namespace

std::string render_cluster(const Cluster& cluster) {
  const std::vector<TableColumn> columns = {
      {"group", Align::left},       {"GPU", Align::left},          {"intra GB/s", Align::right},
      {"inter GB/s", Align::right}, {"NICs/node", Align::right},   {"intra us", Align::right},
      {"inter us", Align::right},   {"host RAM GiB", Align::right}};
  std::vector<std::vector<std::string>> rows;
  for (const NodeGroup& group : cluster.groups) {
    rows.push_back({fmt::format("{}x{}", group.nodes, group.gpus_per_node), group.gpu.id,
                    rate(group.intra_node_Bps, group.gpu.intra_node_Bps),
                    rate(group.inter_node_Bps, group.gpu.nic_Bps),
                    std::to_string(group.nics_per_node > 0 ? group.nics_per_node : group.gpus_per_node),
                    latency(group.intra_node_latency_s), latency(group.inter_node_latency_s),
                    group.host_ram_bytes == 0 ? "-" : fmt::format("{:g}", bytes_to_gib(static_cast<double>(group.host_ram_bytes)))});
  }
  std::string text = render_table(columns, rows) +
                     fmt::format("\n{} GPUs in {} group{}. Bandwidths per GPU, per direction (1 GB = 1e9 B); "
                                 "latency - = not set (the cost model's default).\n",
                                 cluster.total_gpus(), cluster.groups.size(), cluster.groups.size() == 1 ? "" : "s");
  for (const std::string& note : cluster_topology_notes(cluster)) text += "cluster: " + note + "\n";
  return text;
}

}  // namespace meshplan
