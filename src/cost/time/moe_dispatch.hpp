#pragma once
// One dispatch (or combine) of a MoE layer's tokens to the GPUs of its experts, as each token
// dispatcher moves them (strategy.hpp MoeDispatcher).
#include "cost/time/collectives.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

struct ExpertDispatch {
  double tokens = 0;       ///< tokens this rank routes
  double token_bytes = 0;  ///< bytes of one token's hidden vector
  int experts = 1;         ///< routed experts of the layer, spread evenly over the EP group
  int experts_per_token = 1;
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;
  int sms = 0;  ///< flex: SMs its kernels copy with (0: DeepEP's default 20)
};

/// Chance that a token's `k` experts, drawn without repeats from `experts`, miss all `held` of
/// them (a GPU's or a node's experts): C(experts - held, k) / C(experts, k). Routing taken as
/// uniform, as the balanced (or force-balanced) routing of a trained model is on average.
double expert_miss_probability(int experts, int held, int k);

/// Seconds of one dispatch over the EP group `group`:
/// - alltoall: one row per (token, expert) pair, k rows a token, an all-to-all
///   (group_all_to_all_seconds).
/// - allgather: every rank gathers the group's tokens (`tokens` from each of its ranks) and, in the
///   combine, reduce-scatters them back: a two-level all-gather of ranks x tokens
///   (group_reduce_scatter_seconds; token_dispatcher.py MoEAllGatherTokenDispatcher over tp_ep_group).
/// - flex: a token once to each GPU holding one of its experts; across nodes once to each node
///   holding one (to the GPU of the same local index, which forwards it over NVLink to the
///   others), RDMA and NVLink at once (DeepSeek-V3 report §3.2.2; DeepEP README "normal kernels").
///   Its NVLink copies run on `sms` SMs, at most kFlexBytesPerSecondPerSm each.
double expert_dispatch_seconds(const ExpertDispatch& dispatch, const NodeGroup& node, const GroupPlacement& group,
                               const LinkPath& intra, const LinkPath& inter);

/// Share of the GPU's SMs the dispatcher's kernels hold while they run: the flex dispatcher's
/// `sms` (DeepEP / HybridEP run their copies as persistent kernels on that many SMs, which the
/// compute kernels overlapped with them cannot use: DeepEP README, Buffer.set_num_sms). 0 for the
/// NCCL dispatchers (NCCL picks its channels itself) and where the catalog has no SM count.
double dispatch_sm_share(const ExpertDispatch& dispatch, const GpuSpec& gpu);

}  // namespace meshplan
