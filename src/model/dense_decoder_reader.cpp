// llama-style decoders: llama, mistral, qwen2, qwen3, seed_oss, mimo (the MoE readers reuse the layer shape).
#include <array>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

/// How a family's attention differs, as its Hugging Face modeling file hard-codes it.
struct LlamaStyleFamily {
  std::string_view model_type;
  bool qkv_bias_always;       ///< Qwen2 / Qwen2-MoE / Qwen2.5-VL: bias on q, k, v (not o)
  bool bias_from_config;      ///< llama, qwen3, seed_oss: `attention_bias` biases q, k, v
  std::string_view o_bias_key;  ///< the key that biases o ("" : none)
  bool qk_norm;               ///< Qwen3: q_norm and k_norm
  bool window_needs_switch;   ///< Qwen: `sliding_window` applies only with use_sliding_window
};

// Sources: transformers models/{llama,mistral,mixtral,qwen2,qwen2_moe,qwen3,qwen3_moe,
// qwen2_5_vl,qwen3_vl,qwen3_vl_moe,seed_oss,minimax_m2}/modeling_*.py (attention __init__ and
// layer_types; SeedOssAttention: o_proj bias from attention_out_bias; MiniMaxM2Attention: q_norm
// and k_norm when use_qk_norm).
constexpr std::array kFamilies{
    LlamaStyleFamily{"llama", false, true, "attention_bias", false, false},
    LlamaStyleFamily{"mistral", false, false, "", false, false},
    LlamaStyleFamily{"mixtral", false, false, "", false, false},
    LlamaStyleFamily{"qwen2", true, false, "", false, true},
    // XiaomiMiMo modeling_mimo.py: Qwen2Model's layers (Qwen2Attention) plus MTP modules.
    LlamaStyleFamily{"mimo", true, false, "", false, true},
    LlamaStyleFamily{"qwen2_moe", true, false, "", false, true},
    LlamaStyleFamily{"qwen2_5_vl", true, false, "", false, true},
    LlamaStyleFamily{"qwen3", false, true, "attention_bias", true, true},
    LlamaStyleFamily{"qwen3_moe", false, true, "attention_bias", true, true},
    LlamaStyleFamily{"qwen3_vl", false, true, "attention_bias", true, true},
    LlamaStyleFamily{"qwen3_vl_moe", false, true, "attention_bias", true, true},
    LlamaStyleFamily{"seed_oss", false, true, "attention_out_bias", false, false},
    LlamaStyleFamily{"minimax_m2", false, false, "", true, false},
};

const LlamaStyleFamily& family_of(std::string_view model_type) {
  for (const LlamaStyleFamily& family : kFamilies) {
    if (family.model_type == model_type) return family;
  }
  return kFamilies.front();  // unreachable: config_reader.cpp dispatches only listed types
}

void read_sliding_window(const ConfigFields& config, const LlamaStyleFamily& family, ModelSpec& model) {
  AttentionSpec& attention = model.attention;
  if (family.window_needs_switch && !config.flag_or("use_sliding_window", false)) return;
  attention.sliding_window = config.count_or("sliding_window", 0, kMaxPositions);
  if (attention.sliding_window == 0) return;
  const std::int64_t listed = count_sliding_layers(config, model.num_layers);
  if (listed >= 0) {
    attention.num_sliding_layers = listed;
  } else if (family.window_needs_switch) {
    // Qwen: layers from max_window_layers on use the window (configuration_qwen2.py).
    const std::int64_t full_layers = config.count_or("max_window_layers", model.num_layers, kMaxLayers);
    attention.num_sliding_layers = std::max<std::int64_t>(0, model.num_layers - full_layers);
  } else {
    attention.num_sliding_layers = model.num_layers;  // Mistral-7B-v0.1: every layer
  }
  if (attention.num_sliding_layers == 0) attention.sliding_window = 0;
}

}  // namespace

void read_llama_style_layers(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  const LlamaStyleFamily& family = family_of(model_type);
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  const bool config_bias = family.bias_from_config && config.flag_or("attention_bias", false);
  model.attention.qkv_bias = family.qkv_bias_always || config_bias;
  model.attention.o_bias = !family.o_bias_key.empty() && config.flag_or(family.o_bias_key, false);
  model.attention.qk_norm = family.qk_norm;
  if (model_type == "minimax_m2") {
    // MiniMaxM2Config: use_qk_norm (default true), qk_norm_type "per_layer" (default) or "per_head".
    model.attention.qk_norm = config.flag_or("use_qk_norm", true);
    model.attention.qk_norm_across_heads = config.text_or_empty("qk_norm_type") != "per_head";
  }
  read_sliding_window(config, family, model);
}

void read_dense_decoder(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  read_llama_style_layers(config, model_type, model);
  read_gated_mlp(config, model);
  count_params(model);
}

void read_mimo(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  read_dense_decoder(config, model_type, model);
  // MiMoMTPLayers (XiaomiMiMo modeling_mimo.py), num_nextn_predict_layers of them: token_layernorm,
  // hidden_layernorm, input_proj (2h -> h, no bias) and final_layernorm around a decoder layer like
  // the model's (Qwen2Attention, Qwen2MLP and their two norms); embedding and LM head shared.
  model.num_mtp_layers = config.count_or("num_nextn_predict_layers", 0, kMaxLayers);
  const std::int64_t h = model.hidden_size;
  const std::int64_t layer =
      params_sum({attention_params(h, model.attention), model.norm_params_per_layer, model.dense_mlp_params_per_layer});
  model.params.mtp = params_product({model.num_mtp_layers, mtp_module_params(h, layer)});
}

}  // namespace meshplan
