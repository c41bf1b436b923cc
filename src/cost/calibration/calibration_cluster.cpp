#include "cost/calibration/calibration_cluster.hpp"

#include "hardware/gpu_catalog.hpp"

namespace meshplan {

Result<GpuSpec> calibration_gpu(const std::string& gpu_type) {
  std::string name = gpu_type.substr(0, gpu_type.find(' '));
  if (name.rfind("DGX-", 0) == 0) name = name.substr(4);  // NVIDIA's systems: DGX-H100, DGX-GB200
  auto gpu = find_gpu(builtin_gpu_catalog(), name);
  if (gpu) return gpu;
  const auto open = gpu_type.find('(');
  if (open == std::string::npos) return gpu;
  const std::string inner = gpu_type.substr(open + 1);
  return find_gpu(builtin_gpu_catalog(), inner.substr(0, inner.find_first_of(" )")));
}

Result<NodeGroup> calibration_nodes(const GpuSpec& gpu, std::int64_t gpus) {
  if (gpus <= 0) return Error{"", 0, "num_gpus", "num_gpus not stated"};
  const std::int64_t nodes = (gpus + gpu.gpus_per_node - 1) / gpu.gpus_per_node;
  if (gpus % nodes != 0) return Error{"", 0, "num_gpus", "GPU count does not split evenly over nodes"};
  return make_node_group(static_cast<int>(nodes), static_cast<int>(gpus / nodes), gpu);
}

}  // namespace meshplan
