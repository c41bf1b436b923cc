#include "cli/hardware_json.hpp"

#include <nlohmann/json.hpp>

#include "hardware/gpu_catalog.hpp"

namespace meshplan {

nlohmann::ordered_json gpu_json(const GpuSpec& gpu) {
  nlohmann::ordered_json measured = nullptr;
  if (gpu.measured_allreduce) {
    const MeasuredAllReduce& m = *gpu.measured_allreduce;
    nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
    for (const BusBandwidthPoint& point : m.sweep) {
      sweep.push_back({{"message_bytes", point.message_bytes}, {"busbw_Bps", point.busbw_Bps}});
    }
    measured = {{"gpus", m.gpus},       {"busbw_Bps", m.busbw_Bps}, {"message_bytes", m.message_bytes},
                {"nvls", m.nvls},       {"ring_busbw_Bps", m.ring_busbw_Bps}, {"sweep", sweep},
                {"source", m.source}};
  }
  return {{"id", gpu.id}, {"name", gpu.name}, {"aliases", gpu.aliases}, {"vendor", gpu.vendor},
          {"arch", gpu.arch}, {"sm_count", gpu.sm_count}, {"memory_bytes", gpu.memory_bytes},
          {"memory_bandwidth_Bps", gpu.memory_bandwidth_Bps}, {"fp32_flops", gpu.fp32_flops},
          {"tf32_flops", gpu.tf32_flops}, {"bf16_flops", gpu.bf16_flops}, {"fp16_flops", gpu.fp16_flops},
          {"fp8_flops", gpu.fp8_flops}, {"fp4_flops", gpu.fp4_flops}, {"matmul_bf16_flops", gpu.matmul_bf16_flops},
          {"matmul_fp8_flops", gpu.matmul_fp8_flops}, {"matmul_share_bf16", gpu.matmul_share_bf16},
          {"matmul_share_fp8", gpu.matmul_share_fp8}, {"intra_node_link", link_kind_name(gpu.intra_node_link)},
          {"nvlink_generation", gpu.nvlink_generation}, {"intra_node_Bps", gpu.intra_node_Bps},
          {"intra_node_pair_Bps", gpu.intra_node_pair_Bps}, {"nvswitch", gpu.nvswitch},
          {"pcie_generation", gpu.pcie_generation}, {"gpus_per_node", gpu.gpus_per_node},
          {"gpus_per_host", gpu.gpus_per_host > 0 ? gpu.gpus_per_host : gpu.gpus_per_node},
          {"nic_Bps", gpu.nic_Bps}, {"host_to_device_Bps", gpu.host_to_device_Bps},
          {"host_memory_Bps", gpu.host_memory_Bps}, {"host_op_time_ratio", gpu.host_op_time_ratio},
          {"measured_allreduce", measured}, {"confidence", gpu.confidence}, {"source", gpu.source},
          {"derived", gpu.derived}, {"corrections", gpu.corrections}};
}

nlohmann::ordered_json cluster_json(const Cluster& cluster) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const NodeGroup& group : cluster.groups) {
    const auto from = [](double value, double catalog) { return value == catalog ? "catalog" : "input"; };
    groups.push_back({{"nodes", group.nodes}, {"gpus_per_node", group.gpus_per_node}, {"gpu", group.gpu.id},
                      {"intra_node_Bps", group.intra_node_Bps},
                      {"intra_node_Bps_from", from(group.intra_node_Bps, group.gpu.intra_node_Bps)},
                      {"inter_node_Bps", group.inter_node_Bps},
                      {"inter_node_Bps_from", from(group.inter_node_Bps, group.gpu.nic_Bps)},
                      {"nics_per_node", group.nics_per_node > 0 ? group.nics_per_node : group.gpus_per_node},
                      {"intra_node_latency_s", group.intra_node_latency_s},
                      {"inter_node_latency_s", group.inter_node_latency_s},
                      {"host_ram_bytes", group.host_ram_bytes}});
  }
  return {{"total_gpus", cluster.total_gpus()}, {"heterogeneous", cluster.heterogeneous()}, {"groups", groups}};
}

}  // namespace meshplan
