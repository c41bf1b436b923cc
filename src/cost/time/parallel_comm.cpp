#include "cost/time/parallel_comm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cost/memory/lora_params.hpp"
#include "cost/time/collectives.hpp"
#include "cost/time/moe_dispatch.hpp"
#include "model/mtp_module.hpp"
#include "strategy/moe_dispatcher.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

constexpr double kActivationBytes = 2.0;  // 16-bit activations on the wire
constexpr double kParamBytes = 2.0;       // 16-bit weights gathered for compute

// Megatron DDP bucket (megatron/core/distributed/distributed_data_parallel.py):
// bucket_size = max(40M, 1M × DP size) parameters; the last bucket cannot overlap anything.
double megatron_bucket_params(int dp) { return std::max(40e6, 1e6 * dp); }

// Megatron reduces gradients in fp32 under bf16 (arguments.py: bf16 requires
// accumulate_allreduce_grads_in_fp32) unless grad_reduce_in_fp32 is off, and in 16 bits under
// fp16; FSDP in verl reduces in fp32 (mixed_precision.reduce_dtype).
double grad_reduce_bytes(const Strategy& strategy) {
  if (strategy.compute_dtype == Dtype::fp16) return 2.0;
  return strategy.backend == Backend::megatron ? strategy.megatron_grad_bytes() : 4.0;
}

double recompute_fraction(const StageCompute& compute) {
  return compute.layers_forward_s > 0 ? compute.recompute_s / compute.layers_forward_s : 0.0;
}

}  // namespace

MicroBatchComm micro_batch_comm(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                std::int64_t seq_len, int micro_batch, const StageCompute& compute,
                                const TimeOptions& options, Trace* trace) {
  const EfficiencyConstants& k = options.constants;
  // The slowest stage's layers (L / p when the split is even, strategy/pipeline_split.hpp).
  const double layers = static_cast<double>(max_stage_layers(model.num_layers, strategy));
  const double tokens = static_cast<double>(micro_batch) * static_cast<double>(seq_len) / strategy.cp;
  const double h = static_cast<double>(model.hidden_size);
  // Passes that run the layer's forward collectives: forward, backward, and the recomputed forward.
  const double passes = 2.0 + recompute_fraction(compute);
  MicroBatchComm comm;

  // TP (Shoeybi et al. 2019 §3; formulas.md): 2 all-reduces of tokens·h per layer per pass, or
  // with sequence parallelism 2 reduce-scatter + all-gather pairs: the reduce-scatters sum 16-bit
  // outputs, the all-gathers move the GEMM inputs as the GEMMs read them, quantized under fp8 and
  // NVFP4 (Strategy::quantized_gemm_input_bytes).
  if (strategy.tp > 1) {
    const LinkPath link = group_link(node, {strategy.tp, 1}, k.nvlink_efficiency, k.nic_efficiency);
    const double gather_bytes = strategy.sequence_parallel ? strategy.quantized_gemm_input_bytes() : kActivationBytes;
    const double reduce_scatter = ring_reduce_scatter_seconds(tokens * h * kActivationBytes, strategy.tp, link);
    const double all_gather = ring_all_gather_seconds(tokens * h * gather_bytes, strategy.tp, link);
    const double per_collective = reduce_scatter + all_gather;
    // A single-sublayer layer (Nemotron-H) runs one sublayer's pair of collectives.
    const double sublayers = 2.0 * model.sublayer_share() * layers;
    if (options.tp_comm_overlap) {
      comm.tp_s = sublayers * passes * per_collective * (1.0 - k.tp_overlap_hidden);
    } else if (options.tp_backward_async) {
      // Transformer Engine's backward (v2.10 module/linear.py _Linear.backward, base.py
      // grad_output_preprocess): the row-parallel linear all-gathers its output gradient before
      // its GEMMs (with sequence parallelism; waited on); the column-parallel one re-gathers its
      // input behind its dgrad GEMM and reduce-scatters (all-reduces) its dgrad behind its wgrad
      // GEMM (async_op=True), hidden up to the backward's length.
      const double waited = strategy.sequence_parallel ? all_gather : 0.0;
      const double behind_gemms = sublayers * per_collective;
      comm.tp_s = sublayers * ((passes - 1.0) * per_collective + waited) +
                  std::max(0.0, behind_gemms - compute.layers_backward_s);
    } else {
      comm.tp_s = sublayers * passes * per_collective;
    }
    if (trace) {
      trace->push_back({"time/tp_comm", comm.tp_s, "seconds",
                        "2 collectives * L_stage * (ring_RS(tokens*h*2 B, t) + ring_AG(tokens*h*gather B, t)) per "
                        "forward pass (fwd + recompute), and per backward: with --tp-comm-overlap all x (1 - "
                        "tp_overlap_hidden); else Transformer Engine's: the output gradient's AG waited on, the "
                        "input's AG and the dgrad's RS behind the backward GEMMs; gather B: 2, or the quantized GEMM "
                        "input's with sequence parallelism",
                        fmt::format("t={}, bytes={:.4g}, gather B={:.4g}, link={:.4g} B/s, passes={:.2f}, "
                                    "tp_comm_overlap={}, async backward={}",
                                    strategy.tp, tokens * h * kActivationBytes, gather_bytes, link.bandwidth_Bps,
                                    passes, options.tp_comm_overlap, options.tp_backward_async),
                        "Megatron-LM (Shoeybi 2019 §3, Korthikanti 2022 §4.2.2); Transformer Engine v2.10 "
                        "module/linear.py, layernorm_linear.py, layernorm_mlp.py backward"});
    }
  }
  // CP ring attention (Megatron/TE context parallel): cp−1 exchanges of the local K and V per
  // layer forward, twice that in backward (K, V and their gradients), hidden behind attention.
  if (strategy.cp > 1) {
    const LinkPath link = group_link(node, {strategy.cp, strategy.tp}, k.nvlink_efficiency, k.nic_efficiency);
    const double kv_width = static_cast<double>(model.attention.num_kv_heads * model.attention.head_dim);
    const double bytes = 2.0 * tokens * kv_width * kActivationBytes / strategy.tp;
    // The ring runs in the softmax-attention layers only (a hybrid's other mixers keep no K and V).
    const double attention_layers =
        layers * static_cast<double>(model.num_attention_layers()) / static_cast<double>(model.num_layers);
    const double forward = (strategy.cp - 1) * p2p_seconds(bytes, link) * attention_layers;
    const double exposed_forward = std::max(0.0, forward - compute.attention_forward_s);
    // Mamba-2 layers swap the sequence split for a head split around the conv and the scan
    // (Megatron-core ssm/mamba_context_parallel.py pre_conv_ssm: z, x, B, C and dt all-to-all'd
    // from CP to heads; post_conv_ssm: the output back), on the critical path.
    double mamba_forward = 0;
    if (model.linear_attention && model.linear_attention->kind == LinearAttentionKind::mamba2) {
      const LinearAttentionSpec& mamba = *model.linear_attention;
      const double inner = static_cast<double>(mamba.num_value_heads * mamba.value_head_dim);
      const double width = 3.0 * inner + 2.0 * static_cast<double>(mamba.num_key_heads * mamba.key_head_dim) +
                           static_cast<double>(mamba.num_value_heads);
      const double mamba_layers =
          layers * static_cast<double>(mamba.num_layers) / static_cast<double>(model.num_layers);
      mamba_forward = mamba_layers * all_to_all_seconds(tokens * width * kActivationBytes / strategy.tp,
                                                        strategy.cp, link);
    }
    // forward 1×, backward 2×, recomputed forward once more per recomputed layer.
    comm.cp_s = (exposed_forward + mamba_forward) * (3.0 + recompute_fraction(compute));
    if (trace) {
      trace->push_back({"time/cp_comm", comm.cp_s, "seconds",
                        "((cp-1) * p2p(2*tokens*kv_heads*head_dim*2 B / t) * attention layers_stage, minus attention "
                        "compute; + Mamba layers_stage * all_to_all(tokens*(3 inner + 2 groups*state + heads)*2 B / t)); "
                        "bwd x2",
                        fmt::format("cp={}, bytes/step={:.4g}, attention layers={:.1f}, mamba all-to-alls={:.4g} s",
                                    strategy.cp, bytes, attention_layers, mamba_forward),
                        "Liu et al. 2023 Ring Attention; Megatron context parallel; Megatron-core "
                        "ssm/mamba_context_parallel.py"});
    }
  }
  // EP (Lepikhin et al. 2020 GShard; formulas.md): dispatch + combine all-to-all per MoE layer
  // per pass of the tokens·top-k hidden vectors this rank routes (Megatron-core
  // MoEAlltoAllTokenDispatcher). The EP group's members are ETP ranks apart (expert rank order
  // etp → ep → dp → pp): peers in the node over NVLink, the others through the NIC, at once.
  if (strategy.ep > 1 && model.moe) {
    const MoeSpec& moe = *model.moe;
    // The allgather dispatcher gathers over the expert TP x EP group (consecutive ranks), the others
    // exchange within the EP group, whose members are ETP ranks apart.
    const GroupPlacement group = strategy.moe_dispatcher == MoeDispatcher::allgather
                                     ? GroupPlacement{strategy.ep * strategy.etp, 1}
                                     : GroupPlacement{strategy.ep, strategy.etp};
    const LinkPath intra = intra_node_link(node, k.nvlink_efficiency);
    const LinkPath inter = inter_node_link(node, k.ep_nic_efficiency);
    // A LatentMoE dispatches its latent rows (Megatron-core moe_layer.py: fc1_latent_proj before
    // the dispatch, fc2_latent_proj after the combine).
    const double routed_h = static_cast<double>(model.expert_hidden_size());
    const double bytes = tokens / strategy.tp * moe.experts_per_token * routed_h * kActivationBytes;
    // A trained MTP module's MoE layers dispatch and combine too, at each depth it runs, on the last
    // stage: spread over the stages as its compute is (stage_compute's lm_head_s, step_time.cpp / p).
    const double mtp_moe_layers =
        strategy.train_mtp && model.num_mtp_layers > 0
            ? static_cast<double>(strategy.mtp_depths_run(model.num_mtp_layers) * mtp_module_layers_of(model, 'E')) /
                  strategy.pp
            : 0.0;
    const double moe_layers =
        static_cast<double>(moe.num_moe_layers) * layers / static_cast<double>(model.num_layers) + mtp_moe_layers;
    const ExpertDispatch dispatch{tokens / strategy.tp, routed_h * kActivationBytes, static_cast<int>(moe.num_experts),
                                  static_cast<int>(moe.experts_per_token), strategy.moe_dispatcher,
                                  strategy.moe_dispatcher_sms};
    const double per_pass = 2.0 * moe_layers * expert_dispatch_seconds(dispatch, node, group, intra, inter);
    // Selective recompute of the MoE layer ("moe") dispatches and combines again in the backward;
    // other selective modules run no all-to-all.
    const bool selective = strategy.recompute == Recompute::selective;
    const double ep_passes = selective ? 2.0 + ((strategy.recompute_modules & kRecomputeMoe) ? 1.0 : 0.0) : passes;
    // With a trained router's imbalance the most loaded rank receives `load` times the mean rows,
    // and the layer's all-to-alls end when its rows have arrived (and, in the combine, left).
    const double load = moe_load_factor(model, strategy, options);
    const double total = load * ep_passes * per_pass;
    comm.ep_forward_s = load * per_pass;
    // --overlap-moe-expert-parallel-comm (moe/README.md "EP A2A Overlap"): the combined 1F1B
    // schedule runs one micro-batch's all-to-alls behind another's forward and backward. While
    // they overlap, the flex dispatcher's kernels hold their SMs, so the compute beside them runs
    // on the rest: it takes that share of the overlapped time longer.
    const double sm_share = dispatch_sm_share(dispatch, node.gpu);
    const double overlapped = strategy.moe_a2a_overlap ? std::min(total, compute.layers_total()) : 0.0;
    comm.ep_s = strategy.moe_a2a_overlap ? total - overlapped + sm_share * overlapped : total;
    comm.ep_hidden_s = overlapped * (1.0 - sm_share);
    if (trace) {
      trace->push_back({"time/ep_comm", comm.ep_s, "seconds",
                        "load * 2 dispatches * passes * (moe_layers/p + trained MTP depths' MoE layers / p) * dispatch(tokens/t, k, ep) "
                        "[- overlapped x (1 - dispatcher SMs / SMs) "
                        "if a2a overlap, overlapped = min(total, layers compute)]; "
                        "alltoall: a2a(tokens/t * k * h (LatentMoE: latent) * 2 B); flex: once per GPU hit, across nodes once per node hit",
                        fmt::format("ep={}, dispatcher={}, alltoall bytes={:.4g}, MoE layers={:.4g} (MTP {:.4g}), load={:.3g}, "
                                    "total={:.4g} s, overlap={}, dispatcher SM share={:.3f}, NVLink={:.4g} B/s, NIC={:.4g} B/s "
                                    "(ep_nic_efficiency unless measured)",
                                    strategy.ep, moe_dispatcher_name(strategy.moe_dispatcher), bytes, moe_layers,
                                    mtp_moe_layers, load, total,
                                    strategy.moe_a2a_overlap, sm_share, intra.bandwidth_Bps, inter.bandwidth_Bps),
                        "GShard (Lepikhin et al. 2020); Megatron-core token_dispatcher.py; DeepSeek-V3 report §3.2.2; "
                        "DeepEP README"});
    }
  }
  return comm;
}

PipelineTime pipeline_time(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                           std::int64_t seq_len, int micro_batch, std::int64_t micro_batches,
                           double stage_micro_batch_s, double imbalance_s, const TimeOptions& options, Trace* trace) {
  PipelineTime pipeline;
  if (strategy.pp <= 1) return pipeline;
  const double p = strategy.pp;
  const double m = static_cast<double>(micro_batches);
  // Narayanan et al. 2021 §2.2.1-2.2.2: bubble = (p−1)/v micro-batch slots. The slowest rank (the
  // last, with the LM head, unless its layers make room for it) sets the pace of every slot.
  pipeline.bubble_s = (p - 1.0) / strategy.vpp * stage_micro_batch_s + m * imbalance_s;
  // p2p of the activation (and its gradient) at every virtual-stage boundary, scatter-gathered
  // over the TP ranks (Narayanan 2021 §4.1). Each boundary is one hop of the pipeline's chain of
  // ranks, p - 1 hops, and with interleaving the last rank hands the next model chunk back to the
  // first, p hops around a ring (Megatron-core schedules.py forward_backward_pipelining_with_interleaving).
  // The ranks sit dp_stride GPUs apart (Megatron-core's default order tp-cp-ep-dp-pp), so a group
  // that spans nodes crosses a node boundary on some hops, every hop once its ranks are a node or
  // more apart: the hops' mean sets what a boundary costs.
  const EfficiencyConstants& k = options.constants;
  const int dp_stride = strategy.tp * strategy.cp * strategy.dp;
  const GroupSpan span = group_span(node, {strategy.pp, dp_stride});
  const bool ring = strategy.vpp > 1;
  const double hops = ring ? p : p - 1.0;
  const double crossing = span.nodes > 1 ? std::min(hops, ring ? span.nodes : span.nodes - 1.0) : 0.0;
  const double bytes = static_cast<double>(micro_batch) * static_cast<double>(seq_len) / strategy.cp *
                       static_cast<double>(model.hidden_size) * kActivationBytes / strategy.tp;
  const double hop_s = ((hops - crossing) * p2p_seconds(bytes, intra_node_link(node, k.nvlink_efficiency)) +
                        crossing * p2p_seconds(bytes, inter_node_link(node, k.nic_efficiency))) /
                       hops;
  pipeline.p2p_s = 2.0 * m * strategy.vpp * hop_s;
  if (trace) {
    trace->push_back({"time/pp_bubble", pipeline.bubble_s, "seconds",
                      "(p-1)/v * stage_time_per_micro_batch + m * max(0, slowest rank - average rank)",
                      fmt::format("p={}, v={}, m={}, stage={:.4g} s", strategy.pp, strategy.vpp, micro_batches,
                                  stage_micro_batch_s),
                      "Narayanan et al. 2021 §2.2 (bubble (p-1)/(v*m))"});
    trace->push_back({"time/pp_comm", pipeline.p2p_s, "seconds",
                      "2 * m * v * mean over the hops of p2p(b*s*h*2 B / (cp*t)); hops p - 1, p around the ring "
                      "when interleaved; a hop across a node boundary on the NICs",
                      fmt::format("bytes={:.4g}, hops={:.0f}, across nodes={:.0f}, hop={:.4g} s", bytes, hops, crossing,
                                  hop_s),
                      "Narayanan et al. 2021 §4.1 (scatter/gather)"});
  }
  return pipeline;
}

RankParams rank_params(const ModelSpec& model, const Strategy& strategy) {
  const double routed = static_cast<double>(model.params.routed_experts);
  const double embedding = static_cast<double>(model.params.embedding + model.params.position_embedding);
  const double body = static_cast<double>(model.total_params) - routed - embedding -
                      static_cast<double>(model.params.lm_head);
  RankParams params;
  // First stage: its share of the layers plus the vocab-parallel input embedding; with p = 1
  // it also holds the (untied) LM head.
  params.dense = body / (strategy.tp * strategy.pp) + embedding / strategy.tp;
  if (strategy.pp == 1) params.dense += static_cast<double>(model.params.lm_head) / strategy.tp;
  params.expert = routed / (static_cast<double>(strategy.ep) * strategy.etp * strategy.pp);
  return params;
}

double dp_comm_exposed_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                               std::int64_t micro_batches, const StageCompute& compute,
                               const TimeOptions& options, Trace* trace) {
  const EfficiencyConstants& k = options.constants;
  const RankParams params = rank_params(model, strategy);
  const int dense_ranks = strategy.dp * strategy.cp;
  const int expert_ranks = std::max(1, strategy.world_size() / (strategy.etp * strategy.ep * strategy.pp));
  if (dense_ranks <= 1 && expert_ranks <= 1) return 0.0;
  const GroupPlacement dense_group{dense_ranks, strategy.tp};
  const GroupPlacement expert_group{expert_ranks, strategy.etp * strategy.ep};
  const LinkPath intra = intra_node_link(node, k.nvlink_efficiency);
  const LinkPath inter = inter_node_link(node, k.nic_efficiency);
  const double grad_bytes = grad_reduce_bytes(strategy);
  // With LoRA only the adapters have gradients and optimizer states: the gradient reduction and
  // the distributed optimizer's parameter gather move that share (ZeRO-3 still gathers every weight).
  const double trainable = trainable_share(model, strategy.lora);
  // Megatron's bucketed reduce-scatter / all-gather and DDP all-reduce: two-level NCCL traffic.
  const auto gather = [&](double bytes_per_param) {
    return group_reduce_scatter_seconds(params.dense * bytes_per_param, node, dense_group, intra, inter) +
           group_reduce_scatter_seconds(params.expert * bytes_per_param, node, expert_group, intra, inter);
  };
  const auto reduce = [&](bool scatter) {
    if (scatter) return gather(grad_bytes);  // reduce-scatter costs what the all-gather costs
    return group_all_reduce_seconds(params.dense * grad_bytes, node, dense_group, intra, inter) +
           group_all_reduce_seconds(params.expert * grad_bytes, node, expert_group, intra, inter);
  };
  // DeepSpeed's 2021 ZeRO-3 gathered layer by layer with each rank's share of every gather
  // crossing the group's bottleneck link (flat ring): the ZeRO-3 rows of Narayanan et al. Table 2
  // measure ~16-18 GB/s per GPU, far below a two-level NCCL bound (docs/accuracy.md). FSDP2 and
  // Megatron-FSDP reach the two-level bound (TimeOptions::zero3_bottleneck_gather).
  const LinkPath dense_link = group_link(node, dense_group, k.nvlink_efficiency, k.nic_efficiency);
  const LinkPath expert_link = group_link(node, expert_group, k.nvlink_efficiency, k.nic_efficiency);
  const auto flat_gather = [&](double bytes_per_param) {
    return ring_all_gather_seconds(params.dense * bytes_per_param, dense_ranks, dense_link) +
           ring_all_gather_seconds(params.expert * bytes_per_param, expert_ranks, expert_link);
  };
  // Communication hides behind at most this fraction of a compute window (kernels contend
  // for SMs and memory bandwidth while both run).
  const double overlap = k.overlap_efficiency;
  const double m = static_cast<double>(micro_batches);
  const double forward = compute.layers_forward_s + compute.lm_head_forward_s;
  const double backward = compute.layers_backward_s + compute.recompute_s + compute.lm_head_s - compute.lm_head_forward_s;
  double exposed = 0;
  int hybrid_shard = 0;
  const char* scheme = "";
  if (strategy.zero == ZeroStage::zero3) {
    // ZeRO-3 / FSDP FULL_SHARD: gather the weights before each micro-batch's forward and again
    // for its backward, reduce-scatter the gradients after each backward; prefetching hides
    // them behind that pass's compute (Rajbhandari et al. 2020 §5.3; PyTorch FSDP paper §3.3).
    // verl's fsdp_size (HYBRID_SHARD over a (ddp, fsdp) mesh, fsdp_workers.py create_device_mesh):
    // weights gathered and gradients reduce-scattered inside each shard group, the gradient shards
    // then all-reduced across the groups.
    const int shard = strategy.backend == Backend::fsdp && strategy.fsdp_shard_size > 0 &&
                              strategy.fsdp_shard_size < dense_ranks
                          ? strategy.fsdp_shard_size
                          : 0;
    const double rank_bytes = params.dense + params.expert;
    const auto zero3_gather = [&](double bytes_per_param) {
      if (shard > 0) {
        return group_reduce_scatter_seconds(rank_bytes * bytes_per_param, node, GroupPlacement{shard, strategy.tp},
                                            intra, inter);
      }
      return options.zero3_bottleneck_gather ? flat_gather(bytes_per_param) : gather(bytes_per_param);
    };
    const double replica_reduce =
        shard > 0 ? group_all_reduce_seconds(rank_bytes * grad_bytes / shard, node,
                                             GroupPlacement{dense_ranks / shard, shard * strategy.tp}, intra, inter)
                  : 0.0;
    const double ag = zero3_gather(kParamBytes);
    const double rs = trainable * (zero3_gather(grad_bytes) + replica_reduce);
    hybrid_shard = shard;
    exposed = m * (std::max(0.0, ag - overlap * forward) + std::max(0.0, ag + rs - overlap * backward));
    scheme = options.zero3_bottleneck_gather
                 ? "zero3/fsdp: m * (max(0, AG - k*fwd) + max(0, AG + RS - k*bwd)); AG, RS: a flat ring on the "
                   "slowest link (DeepSpeed 2021)"
                 : "zero3/fsdp: m * (max(0, AG - k*fwd) + max(0, AG + RS - k*bwd)); AG, RS: NVLink, then the "
                   "node's NICs together";
  } else {
    const bool scatter = strategy.backend == Backend::fsdp ? strategy.zero != ZeroStage::none
                                                           : strategy.distributed_optimizer;
    const double grads = trainable * reduce(scatter);
    // Megatron-core fp8_param_gather: the per-tensor FP8 weights gathered in 1 byte (Strategy).
    const double params_gather = scatter ? trainable * gather(strategy.param_gather_bytes()) : 0.0;
    const bool overlap_grads = options.overlap_grad_reduce || strategy.backend == Backend::fsdp;
    if (overlap_grads) {
      // Buckets reduce while the last micro-batch's backward runs; the last bucket is exposed.
      const double last_bucket = grads * std::min(1.0, megatron_bucket_params(strategy.dp) / params.total());
      exposed += std::max(last_bucket, grads - overlap * backward);
    } else {
      exposed += grads;
    }
    const bool overlap_gather = options.overlap_param_gather || strategy.backend == Backend::fsdp;
    exposed += overlap_gather ? std::max(0.0, params_gather - overlap * forward) : params_gather;
    scheme = scatter ? "RS(grads) + AG(params), overlapped with last bwd / first fwd"
                     : "AR(grads), overlapped with last bwd";
  }
  if (trace) {
    trace->push_back({"time/dp_comm_exposed", exposed, "seconds", scheme,
                      fmt::format("params/rank={:.4g} (expert {:.4g}), dp_group={}, hybrid_shard_group={}, grad_bytes={}, "
                                  "param_gather_bytes={}, link={:.4g} B/s",
                                  params.total(), params.expert, dense_ranks, hybrid_shard, grad_bytes,
                                  strategy.param_gather_bytes(), dense_link.bandwidth_Bps),
                      "Megatron distributed optimizer / DDP buckets; ZeRO (Rajbhandari 2020)"});
  }
  return exposed;
}

}  // namespace meshplan
