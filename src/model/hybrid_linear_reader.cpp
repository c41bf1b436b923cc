// Hybrid linear-attention decoders: Qwen3-Next (qwen3_next) and the Qwen3.5 language models
// (qwen3_5_text, qwen3_5_moe_text): Gated DeltaNet layers interleaved with gated full attention,
// a dense or MoE (shared expert + gate) MLP on every layer, optional MTP layers.
// Sources: transformers models/qwen3_next/configuration_qwen3_next.py (defaults, layer_types from
// full_attention_interval), modular_qwen3_next.py (Qwen3NextAttention, Qwen3NextGatedDeltaNet,
// Qwen3NextSparseMoeBlock), models/qwen3_5/modular_qwen3_5.py (Qwen3_5GatedDeltaNet: same sizes
// split into in_proj_qkv/z/b/a); vLLM model_executor/models/qwen3_next_mtp.py (mtp.* weights).
#include <algorithm>

#include <fmt/format.h>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

/// Linear-attention layers: the "linear_attention" entries of layer_types, else every layer but
/// each full_attention_interval-th (Qwen3NextConfig.__post_init__, default interval 4).
std::int64_t count_linear_layers(const ConfigFields& config, std::int64_t num_layers) {
  const std::int64_t listed = count_layer_type(config, num_layers, "linear_attention");
  if (listed >= 0) return listed;
  const std::int64_t interval = config.positive_or("full_attention_interval", 4, kMaxLayers);
  return num_layers - num_layers / interval;
}

LinearAttentionSpec read_gated_delta_net(const ConfigFields& config, std::int64_t num_layers) {
  // Defaults: Qwen3NextConfig (linear_* fields).
  LinearAttentionSpec linear;
  linear.kind = LinearAttentionKind::gated_delta_net;
  linear.num_layers = count_linear_layers(config, num_layers);
  linear.num_key_heads = config.positive_or("linear_num_key_heads", 16, kMaxWidth);
  linear.num_value_heads = config.positive_or("linear_num_value_heads", 32, kMaxWidth);
  linear.key_head_dim = config.positive_or("linear_key_head_dim", 128, kMaxWidth);
  linear.value_head_dim = config.positive_or("linear_value_head_dim", 128, kMaxWidth);
  linear.conv_kernel_size = config.positive_or("linear_conv_kernel_dim", 4, kMaxWidth);
  linear.state_bytes_per_element = state_dtype_bytes(config, "mamba_ssm_dtype");  // vLLM, Qwen3.5
  if (!config.failed() && linear.num_value_heads % linear.num_key_heads != 0) {
    config.fail("linear_num_value_heads", fmt::format("{} value heads are not a multiple of the {} key heads",
                                                      linear.num_value_heads, linear.num_key_heads));
  }
  return linear;
}

/// One MTP decoder layer: gated full attention, two norms and the model's MLP (MoE when the
/// model is: vLLM Qwen3NextMultiTokenPredictor builds a Qwen3NextDecoderLayer).
std::int64_t mtp_layer_params(const ModelSpec& model) {
  const std::int64_t layer =
      params_sum({attention_params(model.hidden_size, model.attention), model.norm_params_per_layer});
  return params_sum({layer, model.moe ? moe_layer_params(*model.moe) : model.dense_mlp_params_per_layer});
}

}  // namespace

void read_qwen3_next(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  AttentionSpec& attention = model.attention;
  const bool bias = config.flag_or("attention_bias", false);
  attention.qkv_bias = bias;
  attention.o_bias = bias;
  attention.qk_norm = true;
  // vLLM Qwen3NextAttention: getattr(config, "attn_output_gate", True) (transformers always gates).
  attention.output_gate = config.flag_or("attn_output_gate", true);
  model.linear_attention = read_gated_delta_net(config, model.num_layers);
  const std::int64_t h = model.hidden_size;
  if (config.has("num_experts")) {
    MoeSpec moe;
    moe.num_experts = config.positive("num_experts", kMaxWidth);
    moe.experts_per_token = config.positive("num_experts_per_tok", kMaxWidth);
    moe.expert_intermediate_size = config.positive("moe_intermediate_size", kMaxWidth);
    check_experts_per_token(config, "num_experts_per_tok", moe);
    moe.layer_is_moe = qwen_moe_layers(config, model.num_layers);
    moe.num_moe_layers = std::count(moe.layer_is_moe.begin(), moe.layer_is_moe.end(), true);
    // Qwen2MoeSparseMoeBlock: one shared expert plus its sigmoid gate (hidden -> 1).
    moe.shared_intermediate_size = config.count_or("shared_expert_intermediate_size", 0, kMaxWidth);
    moe.num_shared_experts = moe.shared_intermediate_size > 0 ? 1 : 0;
    moe.shared_expert_gate = moe.num_shared_experts > 0;
    // Qwen3NextConfig defaults norm_topk_prob to true (configuration_qwen3_next.py).
    moe.normalize_top_k = config.flag_or("norm_topk_prob", true);
    moe.shared_expert_params =
        moe.num_shared_experts > 0 ? params_sum({params_product({3, h, moe.shared_intermediate_size}), h}) : 0;
    moe.routed_expert_params = params_product({3, h, moe.expert_intermediate_size});
    moe.router_params = params_product({moe.num_experts, h});
    model.num_dense_layers = model.num_layers - moe.num_moe_layers;
    model.moe = moe;
  }
  if (model.num_dense_layers > 0) read_gated_mlp(config, model);
  model.num_mtp_layers = config.count_or("mtp_num_hidden_layers", 0, kMaxLayers);
  count_params(model);
  model.params.mtp = params_product({model.num_mtp_layers, mtp_module_params(h, mtp_layer_params(model))});
}

}  // namespace meshplan
