#pragma once
// How every subcommand reads --cluster and --gpu-catalog: the CLI reads the files, the core
// (hardware/) parses the text.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"
#include "hardware/gpu_spec.hpp"

namespace meshplan {

/// --cluster: a YAML/JSON file when `arg` names an existing path or ends in .yaml/.yml/.json,
/// otherwise a spec string ("4x8xA100-40GB+..."). Spec errors carry key "--cluster".
Result<Cluster> load_cluster_argument(const std::string& arg, const std::vector<GpuSpec>& catalog);

/// --gpu-catalog: the embedded catalog when empty, else the file (same shape as data/hardware/gpus.json).
Result<std::vector<GpuSpec>> load_gpu_catalog_argument(const std::string& path_or_empty);

}  // namespace meshplan
