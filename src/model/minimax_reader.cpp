// MiniMax-Text-01 / MiniMax-M1 (minimax, minimax_m1): lightning (linear) attention layers
// interleaved with softmax GQA layers, a Mixtral-style MoE on every layer.
// Sources: transformers models/minimax/modular_minimax.py (MiniMaxConfig: layer_types default
// alternates full and linear; MiniMaxLightningAttention: qkv_proj, output_gate, norm, out_proj;
// MiniMaxAttention = MixtralAttention; MiniMaxSparseMoeBlock = MixtralSparseMoeBlock); vLLM
// model_executor/models/minimax_text_01.py (attn_type_list: 0 lightning, 1 softmax).
#include <fmt/format.h>

#include <algorithm>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

/// Lightning-attention layers: "linear_attention" in layer_types, else the zeros of
/// attn_type_list (MiniMax's own configs), else MiniMaxConfig's default (odd layers linear).
std::int64_t count_lightning_layers(const ConfigFields& config, std::int64_t num_layers) {
  const std::int64_t listed = count_layer_type(config, num_layers, "linear_attention");
  if (listed >= 0) return listed;
  if (config.has("attn_type_list")) {
    const std::vector<std::int64_t> types = config.integers("attn_type_list", 1);
    if (!config.failed() && static_cast<std::int64_t>(types.size()) != num_layers) {
      config.fail("attn_type_list", fmt::format("has {} entries for {} layers", types.size(), num_layers));
    }
    return std::count(types.begin(), types.end(), 0);
  }
  return num_layers / 2;
}

}  // namespace

void read_minimax(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);  // MixtralAttention: no biases, no q/k norms
  LinearAttentionSpec linear;
  linear.kind = LinearAttentionKind::lightning;
  linear.num_layers = count_lightning_layers(config, model.num_layers);
  linear.num_key_heads = model.attention.num_heads;
  linear.num_value_heads = model.attention.num_heads;
  linear.key_head_dim = model.attention.head_dim;
  linear.value_head_dim = model.attention.head_dim;
  model.linear_attention = linear;
  const std::int64_t h = model.hidden_size;
  MoeSpec moe = read_local_experts(config);
  moe.num_moe_layers = model.num_layers;
  moe.layer_is_moe.assign(static_cast<std::size_t>(model.num_layers), true);
  moe.routed_expert_params = params_product({3, h, moe.expert_intermediate_size});
  moe.router_params = params_product({moe.num_experts, h});
  model.moe = moe;
  model.num_dense_layers = 0;
  count_params(model);
}

}  // namespace meshplan
