#include "cost/memory/lora_params.hpp"

#include <algorithm>
#include <string_view>

namespace meshplan {
namespace {

// Which projections carry adapters. PEFT's "all-linear" (verl's default target_modules) takes every
// linear layer of the decoder; HF and Megatron module names are both accepted.
// A linear-attention mixer's input and output projections (Mamba-2 and Gated DeltaNet in_proj /
// out_proj, GDN's in_proj_qkvz and in_proj_ba) and a LatentMoE's latent projections are linear
// layers too, which all-linear takes.
struct Targets {
  bool q = false, k = false, v = false, o = false, gate = false, up = false, down = false;
  bool mixer_in = false, mixer_out = false, latent = false;
};

constexpr Targets kAllLinear{true, true, true, true, true, true, true, true, true, true};

Targets targets_of(const Lora& lora) {
  Targets t;
  if (lora.target_modules.empty()) return kAllLinear;
  for (const std::string& name : lora.target_modules) {
    const std::string_view n = name;
    if (n == "all-linear" || n == "all_linear") return kAllLinear;
    if (n == "in_proj" || n == "in_proj_qkvz" || n == "in_proj_ba") t.mixer_in = true;
    if (n == "out_proj") t.mixer_out = true;
    if (n == "fc1_latent_proj" || n == "fc2_latent_proj") t.latent = true;
    if (n == "q_proj") t.q = true;
    if (n == "k_proj") t.k = true;
    if (n == "v_proj") t.v = true;
    if (n == "o_proj" || n == "linear_proj") t.o = true;
    if (n == "linear_qkv") t.q = t.k = t.v = true;
    if (n == "gate_proj") t.gate = true;
    if (n == "up_proj") t.up = true;
    if (n == "down_proj" || n == "linear_fc2") t.down = true;
    if (n == "linear_fc1") t.gate = t.up = true;
  }
  return t;
}

// r * (in + out) per adapted linear of an MLP of width `ffn` (gated: gate, up, down).
double mlp_lora(double r, double h, double ffn, bool gated, const Targets& t) {
  double params = 0;
  if (gated && t.gate) params += r * (h + ffn);
  if (t.up) params += r * (h + ffn);
  if (t.down) params += r * (ffn + h);
  return params;
}

// The softmax-attention block of a layer.
double attention_lora(const ModelSpec& model, const Targets& t, double r) {
  const double h = static_cast<double>(model.hidden_size);
  const AttentionSpec& a = model.attention;
  double params = 0;
  if (a.kind == AttentionKind::mla) {
    // q (or q_a + q_b), kv_a + kv_b and o, each adapted as one linear per projection.
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    const double heads = static_cast<double>(a.num_heads);
    if (t.q) {
      params += a.q_lora_rank > 0 ? r * (h + a.q_lora_rank) + r * (a.q_lora_rank + heads * qk)
                                  : r * (h + heads * qk);
    }
    if (t.k || t.v) {
      params += r * (h + a.kv_lora_rank + a.qk_rope_head_dim) +
                r * (a.kv_lora_rank + heads * (a.qk_nope_head_dim + a.v_head_dim));
    }
    if (t.o) params += r * (heads * a.v_head_dim + h);
  } else {
    const double q_width = static_cast<double>(a.num_heads * a.head_dim);
    const double kv_width = static_cast<double>(a.num_kv_heads * a.head_dim);
    if (t.q) params += r * (h + q_width);
    if (t.k) params += r * (h + kv_width);
    if (t.v) params += r * (h + kv_width);
    if (t.o) params += r * (q_width + h);
  }
  return params;
}

// A linear-attention layer's mixer: Mamba-2's in_proj (h -> z, x, B, C, dt) and out_proj (inner -> h),
// Gated DeltaNet's in_proj_qkvz, in_proj_ba and out_proj (modeling_nemotron_h.py, modular_qwen3_next.py).
// Lightning attention's q/k/v/o are counted as softmax attention's.
double linear_mixer_lora(const ModelSpec& model, const Targets& t, double r) {
  const LinearAttentionSpec& l = *model.linear_attention;
  if (l.kind == LinearAttentionKind::lightning) return attention_lora(model, t, r);
  const double h = static_cast<double>(model.hidden_size);
  const double key_width = static_cast<double>(l.num_key_heads * l.key_head_dim);
  const double value_width = static_cast<double>(l.num_value_heads * l.value_head_dim);
  const double heads = static_cast<double>(l.num_value_heads);
  double params = 0;
  if (t.mixer_in) {
    params += l.kind == LinearAttentionKind::mamba2
                  ? r * (h + 2.0 * value_width + 2.0 * key_width + heads)
                  : r * (h + 2.0 * key_width + 2.0 * value_width) + r * (h + 2.0 * heads);
  }
  if (t.mixer_out) params += r * (value_width + h);
  return params;
}

// A MoE block: every routed expert (in the latent width of a LatentMoE), the shared experts and the
// latent projections.
double moe_lora(const ModelSpec& model, const Targets& t, double r) {
  const MoeSpec& moe = *model.moe;
  const double h = static_cast<double>(model.hidden_size);
  const double routed_h = static_cast<double>(model.expert_hidden_size());
  double params = static_cast<double>(moe.num_experts) *
                  mlp_lora(r, routed_h, static_cast<double>(moe.expert_intermediate_size), moe.gated_experts, t);
  if (moe.num_shared_experts > 0) {
    params += mlp_lora(r, h, static_cast<double>(moe.shared_intermediate_size), moe.gated_experts, t);
  }
  if (moe.latent_size > 0 && t.latent) params += 2.0 * r * (h + routed_h);
  return params;
}

double dense_mlp_lora(const ModelSpec& model, const Targets& t, double r) {
  return mlp_lora(r, static_cast<double>(model.hidden_size), static_cast<double>(model.dense_mlp.intermediate_size),
                  model.dense_mlp.gated, t);
}

}  // namespace

double lora_params_per_layer(const ModelSpec& model, const Lora& lora, bool moe_layer) {
  if (lora.rank <= 0) return 0;
  const Targets t = targets_of(lora);
  const double r = lora.rank;
  const double mlp = moe_layer && model.moe ? moe_lora(model, t, r) : dense_mlp_lora(model, t, r);
  return attention_lora(model, t, r) + mlp;
}

double lora_params_total(const ModelSpec& model, const Lora& lora) {
  if (lora.rank <= 0) return 0;
  const Targets t = targets_of(lora);
  const double r = lora.rank;
  // Each kind of sublayer as often as the model holds it: the softmax-attention and linear-attention
  // mixers, the dense MLPs and the MoE blocks (for a Nemotron-H pattern, one per layer).
  double params = static_cast<double>(model.num_attention_layers()) * attention_lora(model, t, r) +
                  static_cast<double>(model.num_dense_layers) * dense_mlp_lora(model, t, r);
  if (model.linear_attention) {
    params += static_cast<double>(model.linear_attention->num_layers) * linear_mixer_lora(model, t, r);
  }
  if (model.moe) params += static_cast<double>(model.moe->num_moe_layers) * moe_lora(model, t, r);
  return params;
}

double trainable_share(const ModelSpec& model, const Lora& lora) {
  if (lora.rank <= 0 || model.total_params <= 0) return 1.0;
  return std::min(1.0, lora_params_total(model, lora) / static_cast<double>(model.total_params));
}

}  // namespace meshplan
