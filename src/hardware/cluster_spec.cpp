#include "hardware/cluster_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <string>

#include "core/text.hpp"
#include "core/units.hpp"
#include "hardware/gpu_catalog.hpp"
#include "hardware/yaml_fields.hpp"

namespace meshplan {
namespace {

constexpr double kMaxLinkGBps = 1e5;          // 100 TB/s: anything above is a unit slip
constexpr double kMaxLatencyUs = 1e6;         // one second per step
constexpr double kMaxHostRamGiB = 1 << 20;    // 1 PiB per node
constexpr double kMaxNicGbps = 1e5;
constexpr double kMaxGemmTflops = 1e5;        // 100 PFLOP/s per GPU: anything above is a unit slip
constexpr std::int64_t kMaxTotalGpus = std::int64_t{kMaxNodes} * kMaxGpusPerNode;

const std::vector<std::string> kTopKeys = {"groups"};
const std::vector<std::string> kGroupKeys = {
    "nodes", "gpus_per_node", "gpu", "intra_node_GBps", "intra_node_latency_us", "inter_node_GBps",
    "nic_Gbps", "nics_per_node", "inter_node_latency_us", "host_ram_GiB", "gemm_TFLOPS",
    "bandwidths_measured"};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// A count written in decimal digits within [1, max]; `what` names it in the message.
Result<int> parse_count(std::string_view digits, int max, std::string_view what, std::string_view group) {
  int value = 0;
  const auto [end, code] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || code != std::errc{} || end != digits.data() + digits.size()) {
    return Error{"", 0, "", fmt::format("cluster group '{}': {} '{}' is not a whole number; expected "
                                        "NODESxGPUSxTYPE such as 4x8xA100-40GB", group, what, digits)};
  }
  if (value < 1 || value > max) {
    return Error{"", 0, "", fmt::format("cluster group '{}': {} must be 1..{}, got {}", group, what, max, value)};
  }
  return value;
}

Result<NodeGroup> parse_spec_group(std::string_view group, const std::vector<GpuSpec>& catalog) {
  // The type may itself contain an 'x' (MI300X), so only the first two separators count.
  const std::size_t first = to_lower(group).find('x');
  const std::size_t second = first == std::string_view::npos ? first : to_lower(group).find('x', first + 1);
  if (second == std::string_view::npos) {
    return Error{"", 0, "", fmt::format("cluster group '{}' is not NODESxGPUSxTYPE (e.g. 4x8xA100-40GB)", group)};
  }
  auto nodes = parse_count(group.substr(0, first), kMaxNodes, "node count", group);
  if (!nodes.ok()) return nodes.error();
  auto gpus = parse_count(group.substr(first + 1, second - first - 1), kMaxGpusPerNode, "GPUs per node", group);
  if (!gpus.ok()) return gpus.error();
  auto gpu = find_gpu(catalog, group.substr(second + 1));
  if (!gpu.ok()) return gpu.error();
  return make_node_group(*nodes, *gpus, *gpu);
}

Status check_total(const Cluster& cluster, const Error& where) {
  std::int64_t total = 0;
  for (const NodeGroup& group : cluster.groups) total += std::int64_t{group.nodes} * group.gpus_per_node;
  if (total > kMaxTotalGpus) {
    Error error = where;
    error.message = fmt::format("{} GPUs in total is more than the {} meshplan accepts", total, kMaxTotalGpus);
    return error;
  }
  return Ok{};
}

/// Per-GPU inter-node bandwidth from the file: inter_node_GBps, or nic_Gbps x nics_per_node
/// shared by the node's GPUs, or the catalog's per-GPU NIC figure scaled by nics_per_node.
Result<double> read_inter_node_Bps(const YamlMapReader& reader, const NodeGroup& group, const GpuSpec& gpu) {
  if (reader.has("inter_node_GBps") && reader.has("nic_Gbps")) {
    return reader.error("nic_Gbps", "set either inter_node_GBps (per GPU) or nic_Gbps (per NIC), not both");
  }
  if (reader.has("inter_node_GBps")) {
    double gbps = 0;
    MESHPLAN_READ(gbps, reader.number("inter_node_GBps", 0.001, kMaxLinkGBps));
    return gbps * kGB;
  }
  const int nics = group.nics_per_node > 0 ? group.nics_per_node : group.gpus_per_node;
  if (reader.has("nic_Gbps")) {
    double gbit = 0;
    MESHPLAN_READ(gbit, reader.number("nic_Gbps", 0.001, kMaxNicGbps));
    return gbit * 1e9 / 8.0 * nics / group.gpus_per_node;  // bits -> bytes, shared by the node's GPUs
  }
  return gpu.nic_Bps * nics / group.gpus_per_node;  // the catalog figure is one NIC per GPU
}

Result<NodeGroup> read_file_group(const YAML::Node& node, std::string_view file, std::size_t index,
                                  const std::vector<GpuSpec>& catalog) {
  const YamlMapReader reader(node, std::string(file), fmt::format("groups[{}]", index));
  if (auto keys = reader.check_keys(kGroupKeys); !keys.ok()) return keys.error();
  std::string gpu_name;
  MESHPLAN_READ(gpu_name, reader.text("gpu"));
  auto gpu = find_gpu(catalog, gpu_name);
  if (!gpu.ok()) return reader.error("gpu", gpu.error().message);
  std::int64_t nodes = 0;
  MESHPLAN_READ(nodes, reader.integer("nodes", 1, kMaxNodes));
  std::int64_t gpus_per_node = gpu->gpus_per_node;
  if (reader.has("gpus_per_node")) MESHPLAN_READ(gpus_per_node, reader.integer("gpus_per_node", 1, kMaxGpusPerNode));
  NodeGroup group = make_node_group(static_cast<int>(nodes), static_cast<int>(gpus_per_node), *gpu);
  if (reader.has("intra_node_GBps")) {
    MESHPLAN_READ(group.intra_node_Bps, reader.number("intra_node_GBps", 0.001, kMaxLinkGBps));
    group.intra_node_Bps *= kGB;
  }
  if (reader.has("nics_per_node")) {
    std::int64_t nics = 0;
    MESHPLAN_READ(nics, reader.integer("nics_per_node", 1, kMaxGpusPerNode));
    group.nics_per_node = static_cast<int>(nics) * std::max(group.hosts_per_node, 1);  // per host as written
  }
  MESHPLAN_READ(group.inter_node_Bps, read_inter_node_Bps(reader, group, *gpu));
  const double us = 1e-6;
  if (reader.has("intra_node_latency_us")) {
    MESHPLAN_READ(group.intra_node_latency_s, reader.number("intra_node_latency_us", 0, kMaxLatencyUs));
    group.intra_node_latency_s *= us;
  }
  if (reader.has("inter_node_latency_us")) {
    MESHPLAN_READ(group.inter_node_latency_s, reader.number("inter_node_latency_us", 0, kMaxLatencyUs));
    group.inter_node_latency_s *= us;
  }
  if (reader.has("host_ram_GiB")) {
    double gib = 0;
    MESHPLAN_READ(gib, reader.number("host_ram_GiB", 1, kMaxHostRamGiB));
    group.host_ram_bytes = static_cast<std::int64_t>(gib_to_bytes(gib)) * std::max(group.hosts_per_node, 1);  // per host as written
  }
  if (reader.has("gemm_TFLOPS")) {  // measured large-GEMM throughput (meshplan calibrate)
    MESHPLAN_READ(group.gemm_flops, reader.number("gemm_TFLOPS", 0.001, kMaxGemmTflops));
    group.gemm_flops *= kTFLOPS;
  }
  if (reader.has("bandwidths_measured")) MESHPLAN_READ(group.bandwidths_measured, reader.boolean("bandwidths_measured"));
  return group;
}

Result<Cluster> read_cluster_file(std::string_view text, std::string_view file_name,
                                  const std::vector<GpuSpec>& catalog) {
  YAML::Node root;
  MESHPLAN_READ(root, parse_yaml_text(text, file_name));
  const YamlMapReader top(root, std::string(file_name), "");
  if (auto keys = top.check_keys(kTopKeys); !keys.ok()) return keys.error();
  YAML::Node list;
  MESHPLAN_READ(list, top.value("groups"));
  if (!list.IsSequence() || list.size() == 0) return top.error("groups", "expected a non-empty list of node groups");
  Cluster cluster;
  for (std::size_t i = 0; i < list.size(); ++i) {
    NodeGroup group;
    MESHPLAN_READ(group, read_file_group(list[i], file_name, i, catalog));
    cluster.groups.push_back(std::move(group));
  }
  if (auto total = check_total(cluster, top.error("groups", "")); !total.ok()) return total.error();
  return cluster;
}

/// A rack-scale part (its NVLink domain spans several hosts) counted host by host.
bool is_rack_host(int gpus_per_node, const GpuSpec& gpu) {
  return gpu.gpus_per_host > 0 && gpu.gpus_per_node > gpu.gpus_per_host && gpus_per_node == gpu.gpus_per_host;
}

/// Hosts per NVLink domain when `nodes` hosts of a rack-scale part split evenly into the fewest
/// domains of at most gpu.gpus_per_node GPUs (the largest divisor of `nodes` that fits one); 1
/// when they do not (a prime count above a rack) or are not hosts of such a part.
int rack_hosts_per_domain(int nodes, int gpus_per_node, const GpuSpec& gpu) {
  if (!is_rack_host(gpus_per_node, gpu)) return 1;
  const int hosts_per_rack = gpu.gpus_per_node / gpu.gpus_per_host;
  for (int hosts = std::min(nodes, hosts_per_rack); hosts > 1; --hosts) {
    if (nodes % hosts == 0) return hosts;
  }
  return 1;
}

}  // namespace

NodeGroup make_node_group(int nodes, int gpus_per_node, const GpuSpec& gpu) {
  NodeGroup group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  group.gpu = gpu;
  group.intra_node_Bps = gpu.intra_node_Bps;
  group.inter_node_Bps = gpu.nic_Bps;
  const int hosts_per_domain = rack_hosts_per_domain(nodes, gpus_per_node, gpu);
  if (hosts_per_domain > 1) {
    group.hosts_per_node = hosts_per_domain;
    group.nodes = nodes / hosts_per_domain;
    group.gpus_per_node = gpus_per_node * hosts_per_domain;
  }
  return group;
}

NodeGroup node_group_part(const NodeGroup& group, int gpus) {
  NodeGroup part = group;
  const int per_host = group.gpus_per_host();
  if (per_host >= group.gpus_per_node) {
    part.nodes = std::max(1, gpus / group.gpus_per_node);
    if (gpus < group.gpus_per_node) part.gpus_per_node = gpus;
    return part;
  }
  const int hosts_per_node = group.gpus_per_node / per_host;
  const NodeGroup packed = make_node_group(gpus / per_host, per_host, group.gpu);
  const int hosts = std::max(packed.hosts_per_node, 1);
  part.nodes = packed.nodes;
  part.gpus_per_node = packed.gpus_per_node;
  part.hosts_per_node = packed.hosts_per_node;
  part.host_ram_bytes = group.host_ram_bytes / hosts_per_node * hosts;
  part.nics_per_node = group.nics_per_node / hosts_per_node * hosts;
  return part;
}

std::vector<std::string> cluster_topology_notes(const Cluster& cluster) {
  std::vector<std::string> notes;
  for (const NodeGroup& group : cluster.groups) {
    const GpuSpec& gpu = group.gpu;
    if (group.hosts_per_node > 1) {
      notes.push_back(fmt::format(
          "{} hosts of {} {} GPUs read as {}x{}x{}: {} NVLink domain{} of {} hosts, as the rack's NVLink switches join "
          "its compute trays (up to {} GPUs); to place them otherwise, give NODESxGPUSxTYPE with GPUS the GPUs of one "
          "NVLink domain",
          group.nodes * group.hosts_per_node, gpu.gpus_per_host, gpu.id, group.nodes, group.gpus_per_node, gpu.id,
          group.nodes, group.nodes == 1 ? "" : "s", group.hosts_per_node, gpu.gpus_per_node));
    } else if (is_rack_host(group.gpus_per_node, gpu) && group.nodes > 1) {
      notes.push_back(fmt::format(
          "{} hosts of {} {} GPUs do not split evenly into NVLink domains of at most {} GPUs: each host is taken as a "
          "domain of its own, so traffic between hosts runs at the NIC's rate; write the racks as groups "
          "(e.g. 1x{}x{}+...) to put them on NVLink",
          group.nodes, group.gpus_per_node, gpu.id, gpu.gpus_per_node, gpu.gpus_per_node, gpu.id));
    }
  }
  return notes;
}

Result<Cluster> parse_cluster_spec(std::string_view text, const std::vector<GpuSpec>& catalog) {
  Cluster cluster;
  std::string_view rest = text;
  while (true) {
    const std::size_t plus = rest.find('+');
    const std::string_view group = trim(rest.substr(0, plus));
    if (group.empty()) {
      return Error{"", 0, "", fmt::format("cluster spec '{}' has an empty group; expected NODESxGPUSxTYPE "
                                          "joined by '+', e.g. 2x8xA100-80GB+2x8xV100-32GB", text)};
    }
    auto parsed = parse_spec_group(group, catalog);
    if (!parsed.ok()) return parsed.error();
    cluster.groups.push_back(std::move(parsed).value());
    if (plus == std::string_view::npos) break;
    rest.remove_prefix(plus + 1);
  }
  if (auto total = check_total(cluster, Error{}); !total.ok()) return total.error();
  return cluster;
}

Result<Cluster> parse_cluster_file(std::string_view text, std::string_view file_name,
                                   const std::vector<GpuSpec>& catalog) {
  return guard_yaml_reader(file_name, [&] { return read_cluster_file(text, file_name, catalog); });
}

}  // namespace meshplan
