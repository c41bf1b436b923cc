#pragma once
// The GPUs of a published run: its GPU type as the source names it, and its GPUs as nodes.
#include <cstdint>
#include <string>

#include "core/result.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_spec.hpp"

namespace meshplan {

/// "DGX-H100", "H100 (DGX H100 cluster)", "A100-SXM4-80GB (Selene)", "GB200-NVL72",
/// "DGX-B200 (B200 SXM)": the name before the first space without a "DGX-" prefix, else the
/// part in brackets, looked up in the built-in catalog.
Result<GpuSpec> calibration_gpu(const std::string& gpu_type);

/// `gpus` as nodes of the GPU's server, or of its NVLink domain (NVL72); fewer GPUs per node when
/// the count does not fill them (128 GB200 = 2 racks of 64). An error when they do not split evenly.
Result<NodeGroup> calibration_nodes(const GpuSpec& gpu, std::int64_t gpus);

}  // namespace meshplan
