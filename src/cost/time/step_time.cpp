#include "cost/time/step_time.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cost/memory/lora_params.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/offload_time.hpp"
#include "cost/time/rl_step_time.hpp"
#include "model/flops.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {

std::int64_t micro_batches_for(std::int64_t sequences, const Strategy& strategy, int micro_batch) {
  const std::int64_t per_step = static_cast<std::int64_t>(std::max(strategy.dp, 1)) * std::max(micro_batch, 1);
  return std::max<std::int64_t>(1, (sequences + per_step - 1) / per_step);
}

namespace {

// The pipeline's pace against its average rank, per micro-batch: the last rank also runs the
// output layer (and any MTP layers, compute_time.cpp), so it is the slowest unless a layout or
// --decoder-last-pipeline-num-layers gives it fewer decoder layers to make room for them
// (Megatron-LM --pipeline-model-parallel-layout "...tmL", pipeline_split.hpp). `layers_s` is the
// most loaded rank's decoder layers, `head_s` the last rank's output layer; every rank but the
// slowest idles for the difference (the average rank is counted as the most loaded one's layers
// and 1/p of the head, as the callers' compute term counts it).
double pipeline_imbalance_seconds(const ModelSpec& model, const Strategy& strategy, double layers_s, double head_s) {
  const double p = strategy.pp;
  const auto counts = stage_layer_counts(model.num_layers, strategy);
  const double most = static_cast<double>(max_stage_layers(model.num_layers, strategy));
  const double last_share = counts && most > 0 ? static_cast<double>(counts->last) / most : 1.0;
  const double slowest = std::max(layers_s, last_share * layers_s + head_s);
  return slowest - (layers_s + head_s / p);
}

// Where a layout gives the last rank room for the output layer (imbalance below 0), the slowest
// rank is one with the most decoder layers and no head: the average-rank compute term, which
// carries 1/p of the head, is that much longer than the pace the pipeline keeps. The difference
// comes off the compute term, so that the bubble stays fill and drain plus a slower last rank.
double head_off_slowest_stage(double imbalance_s) { return std::min(imbalance_s, 0.0); }

// The micro-batches' worth of sequences a rank computes: m when they fill every micro-batch (a
// valid fixed micro-batch divides the per-rank batch), fewer when the last is partial. verl's
// dynamic batch sizes pack a rank's real tokens into ceil(tokens / max_token_len) balanced
// micro-batches (verl/utils/seqlen_balancing.py rearrange_micro_batches), and a fixed size leaves
// the remainder to a smaller last one (DataProto.split): either way the rank computes its own
// tokens, not m full micro-batches.
double filled_micro_batches(std::int64_t sequences, const Strategy& strategy, int micro_batch) {
  const double per_step = static_cast<double>(std::max(strategy.dp, 1)) * std::max(micro_batch, 1);
  return std::min(static_cast<double>(micro_batches_for(sequences, strategy, micro_batch)),
                  static_cast<double>(sequences) / per_step);
}

}  // namespace

TimeBreakdown training_step_breakdown(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                      std::int64_t seq_len, std::int64_t sequences, int micro_batch,
                                      StepOffload offload, const TimeOptions& options, Trace* trace) {
  const std::int64_t m = micro_batches_for(sequences, strategy, micro_batch);
  const StageCompute stage = stage_compute(model, node, strategy, seq_len, micro_batch, options, trace);
  const MicroBatchComm comm = micro_batch_comm(model, node, strategy, seq_len, micro_batch, stage, options, trace);
  const double p = strategy.pp;
  // Average stage: its layers plus 1/p of the LM head; the rest of the LM head is imbalance,
  // counted with the bubble (the last stage is the slowest).
  const double per_micro_batch = stage.layers_total() + stage.lm_head_s / p;
  const double imbalance = strategy.pp > 1 ? pipeline_imbalance_seconds(model, strategy, stage.layers_total(), stage.lm_head_s)
                                           : 0.0;
  const double slowest = per_micro_batch + imbalance + comm.tp_s + comm.cp_s + comm.ep_s;
  const PipelineTime pipeline =
      pipeline_time(model, node, strategy, seq_len, micro_batch, m, slowest, std::max(imbalance, 0.0), options, trace);
  const double md = static_cast<double>(m);
  // Token-bound terms by the tokens computed; the host's launches, once a micro-batch.
  const double filled = filled_micro_batches(sequences, strategy, micro_batch);
  TimeBreakdown breakdown;
  // The GPU's idle time in host-bound MoE layers is a part of its own (docs/tour/estimate-time.md).
  breakdown.moe_host_wait = md * stage.moe_host_wait_s;
  breakdown.compute = filled * (per_micro_batch + head_off_slowest_stage(imbalance) - stage.moe_host_wait_s) +
                      optimizer_step_seconds(optimizer_params_per_rank(rank_params(model, strategy), strategy) *
                                                 trainable_share(model, strategy.lora),
                                             node, trace);
  breakdown.tp_comm = filled * comm.tp_s;
  breakdown.cp_comm = filled * comm.cp_s;
  breakdown.ep_comm = filled * comm.ep_s;
  // The EP overlap pairs one micro-batch's forward with another's backward; the passes with no
  // partner run alone, their all-to-alls exposed. Without pipelining, the first forward and the
  // last backward (Megatron-core pipeline_parallel/combined_1f1b.py
  // combined_1f1b_schedule_for_no_pipelining): one micro-batch's worth. Interleaved, the first
  // stage's warm-up forwards and cool-down backwards, 2(p-1) + (v-1)p + 1 model chunks each
  // (schedules.py get_pp_rank_microbatches: microbatch_group_size_per_vp_stage = p by default, one
  // more with the overlap), v chunks a micro-batch.
  if (strategy.moe_a2a_overlap) {
    const double v = std::max(strategy.vpp, 1);
    const double unpaired = strategy.pp > 1 ? (2.0 * (p - 1.0) + (v - 1.0) * p + 1.0) / v : 1.0;
    breakdown.ep_comm += std::min(unpaired, md) * comm.ep_hidden_s;
  }
  breakdown.pp_bubble = pipeline.bubble_s;
  breakdown.pp_comm = pipeline.p2p_s;
  breakdown.dp_comm_exposed = dp_comm_exposed_seconds(model, node, strategy, m, stage, options, trace);
  breakdown.offload = offload_seconds(model, node, strategy, m, offload, trace) +
                      md * activation_offload_seconds(model, node, strategy, seq_len, micro_batch, stage, options, trace);
  if (trace) {
    trace->push_back({"time/train_step", breakdown.total(), "seconds",
                      "filled * (stage compute + TP/CP/EP comm) + bubble + p2p + exposed DP + offload + optimizer; "
                      "filled = sequences / (DP x micro_batch), at most m",
                      fmt::format("m={}, filled={:.3g}, micro_batch={}, seq_len={}, sequences={}", m, filled,
                                  micro_batch, seq_len, sequences),
                      "Narayanan et al. 2021 §2-3"});
  }
  return breakdown;
}

TimeBreakdown forward_pass_breakdown(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                     std::int64_t seq_len, std::int64_t sequences, int micro_batch,
                                     const TimeOptions& options, Trace* trace) {
  const std::int64_t m = micro_batches_for(sequences, strategy, micro_batch);
  // Forward only: no recomputation (and no copy of the Strategy, which may allocate).
  StageCompute stage = stage_compute(model, node, strategy, seq_len, micro_batch, options, nullptr);
  stage.recompute_s = 0;
  const MicroBatchComm comm = micro_batch_comm(model, node, strategy, seq_len, micro_batch, stage, options, nullptr);
  const double md = static_cast<double>(m);
  const double filled = filled_micro_batches(sequences, strategy, micro_batch);
  const double p = strategy.pp;
  // Forward shares of a training pass: TP and EP collectives 1 of 2 passes, CP 1 of 3.
  const double comm_s = comm.tp_s / 2.0 + comm.cp_s / 3.0 + comm.ep_forward_s;
  const double imbalance =
      strategy.pp > 1 ? pipeline_imbalance_seconds(model, strategy, stage.layers_forward_s, stage.lm_head_forward_s) : 0.0;
  const double slowest = stage.layers_forward_s + stage.lm_head_forward_s / p + imbalance + comm_s;
  TimeBreakdown breakdown;
  breakdown.moe_host_wait = md * stage.moe_host_wait_forward_s;
  breakdown.compute = filled * (stage.layers_forward_s - stage.moe_host_wait_forward_s + stage.lm_head_forward_s / p +
                                head_off_slowest_stage(imbalance));
  breakdown.tp_comm = filled * comm.tp_s / 2.0;
  breakdown.cp_comm = filled * comm.cp_s / 3.0;
  breakdown.ep_comm = filled * comm.ep_forward_s;
  if (strategy.pp > 1) {
    const PipelineTime pipeline = pipeline_time(model, node, strategy, seq_len, micro_batch, m, slowest,
                                                std::max(imbalance, 0.0), options, nullptr);
    breakdown.pp_bubble = pipeline.bubble_s;
    breakdown.pp_comm = pipeline.p2p_s / 2.0;  // activations only, no gradients
  }
  if (trace) {
    trace->push_back({"time/forward_pass", breakdown.total(), "seconds",
                      "filled * (layers fwd + lm_head fwd/p + fwd share of TP/CP/EP) + bubble + p2p",
                      fmt::format("m={}, filled={:.3g}, micro_batch={}, seq_len={}", m, filled, micro_batch, seq_len),
                      "verl compute_log_prob (forward only, no_grad)"});
  }
  return breakdown;
}

TimeEstimate estimate_time(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                           const Workload& workload, const TimeOptions& options, Trace* trace) {
  TimeEstimate estimate;
  if (cluster.groups.empty()) return estimate;
  const NodeGroup& node = cluster.groups.front();
  const double gpus = std::max(strategy.world_size(), 1);
  const double peak = compute_peak_flops(node.gpu, strategy.compute_dtype);
  if (workload.kind == WorkloadKind::rl) {
    estimate = estimate_rl_step_time(model, node, strategy, workload, options, trace);
  } else {
    TimeBreakdown breakdown = training_step_breakdown(model, node, strategy, workload.seq_len, workload.global_batch,
                                                      strategy.micro_batch, StepOffload::in_step, options, trace);
    const double sequences_per_rank = static_cast<double>(workload.global_batch) / std::max(strategy.dp, 1);
    breakdown.compute += vision_tower_seconds(model, node, strategy, sequences_per_rank,
                                              static_cast<double>(workload.images_per_sample),
                                              static_cast<double>(workload.image_pixels), options, trace);
    estimate.breakdown = breakdown;
    estimate.step_seconds = breakdown.total();
    estimate.add_phase("train", estimate.step_seconds);
    const double tokens = static_cast<double>(workload.global_batch) * static_cast<double>(workload.seq_len);
    if (estimate.step_seconds > 0) {
      estimate.tokens_per_second_per_gpu = tokens / estimate.step_seconds / gpus;
      estimate.model_tflops_per_gpu = trained_flops_per_token(model, strategy, workload.seq_len) * tokens /
                                      estimate.step_seconds / gpus / 1e12;
      estimate.hardware_tflops_per_gpu = hardware_flops_per_token(model, strategy, workload.seq_len) * tokens /
                                         estimate.step_seconds / gpus / 1e12;
    }
  }
  if (estimate.step_seconds > 0) {
    estimate.mfu = peak > 0 ? estimate.model_tflops_per_gpu * 1e12 / peak : 0.0;
    estimate.comm_fraction = estimate.breakdown.communication() / estimate.step_seconds;
  }
  return estimate;
}

}  // namespace meshplan
