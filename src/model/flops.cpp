#include "model/flops.hpp"

#include <algorithm>

namespace meshplan {

ForwardFlops forward_flops_per_token(const ModelSpec& model, std::int64_t seq_len) {
  const AttentionSpec& attention = model.attention;
  const double layers = static_cast<double>(model.num_attention_layers());
  const double s = static_cast<double>(seq_len);
  ForwardFlops flops;
  // Every weight is used once per token in a matmul: 2 FLOPs per parameter (Kaplan et al.
  // 2020, "C_forward = 2N"). Biases and norms are included; they are < 0.1% of the total.
  flops.attention_projections = 2.0 * static_cast<double>(model.params.attention + model.params.linear_attention);
  // Scores QK^T: s * qk_dim MACs per head per token; attention x V: s * v_dim MACs per head.
  // Megatron counts the full s x s matrix (Narayanan 2021 Eq. 3: the 12*s*h term of
  // 72*B*s*L*h^2*(s/(6h)) is 3 passes x 2 FLOPs x 2 matmuls x s*h).
  double qk_dim = static_cast<double>(attention.head_dim);
  double v_dim = static_cast<double>(attention.head_dim);
  if (attention.kind == AttentionKind::mla) {
    qk_dim = static_cast<double>(attention.qk_nope_head_dim + attention.qk_rope_head_dim);
    v_dim = static_cast<double>(attention.v_head_dim);
  }
  const double heads = static_cast<double>(attention.num_heads);
  // Sliding-window layers (gpt-oss, Mistral-7B-v0.1) score at most `sliding_window` keys.
  const double sliding_layers = static_cast<double>(attention.num_sliding_layers);
  const double window_keys = attention.sliding_window > 0 ? std::min(s, static_cast<double>(attention.sliding_window)) : s;
  const double keys_summed_over_layers = (layers - sliding_layers) * s + sliding_layers * window_keys;
  flops.attention_scores = 2.0 * keys_summed_over_layers * heads * (qk_dim + v_dim);
  if (window_keys < s) {
    flops.windowed_attention_scores = 2.0 * sliding_layers * window_keys * heads * (qk_dim + v_dim);
  }
  if (model.linear_attention) {
    // A linear-attention layer reads and updates a fixed value_dim x key_dim state per value head,
    // whatever the context: S k (2 dv dk), the rank-1 update (dv dk), S q (2 dv dk) = 5 dv dk per
    // head per token in the recurrent form, as verl counts Gated DeltaNet for MFU
    // (verl/utils/flops_counter.py, Qwen3-Next); the chunked kernel computes the same result.
    // Lightning attention (MiniMax) keeps the same kind of head_dim x head_dim state per head and is
    // counted alike.
    // Mamba-2's scan is counted as Megatron-LM counts it for the model's TFLOP/s: 7 FLOPs per
    // element of the inner width x state (megatron/training/training.py mamba_layer_flops, "scan").
    const LinearAttentionSpec& linear = *model.linear_attention;
    const double per_state_element = linear.kind == LinearAttentionKind::mamba2 ? 7.0 : 5.0;
    const double scan = per_state_element * static_cast<double>(linear.num_layers * linear.num_value_heads) *
                        static_cast<double>(linear.value_head_dim * linear.key_head_dim);
    flops.attention_scores += scan;
    if (linear.kind == LinearAttentionKind::mamba2) flops.state_space_scan = scan;
  }
  if (attention.kind == AttentionKind::mla) {
    // q_b_proj (q_proj when q is not compressed) and kv_b_proj: the up projections from the latents.
    const double q_input = static_cast<double>(attention.q_lora_rank > 0 ? attention.q_lora_rank : model.hidden_size);
    flops.mla_up_projections =
        2.0 * static_cast<double>(model.num_attention_layers()) * heads *
        (q_input * qk_dim + static_cast<double>(attention.kv_lora_rank) *
                                static_cast<double>(attention.qk_nope_head_dim + attention.v_head_dim));
  }
  flops.dense_mlp = 2.0 * static_cast<double>(model.params.dense_mlp);
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    const double moe_layers = static_cast<double>(moe.num_moe_layers);
    flops.routed_experts = 2.0 * moe_layers * static_cast<double>(moe.experts_per_token * moe.routed_expert_params);
    flops.shared_experts = 2.0 * moe_layers * static_cast<double>(moe.shared_expert_params);
    flops.routers = 2.0 * moe_layers * static_cast<double>(moe.router_params);
    flops.latent_projections = 2.0 * moe_layers * static_cast<double>(moe.latent_projection_params);
  }
  flops.mlp = flops.dense_mlp + flops.routed_experts + flops.shared_experts + flops.routers + flops.latent_projections;
  flops.lm_head = 2.0 * static_cast<double>(model.vocab_size * model.hidden_size);
  if (model.vision) {
    // Each merged image token comes from spatial_merge^2 patches that went through the tower;
    // the merger(s) then run once per merged token.
    const VisionSpec& vision = *model.vision;
    const double patches_per_token = static_cast<double>(vision.spatial_merge_size * vision.spatial_merge_size);
    const double tower_params = static_cast<double>(vision.params - vision.merger_params);
    flops.vision = 2.0 * (tower_params * patches_per_token + static_cast<double>(vision.merger_params));
  }
  return flops;
}

double train_flops_per_token(const ModelSpec& model, std::int64_t seq_len) {
  // Backward costs twice the forward (Narayanan et al. 2021 §5.1): 3 passes in all.
  return 3.0 * forward_flops_per_token(model, seq_len).total();
}

}  // namespace meshplan
