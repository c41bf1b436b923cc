#include "model/param_count.hpp"

#include <algorithm>

namespace meshplan {

std::int64_t params_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 1;
  for (const std::int64_t factor : factors) {
    if (factor == 0) return 0;
    if (product > kMaxParams / factor) return kMaxParams;
    product *= factor;
  }
  return product;
}

std::int64_t params_sum(std::initializer_list<std::int64_t> terms) {
  std::int64_t sum = 0;
  for (const std::int64_t term : terms) sum = std::min(kMaxParams, sum + term);
  return sum;
}

std::int64_t norm_params(NormKind norm, std::int64_t width) {
  return norm == NormKind::layer_norm ? 2 * width : width;
}

std::int64_t mlp_params(std::int64_t hidden, const MlpSpec& mlp) {
  const std::int64_t matrices = mlp.gated ? 3 : 2;
  const std::int64_t weights = params_product({matrices, hidden, mlp.intermediate_size});
  // Biases: one per output feature of each matrix (gate and up: ffn width; down: hidden).
  const std::int64_t biases = mlp.bias ? (matrices - 1) * mlp.intermediate_size + hidden : 0;
  return params_sum({weights, biases});
}

namespace {

// DeepSeek-V2 MLA (DeepSeek-V2 paper §2.1.2; HF modeling_deepseek.py DeepseekV2Attention).
std::int64_t mla_params(std::int64_t hidden, const AttentionSpec& a) {
  const std::int64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const std::int64_t q = a.q_lora_rank == 0
                             ? params_product({hidden, a.num_heads, qk_head})
                             : params_sum({params_product({hidden, a.q_lora_rank}), a.q_lora_rank,
                                           params_product({a.q_lora_rank, a.num_heads, qk_head})});
  const std::int64_t kv_a = params_product({hidden, a.kv_lora_rank + a.qk_rope_head_dim});
  const std::int64_t kv_a_norm = a.kv_lora_rank;
  const std::int64_t kv_b = params_product({a.kv_lora_rank, a.num_heads, a.qk_nope_head_dim + a.v_head_dim});
  const std::int64_t o = params_product({a.num_heads, a.v_head_dim, hidden});
  // DeepSeek-V3.2 lightning indexer (inference/model.py Indexer): wq_b (q_lora_rank -> heads x dim),
  // wk (hidden -> dim), k_norm (LayerNorm: weight + bias), weights_proj (hidden -> heads); no biases.
  const std::int64_t indexer =
      a.index_heads == 0 ? 0
                         : params_sum({params_product({a.q_lora_rank, a.index_heads, a.index_head_dim}),
                                       params_product({hidden, a.index_head_dim}), 2 * a.index_head_dim,
                                       params_product({hidden, a.index_heads})});
  return params_sum({q, kv_a, kv_a_norm, kv_b, o, indexer});
}

}  // namespace

std::int64_t attention_params(std::int64_t hidden, const AttentionSpec& a) {
  if (a.kind == AttentionKind::mla) return mla_params(hidden, a);
  const std::int64_t q_width = params_product({a.num_heads, a.head_dim});
  const std::int64_t kv_width = params_product({a.num_kv_heads, a.head_dim});
  // Gated attention (Qwen3-Next): q_proj emits q and a gate of the same width.
  const std::int64_t q_proj = params_product({a.output_gate ? 2 : 1, hidden, q_width});
  const std::int64_t o_proj = params_product({hidden, q_width});
  const std::int64_t k_and_v = params_product({2, hidden, kv_width});
  const std::int64_t qkv_bias = a.qkv_bias ? q_width + 2 * kv_width : 0;
  const std::int64_t o_bias = a.o_bias ? hidden : 0;
  // Qwen3 q_norm, k_norm of head_dim; MiniMax-M2's per-layer norms span every head.
  const std::int64_t qk_norm = !a.qk_norm ? 0 : a.qk_norm_across_heads ? q_width + kv_width : 2 * a.head_dim;
  const std::int64_t sinks = a.sinks ? a.num_heads : 0;         // gpt-oss: one per head
  return params_sum({q_proj, o_proj, k_and_v, qkv_bias, o_bias, qk_norm, sinks});
}

std::int64_t linear_attention_params(std::int64_t hidden, const LinearAttentionSpec& l) {
  const std::int64_t key_width = params_product({l.num_key_heads, l.key_head_dim});
  const std::int64_t value_width = params_product({l.num_value_heads, l.value_head_dim});
  if (l.kind == LinearAttentionKind::lightning) {
    // MiniMaxLightningAttention (transformers modeling_minimax.py): qkv_proj (h -> 3 x heads x d),
    // output_gate (h -> heads x d), RMSNorm over heads x d, out_proj (heads x d -> h); no biases.
    return params_sum({params_product({hidden, key_width + key_width + value_width}),
                       params_product({hidden, value_width}), value_width, params_product({value_width, hidden})});
  }
  if (l.kind == LinearAttentionKind::mamba2) {
    // NemotronHMamba2Mixer (transformers modeling_nemotron_h.py): in_proj (h -> z, x of the inner
    // width, B and C of groups x state, dt per head), the depthwise conv1d over x, B and C, dt_bias,
    // A_log and D per head, the gated RMSNorm over the inner width, out_proj (inner -> h).
    const std::int64_t in_width = 2 * value_width + 2 * key_width + l.num_value_heads;
    const std::int64_t conv_channels = value_width + 2 * key_width;
    return params_sum({params_product({hidden, in_width}), l.projection_bias ? in_width + hidden : 0,
                       params_product({conv_channels, l.conv_kernel_size}), l.conv_bias ? conv_channels : 0,
                       3 * l.num_value_heads, value_width, params_product({value_width, hidden})});
  }
  // Qwen3NextGatedDeltaNet (transformers modular_qwen3_next.py): in_proj_qkvz (h -> 2 key + 2 value
  // widths), in_proj_ba (h -> 2 x value heads), depthwise conv1d over q, k, v (no bias), dt_bias and
  // A_log (one per value head), the gated RMSNorm over value_head_dim, out_proj (value width -> h).
  const std::int64_t conv_channels = 2 * key_width + value_width;
  return params_sum({params_product({hidden, 2 * key_width + 2 * value_width}),
                     params_product({hidden, 2 * l.num_value_heads}), params_product({conv_channels, l.conv_kernel_size}),
                     2 * l.num_value_heads, l.value_head_dim, params_product({value_width, hidden})});
}

std::int64_t moe_layer_params(const MoeSpec& moe) {
  return params_sum({params_product({moe.num_experts, moe.routed_expert_params}), moe.shared_expert_params,
                     moe.router_params, moe.latent_projection_params});
}

std::int64_t mtp_module_params(std::int64_t hidden, std::int64_t decoder_layer_params) {
  return params_sum({decoder_layer_params, 2 * hidden, params_product({2, hidden, hidden}), hidden});
}

void count_params(ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t attention_layer = attention_params(h, model.attention);
  model.norm_params_per_layer = model.norms_per_layer * norm_params(model.norm, h);
  model.dense_mlp_params_per_layer = mlp_params(h, model.dense_mlp);

  ParamBreakdown& p = model.params;
  p.embedding = params_product({model.vocab_size, h});
  p.lm_head = model.tie_word_embeddings ? 0 : p.embedding;
  p.position_embedding =
      model.position == PositionKind::learned ? params_product({model.max_position_embeddings, h}) : 0;
  p.attention = params_product({model.num_attention_layers(), attention_layer});
  p.linear_attention = 0;
  if (model.linear_attention) {
    LinearAttentionSpec& linear = *model.linear_attention;
    linear.params_per_layer = linear_attention_params(h, linear);
    p.linear_attention = params_product({linear.num_layers, linear.params_per_layer});
  }
  model.attention_params_per_layer =
      model.num_layers > 0 ? params_sum({p.attention, p.linear_attention}) / model.num_layers : 0;
  p.layer_norms = params_product({model.num_layers, model.norm_params_per_layer});
  p.final_norm = norm_params(model.norm, h);
  p.dense_mlp = params_product({model.num_dense_layers, model.dense_mlp_params_per_layer});
  std::int64_t inactive = 0;
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    p.routed_experts = params_product({moe.num_moe_layers, moe.num_experts, moe.routed_expert_params});
    p.shared_experts = params_product({moe.num_moe_layers, moe.shared_expert_params});
    p.routers = params_product({moe.num_moe_layers, moe.router_params});
    p.latent_projections = params_product({moe.num_moe_layers, moe.latent_projection_params});
    // CONVENTIONS.md: active = total - moe_layers x (experts - top-k) x one routed expert.
    inactive = params_product({moe.num_moe_layers, moe.num_experts - moe.experts_per_token,
                               moe.routed_expert_params});
  }
  p.vision = model.vision ? model.vision->params : 0;
  model.total_params = params_total(p);
  model.active_params = model.total_params - inactive;
}

std::int64_t params_total(const ParamBreakdown& p) {
  return params_sum({p.embedding, p.lm_head, p.position_embedding, p.attention, p.linear_attention, p.layer_norms,
                     p.final_norm, p.dense_mlp, p.shared_experts, p.routed_experts, p.routers, p.latent_projections,
                     p.vision});
}

}  // namespace meshplan
