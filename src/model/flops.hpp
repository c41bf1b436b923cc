#pragma once
// FLOPs per token of a ModelSpec (2 FLOPs per multiply-accumulate). The cost model's time
// estimate and `meshplan model` both read these; nothing else counts model FLOPs.
#include <cstdint>

#include "model/model_spec.hpp"

namespace meshplan {

/// Forward-pass FLOPs per token, by component, summed over all decoder layers.
struct ForwardFlops {
  double attention_projections = 0;  ///< q/k/v/o (MLA: every low-rank projection; linear attention's)
  double attention_scores = 0;       ///< QK^T and attention x V at the sequence length (+ linear
                                     ///< attention's state reads and updates)
  double mlp = 0;                    ///< dense MLPs + shared experts + top-k routed experts + routers
  double lm_head = 0;                ///< output projection to the vocabulary
  double vision = 0;                 ///< vision tower, per image token it produces (0: text only)
  // Parts of the sums above that Megatron-core can recompute on their own (recompute_modules):
  double dense_mlp = 0;           ///< the dense layers' MLPs (part of mlp)
  double shared_experts = 0;      ///< MoE layers' shared experts (part of mlp)
  double routed_experts = 0;      ///< the top-k routed experts (part of mlp)
  double routers = 0;             ///< MoE routers' gate GEMMs (part of mlp)
  double latent_projections = 0;  ///< LatentMoE fc1 / fc2 latent projections (part of mlp)
  double mla_up_projections = 0;  ///< MLA q and kv up projections (part of attention_projections)
  /// The sliding-window layers' scores when the window is shorter than the sequence (part of
  /// attention_scores): each query scores the window's keys, a band rather than a triangle.
  double windowed_attention_scores = 0;
  /// Mamba-2's SSD scan (part of attention_scores): no causal mask, and mamba_ssm's chunked kernels
  /// run it rather than an attention kernel (cost/time/compute_time.cpp).
  double state_space_scan = 0;

  double total() const { return attention_projections + attention_scores + mlp + lm_head; }
};

/// Forward FLOPs per token for sequences of `seq_len` tokens.
/// Attention scores follow Megatron's convention (Narayanan et al. 2021, Eq. 3; Korthikanti
/// et al. 2022 §6): the full s x s score matrix is counted (no causal halving):
/// 2 * s * heads * (qk_head_dim + v_head_dim) per layer; a sliding-window layer scores
/// min(s, window) keys instead of s; a linear-attention layer (hybrid models) costs
/// 5 x value_heads x value_dim x key_dim, independent of s (verl flops_counter.py).
ForwardFlops forward_flops_per_token(const ModelSpec& model, std::int64_t seq_len);

/// Training FLOPs per token without recomputation: 3 x forward (backward = 2 x forward).
/// For a GPT (no biases) this is 72*L*h^2*(1 + s/(6h) + V/(12*L*h)), the model FLOPs of
/// Korthikanti et al. 2022 §6 divided by the B*s tokens of a step.
double train_flops_per_token(const ModelSpec& model, std::int64_t seq_len);

}  // namespace meshplan
