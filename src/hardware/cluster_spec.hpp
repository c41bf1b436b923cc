#pragma once
// Reading a Cluster: the compact spec "NODESxGPUSxTYPE[+...]" or a YAML/JSON cluster file.
// Bandwidths the input does not set come from the GPU's catalog entry (visible in --json output).
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"
#include "hardware/gpu_spec.hpp"

namespace meshplan {

// Sanity bounds on counts (a larger value is a typo, not a cluster).
// The largest NVLink domain sold as one "node": GB200/GB300 NVL72 (72 GPUs on NVLink switches).
inline constexpr int kMaxGpusPerNode = 72;
inline constexpr int kMaxNodes = 100000;

/// A node group with every link default taken from its GPU's catalog entry. A rack-scale part
/// (the catalog's gpus_per_host below its gpus_per_node: GB200/GB300 NVL72, whose NVLink switches
/// join the rack's 4-GPU compute trays) given host by host (16x4xGB200-NVL72, trainer.nnodes=16
/// n_gpus_per_node=4) is packed into NVLink domains: the hosts split evenly into the fewest domains
/// of at most gpus_per_node GPUs (16 trays: one domain of 64; 32: two of 64, NeMo RL's
/// 2x64xGB200-NVL72). Hosts that split no such way (a prime count above a rack) stay as written.
NodeGroup make_node_group(int nodes, int gpus_per_node, const GpuSpec& gpu);

/// `gpus` GPUs of `group`, a whole number of its hosts (NodeGroup::gpus_per_host): a rack-scale
/// part's hosts packed into NVLink domains as make_node_group packs them, the per-node figures
/// that count hosts (host RAM, NICs) following the hosts; else whole nodes, or part of one.
NodeGroup node_group_part(const NodeGroup& group, int gpus);

/// One line per group whose hosts were packed into NVLink domains, or that a rack-scale part's
/// hosts could not be packed: how the input was read and how to write it otherwise.
std::vector<std::string> cluster_topology_notes(const Cluster& cluster);

/// "4x8xA100-40GB" or "2x8xA100-80GB+2x8xV100-32GB". Errors have an empty file and the
/// offending group in the message; the CLI names the flag.
Result<Cluster> parse_cluster_spec(std::string_view text, const std::vector<GpuSpec>& catalog);

/// A YAML or JSON cluster file (schema in docs/tour/gpus.md):
///   groups:
///     - {nodes: 2, gpus_per_node: 8, gpu: A100-80GB, inter_node_GBps: 25, host_ram_GiB: 1024}
/// Unknown keys are errors with "did you mean"; errors name file, line and key.
Result<Cluster> parse_cluster_file(std::string_view text, std::string_view file_name,
                                   const std::vector<GpuSpec>& catalog);

}  // namespace meshplan
