#include "cost/memory/lora_params.hpp"

#include <algorithm>
#include <string_view>

namespace meshplan {
namespace {

// Which projections carry adapters. PEFT's "all-linear" (verl's default target_modules) takes every
// linear layer of the decoder; HF and Megatron module names are both accepted.
struct Targets {
  bool q = false, k = false, v = false, o = false, gate = false, up = false, down = false;
};

Targets targets_of(const Lora& lora) {
  Targets t;
  if (lora.target_modules.empty()) return Targets{true, true, true, true, true, true, true};
  for (const std::string& name : lora.target_modules) {
    const std::string_view n = name;
    if (n == "all-linear" || n == "all_linear") return Targets{true, true, true, true, true, true, true};
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

}  // namespace

double lora_params_per_layer(const ModelSpec& model, const Lora& lora, bool moe_layer) {
  if (lora.rank <= 0) return 0;
  const Targets t = targets_of(lora);
  const double r = lora.rank;
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
  if (!moe_layer || !model.moe) {
    params +=
        mlp_lora(r, h, static_cast<double>(model.dense_mlp.intermediate_size), model.dense_mlp.gated, t);
    return params;
  }
  const MoeSpec& moe = *model.moe;
  params += static_cast<double>(moe.num_experts) *
            mlp_lora(r, h, static_cast<double>(moe.expert_intermediate_size), true, t);
  if (moe.num_shared_experts > 0) {
    params += mlp_lora(r, h, static_cast<double>(moe.shared_intermediate_size), true, t);
  }
  return params;
}

double lora_params_total(const ModelSpec& model, const Lora& lora) {
  const std::int64_t moe_layers = model.moe ? model.moe->num_moe_layers : 0;
  return static_cast<double>(model.num_layers - moe_layers) * lora_params_per_layer(model, lora, false) +
         static_cast<double>(moe_layers) * lora_params_per_layer(model, lora, true);
}

double trainable_share(const ModelSpec& model, const Lora& lora) {
  if (lora.rank <= 0 || model.total_params <= 0) return 1.0;
  return std::min(1.0, lora_params_total(model, lora) / static_cast<double>(model.total_params));
}

}  // namespace meshplan
