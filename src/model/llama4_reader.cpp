// Llama 4 (llama4_text, and llama4: the same language model in text_config with a vision tower):
// GQA without biases (the q/k L2 norm has no weights), chunked attention on the RoPE layers, MoE
// layers of routed experts plus one shared expert interleaved with dense MLP layers.
// Sources: transformers models/llama4/configuration_llama4.py (Llama4TextConfig defaults and
// __post_init__: moe_layers from interleave_moe_layer_step, no_rope_layers every
// no_rope_layer_interval-th layer, layer_types "chunked_attention" on the RoPE layers;
// Llama4VisionConfig defaults), modeling_llama4.py (Llama4TextAttention, Llama4TextExperts: fused
// gate_up and down per expert, Llama4Router: hidden -> experts without bias, sigmoid of the top-k
// logits, Llama4TextMoe: shared_expert of intermediate_size, dense layers' Llama4TextMLP of
// intermediate_size_mlp; Llama4VisionModel: unfold-conv patch embedding without bias, class
// embedding, (image / patch)^2 + 1 positions, layernorm_pre / _post, encoder layers with biased
// q/k/v/o and a biased GELU MLP, the pixel-shuffle adapter Llama4VisionMLP2 without biases;
// Llama4MultiModalProjector: vision_output_dim -> text hidden without bias).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"
#include "model/vit_fields.hpp"

namespace meshplan {

namespace {

// Llama4TextConfig defaults for the sizes a config may leave out.
constexpr std::string_view kLlama4TextDefaults = R"({"vocab_size": 202048, "hidden_size": 5120,
  "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_hidden_layers": 48,
  "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
  "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "num_experts_per_tok": 1, "num_local_experts": 16,
  "interleave_moe_layer_step": 1, "no_rope_layer_interval": 4, "attention_chunk_size": 8192})";

// Llama4VisionConfig defaults.
constexpr std::string_view kLlama4VisionDefaults = R"({"hidden_size": 768, "num_hidden_layers": 34,
  "num_attention_heads": 16, "num_channels": 3, "intermediate_size": 5632, "vision_output_dim": 7680,
  "image_size": 448, "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096,
  "projector_output_dim": 4096})";

/// One entry per layer, true where the layer is MoE: moe_layers when given, else every
/// interleave_moe_layer_step-th layer (step - 1, 2 step - 1, ...).
std::vector<bool> llama4_moe_layers(const ConfigFields& config, std::int64_t num_layers) {
  std::vector<bool> sparse(static_cast<std::size_t>(num_layers), false);
  if (config.has("moe_layers")) {
    for (const std::int64_t layer : config.integers("moe_layers", kMaxLayers)) {
      if (layer >= num_layers) {
        config.fail("moe_layers", fmt::format("layer {} is beyond the {} layers", layer, num_layers));
        return sparse;
      }
      sparse[static_cast<std::size_t>(layer)] = true;
    }
    return sparse;
  }
  const std::int64_t step = config.positive("interleave_moe_layer_step", kMaxLayers);
  for (std::int64_t layer = step - 1; layer < num_layers; layer += step) sparse[static_cast<std::size_t>(layer)] = true;
  return sparse;
}

/// Layers with chunked attention: layer_types when given, else the RoPE layers of no_rope_layers
/// (1 = RoPE), else all but every no_rope_layer_interval-th layer.
std::int64_t chunked_layers(const ConfigFields& config, std::int64_t num_layers) {
  const std::int64_t listed = count_layer_type(config, num_layers, "chunked_attention");
  if (listed >= 0) return listed;
  const std::vector<std::int64_t> rope = config.integers("no_rope_layers", 1);
  if (!rope.empty()) {
    if (static_cast<std::int64_t>(rope.size()) < num_layers) {
      config.fail("no_rope_layers", fmt::format("has {} entries for {} layers", rope.size(), num_layers));
    }
    return std::count(rope.begin(), rope.begin() + std::min<std::int64_t>(num_layers, std::ssize(rope)), 1);
  }
  const std::int64_t interval = config.positive("no_rope_layer_interval", kMaxLayers);
  return num_layers - num_layers / interval;
}

void read_llama4_text(const ConfigFields& config, ModelSpec& model) {
  config.add_defaults(kLlama4TextDefaults);
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  AttentionSpec& attention = model.attention;
  attention.qkv_bias = attention.o_bias = config.flag_or("attention_bias", false);
  // Chunked attention keeps at most attention_chunk_size tokens of KV per layer, as a window does
  // (vLLM ChunkedLocalAttentionSpec), and scores at most a chunk per token; null: every layer full.
  const std::int64_t chunk = config.count_or("attention_chunk_size", 0, kMaxPositions);
  const std::int64_t chunked = chunked_layers(config, model.num_layers);
  attention.sliding_window = chunked > 0 ? chunk : 0;
  attention.num_sliding_layers = chunk > 0 ? chunked : 0;
  attention.chunked_window = attention.num_sliding_layers > 0;
  const std::int64_t h = model.hidden_size;
  MoeSpec moe = read_local_experts(config);
  moe.layer_is_moe = llama4_moe_layers(config, model.num_layers);
  moe.num_moe_layers = std::count(moe.layer_is_moe.begin(), moe.layer_is_moe.end(), true);
  moe.num_shared_experts = 1;
  moe.shared_intermediate_size = moe.expert_intermediate_size;
  moe.score = RouterScore::sigmoid;
  moe.normalize_top_k = false;
  moe.routed_expert_params = params_product({3, h, moe.expert_intermediate_size});
  moe.shared_expert_params = moe.routed_expert_params;
  moe.router_params = params_product({moe.num_experts, h});
  model.num_dense_layers = model.num_layers - moe.num_moe_layers;
  model.dense_mlp = MlpSpec{config.positive("intermediate_size_mlp", kMaxWidth), true, false};
  model.moe = moe;
}

std::int64_t unbiased(std::int64_t in, std::int64_t out) { return params_product({in, out}); }
std::int64_t biased(std::int64_t in, std::int64_t out) { return params_sum({params_product({in, out}), out}); }

VisionSpec read_llama4_vision(const ConfigFields& vision, std::int64_t text_hidden) {
  vision.add_defaults(kLlama4VisionDefaults);
  VisionSpec v = read_vit_shape(vision, "llama4", kClipVitKeys);
  v.out_hidden_size = text_hidden;
  const std::int64_t image_size = vision.positive("image_size", kMaxWidth);
  const double shuffle = vision.number_or("pixel_shuffle_ratio", 0.5);
  const std::int64_t projector_in = vision.positive("projector_input_dim", kMaxWidth);
  const std::int64_t projector_out = vision.positive("projector_output_dim", kMaxWidth);
  const std::int64_t output_dim = vision.positive("vision_output_dim", kMaxWidth);
  if (vision.failed()) return v;
  if (!(shuffle > 0 && shuffle <= 1) || std::fmod(1.0 / shuffle, 1.0) != 0.0) {
    vision.fail("pixel_shuffle_ratio", fmt::format("{} is not 1 / a whole number", shuffle));
    return v;
  }
  // pixel_shuffle folds (1 / ratio)^2 patches into one token.
  v.spatial_merge_size = std::llround(1.0 / shuffle);
  const std::int64_t h = v.hidden_size;
  const std::int64_t side = image_size / v.patch_size;
  const std::int64_t layer_norm = norm_params(NormKind::layer_norm, h);
  const std::int64_t layer = params_sum({2 * layer_norm, params_product({4, biased(h, h)}),
                                         mlp_params(h, MlpSpec{v.intermediate_size, false, true})});
  const std::int64_t embeddings = params_sum({unbiased(params_product({v.in_channels, v.patch_size, v.patch_size}), h),
                                              h, params_product({side * side + 1, h}), 2 * layer_norm});
  // Run once per merged token: the adapter (fc1 intermediate_size -> projector_input_dim, fc2
  // projector_output_dim -> itself) and the projector to the language model.
  v.merger_params = params_sum({unbiased(v.intermediate_size, projector_in), unbiased(projector_out, projector_out),
                                unbiased(output_dim, text_hidden)});
  v.params = params_sum({embeddings, params_product({v.depth, layer}), v.merger_params});
  return v;
}

}  // namespace

void read_llama4(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  if (model_type == "llama4_text") {
    read_llama4_text(config, model);
  } else {
    const ConfigFields text = config.section("text_config");
    const ConfigFields vision = config.section("vision_config");
    if (config.failed()) return;
    read_llama4_text(text, model);
    if (config.failed()) return;
    model.vision = read_llama4_vision(vision, model.hidden_size);
  }
  if (config.failed()) return;
  count_params(model);
}

}  // namespace meshplan
