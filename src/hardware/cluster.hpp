#pragma once
// A cluster: one or more groups of identical nodes (heterogeneous when more than one).
#include <cstdint>
#include <vector>

#include "hardware/gpu_spec.hpp"

namespace meshplan {

struct NodeGroup {
  int nodes = 1;
  int gpus_per_node = 8;
  GpuSpec gpu;
  double intra_node_Bps = 0;         ///< per GPU per direction (default: gpu.intra_node_Bps)
  double intra_node_latency_s = 0;   ///< per collective step
  double inter_node_Bps = 0;         ///< per GPU per direction (default: gpu.nic_Bps)
  double inter_node_latency_s = 0;
  int nics_per_node = 0;             ///< 0: one per GPU
  std::int64_t host_ram_bytes = 0;   ///< per node; 0 when unknown
  double gemm_flops = 0;             ///< measured large bf16 GEMM FLOP/s per GPU; 0 = unmeasured
  bool bandwidths_measured = false;  ///< intra/inter figures are achieved NCCL bus bandwidths
                                     ///< (meshplan calibrate), not line rates
  /// Hosts of the input packed into each node: a rack-scale part given by its hosts (trays, as
  /// Slurm, Ray and verl's trainer.n_gpus_per_node count them) shares its rack's NVLink domain
  /// (hardware/cluster_spec.hpp make_node_group); 0 when the input named the domain itself.
  int hosts_per_node = 0;

  /// GPUs under one operating system (one host). A node of the time model is an NVLink domain;
  /// above 8 GPUs it is a rack of several hosts (GB200/GB300 NVL72: compute trays of 2
  /// superchips, 4 GPUs each; the catalog's gpus_per_host), else the node itself.
  int gpus_per_host() const {
    return gpu.gpus_per_host > 0 && gpu.gpus_per_host < gpus_per_node ? gpu.gpus_per_host : gpus_per_node;
  }

  int gpus() const { return nodes * gpus_per_node; }
};

struct Cluster {
  std::vector<NodeGroup> groups;

  int total_gpus() const {
    int total = 0;
    for (const NodeGroup& group : groups) total += group.gpus();
    return total;
  }
  bool heterogeneous() const { return groups.size() > 1; }
};

}  // namespace meshplan
