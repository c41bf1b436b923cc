#include "cost/time/moe_dispatch.hpp"

#include <algorithm>

namespace meshplan {
namespace {

// What one SM of a flex dispatcher's kernel copies over NVLink: DeepEP's intranode normal kernels
// on 8 x H100 with 20 SMs (10 channels), 4096 tokens of 7168, reach 329 GB/s dispatching and
// 287 GB/s combining (tile-ai/TileScale examples/deepep README), 15.4 GB/s per SM on average.
// Taken for every GPU: the copy is issued per SM, at about the same clock on Hopper and Blackwell.
constexpr double kFlexBytesPerSecondPerSm = 15.4e9;
// DeepEP's Buffer.num_sms default (Megatron-core transformer_config.py: "historical default 20").
constexpr int kDefaultFlexSms = 20;

int flex_sms(const ExpertDispatch& dispatch) { return dispatch.sms > 0 ? dispatch.sms : kDefaultFlexSms; }

}  // namespace

double dispatch_sm_share(const ExpertDispatch& dispatch, const GpuSpec& gpu) {
  if (dispatch.dispatcher != MoeDispatcher::flex || gpu.sm_count <= 0) return 0.0;
  return std::min(1.0, static_cast<double>(flex_sms(dispatch)) / gpu.sm_count);
}

double expert_miss_probability(int experts, int held, int k) {
  if (held <= 0) return 1.0;
  if (experts - held < k) return 0.0;
  double miss = 1.0;
  for (int i = 0; i < k; ++i) miss *= static_cast<double>(experts - held - i) / (experts - i);
  return miss;
}

double expert_dispatch_seconds(const ExpertDispatch& dispatch, const NodeGroup& node, const GroupPlacement& group,
                               const LinkPath& intra, const LinkPath& inter) {
  const double token_bytes = dispatch.tokens * dispatch.token_bytes;
  const int k = dispatch.experts_per_token;
  if (dispatch.dispatcher == MoeDispatcher::alltoall) {
    return group_all_to_all_seconds(token_bytes * k, node, group, intra, inter);
  }
  if (dispatch.dispatcher == MoeDispatcher::allgather) {
    return group_reduce_scatter_seconds(token_bytes * group.ranks, node, group, intra, inter);
  }
  if (group.ranks <= 1 || token_bytes <= 0) return 0.0;
  const int sms = flex_sms(dispatch);
  const double nvlink_Bps = std::min(intra.bandwidth_Bps, sms * kFlexBytesPerSecondPerSm);
  const GroupSpan span = group_span(node, group);
  const int per_gpu = std::max(dispatch.experts / group.ranks, 1);
  const double gpu_hit = 1.0 - expert_miss_probability(dispatch.experts, per_gpu, k);
  const double local_peers = span.per_node - 1.0;
  const double local_bytes = local_peers * gpu_hit * token_bytes;
  if (span.nodes <= 1) {
    return (nvlink_Bps > 0 ? local_bytes / nvlink_Bps : 0.0) + local_peers * intra.latency_s;
  }
  // Across nodes: once per remote node hit, through the rank's NIC; what arrives is forwarded over
  // NVLink to the node's other GPUs hit, given the node is hit ((p - 1) x gpu_hit / node_hit).
  const double node_hit = 1.0 - expert_miss_probability(dispatch.experts, per_gpu * span.per_node, k);
  const double remote_nodes = span.nodes - 1.0;
  const double rdma_bytes = remote_nodes * node_hit * token_bytes;
  const double forwarded_bytes = node_hit > 0 ? rdma_bytes * local_peers * gpu_hit / node_hit : 0.0;
  const double inter_s = (inter.bandwidth_Bps > 0 ? rdma_bytes / inter.bandwidth_Bps : 0.0) + remote_nodes * inter.latency_s;
  const double intra_s = (nvlink_Bps > 0 ? (local_bytes + forwarded_bytes) / nvlink_Bps : 0.0) +
                         local_peers * intra.latency_s;
  return std::max(intra_s, inter_s);
}

}  // namespace meshplan
