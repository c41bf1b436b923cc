#pragma once
// Reading a Cluster: the compact spec "NODESxGPUSxTYPE[+...]" or a YAML/JSON cluster file.
// Bandwidths the input does not set come from the GPU's catalog entry (visible in --json output).
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

/// A node group with every link default taken from its GPU's catalog entry.
NodeGroup make_node_group(int nodes, int gpus_per_node, const GpuSpec& gpu);

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
