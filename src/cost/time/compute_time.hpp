#pragma once
// Compute time of one micro-batch on one pipeline rank: FLOPs from model/flops.hpp divided by
// the dtype's peak × the achieved GEMM efficiency (cost/time/efficiency.hpp), plus the memory-bound
// kernels, plus recomputation.
#include <cstdint>

#include "cost/time/efficiency.hpp"
#include "cost/time/time_estimate.hpp"
#include "cost/trace.hpp"
#include "hardware/cluster.hpp"
#include "model/flops.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// Seconds for one micro-batch on one pipeline rank (all of its virtual chunks).
struct StageCompute {
  double layers_forward_s = 0;     ///< the rank's L/p decoder layers, forward
  double layers_backward_s = 0;    ///< their backward (2× forward: data and weight gradients)
  double recompute_s = 0;          ///< forward work redone in backward (selective / full)
  double attention_forward_s = 0;  ///< score part of layers_forward_s (hides the CP ring exchange)
  /// The GPU's idle time while the host launches the MoE layers, inside layers_forward_s and (in
  /// all) inside layers_total(): the backward waits twice as long, a recomputed forward again.
  double moe_host_wait_forward_s = 0;
  double moe_host_wait_s = 0;
  double lm_head_s = 0;            ///< output layer + cross-entropy, forward and backward (last stage)
  double lm_head_forward_s = 0;    ///< its forward part

  double layers_total() const { return layers_forward_s + layers_backward_s + recompute_s; }
};

/// Per-micro-batch compute of a training pass (forward + backward + recomputation).
StageCompute stage_compute(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                           std::int64_t seq_len, int micro_batch, const TimeOptions& options, Trace* trace);

/// Forward + backward of the vision tower for `sequences` samples of `images` images of `pixels`
/// pixels each on one rank (the tower runs on the first stage, split over TP). 0 for text models.
double vision_tower_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                            double sequences, double images, double pixels, const TimeOptions& options,
                            Trace* trace);

/// Seconds of the optimizer step on one rank: Adam is memory-bound (reads and writes the fp32
/// master weights, both moments and the gradient, writes the 16-bit weights).
/// `optimizer_params`: the parameters whose states the rank updates (optimizer_params_per_rank).
double optimizer_step_seconds(double optimizer_params, const NodeGroup& node, Trace* trace);

/// The routed tokens of the most loaded EP rank over the mean, which every MoE layer waits for:
/// with TimeOptions::moe_dropless_imbalance 1 + moe_expert_load_cv x sqrt(2 ln EP / (E/EP));
/// 1 for balanced routing, at EP 1 or for a dense model.
double moe_load_factor(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options);

/// Forward FLOPs of one token through the trained MTP depths (0 without --mtp): each depth's own
/// layers (mtp_module_model), its eh_proj and its pass through the output layer.
double mtp_forward_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len);
/// Model FLOPs of one trained token: 3 x forward (the trained MTP depths' included, as Megatron-LM
/// counts them), less the frozen weights' weight gradients with LoRA (what the MFU counts).
double trained_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len);
/// Training FLOPs per token with the recomputation the strategy does (hardware FLOPs):
/// trained_flops_per_token + the recomputed forward of the decoder layers (not the LM head,
/// as in Narayanan et al. 2021 Eq. 3).
double hardware_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len);

/// Dense peak FLOP/s of the strategy's compute dtype (fp16 when bf16 is unsupported).
double compute_peak_flops(const GpuSpec& gpu, Dtype dtype);

/// The shape of a layer's dense GEMMs (attention projections, dense MLP, shared experts; not the
/// routed experts nor the routers) for `rows` tokens with the other width split over `tp`: Megatron-core's fused
/// linear_qkv and linear_proj and the MLP's linear_fc1 and linear_fc2, each of input width h; a
/// matrix of widths h x w costs 2 h w FLOPs a token, so a layer's blocks' widths sum to their
/// FLOPs (the model's, over its `layers`) over 2 h (MLA's low-rank projections counted as if
/// their input were h).
GemmShape dense_gemm_shape(const ForwardFlops& flops, double hidden, double layers, double rows, double tp);

}  // namespace meshplan
