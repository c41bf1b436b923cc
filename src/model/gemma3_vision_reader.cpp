// Gemma 3 vision-language models (gemma3): a SigLIP vision tower, the multimodal projector and the
// Gemma 3 language model of text_config.
// Sources: transformers models/gemma3/modeling_gemma3.py (Gemma3ForConditionalGeneration: lm_head
// tied to the language model's embed_tokens; Gemma3MultiModalProjector: mm_input_projection_weight
// vision hidden x text hidden, mm_soft_emb_norm RMSNorm over the vision hidden, an AvgPool2d of
// kernel patches_per_side / sqrt(mm_tokens_per_image)), configuration_gemma3.py (Gemma3Config:
// mm_tokens_per_image 256), models/siglip/modeling_siglip.py (SiglipVisionEmbeddings: Conv2d patch
// embedding with bias and (image_size / patch_size)^2 learned positions; SiglipEncoderLayer:
// layer_norm1, q/k/v/out_proj with bias, layer_norm2, fc1/fc2 with bias; post_layernorm;
// SiglipMultiheadAttentionPoolingHead when vision_use_head, absent = true), configuration_siglip.py
// (SiglipVisionConfig defaults).
#include <fmt/format.h>

#include "model/architectures.hpp"
#include "model/param_count.hpp"
#include "model/vit_fields.hpp"

namespace meshplan {

namespace {

// SiglipVisionConfig.__init__ defaults for the sizes a config may leave out.
constexpr std::string_view kSiglipVisionDefaults = R"({"hidden_size": 768, "intermediate_size": 3072,
  "num_hidden_layers": 12, "num_attention_heads": 12, "num_channels": 3})";

std::int64_t biased_linear(std::int64_t in, std::int64_t out) {
  return params_sum({params_product({in, out}), out});
}

/// SigLIP tower: patch embedding, positions, encoder layers, post_layernorm, optional pooling head.
std::int64_t siglip_tower_params(const VisionSpec& v, std::int64_t positions, bool head) {
  const std::int64_t h = v.hidden_size;
  const std::int64_t layer_norm = norm_params(NormKind::layer_norm, h);
  const std::int64_t mlp = mlp_params(h, MlpSpec{v.intermediate_size, false, true});
  const std::int64_t patch = biased_linear(params_product({v.in_channels, v.patch_size, v.patch_size}), h);
  const std::int64_t layer = params_sum({2 * layer_norm, params_product({4, biased_linear(h, h)}), mlp});
  // SiglipMultiheadAttentionPoolingHead: probe (h), nn.MultiheadAttention (in_proj 3h x h + 3h,
  // out_proj h x h + h), layernorm, SiglipMLP.
  const std::int64_t pooling = head ? params_sum({h, biased_linear(h, 3 * h), biased_linear(h, h), layer_norm, mlp}) : 0;
  return params_sum({patch, params_product({positions, h}), params_product({v.depth, layer}), layer_norm, pooling});
}

}  // namespace

void read_gemma3_vision(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  const ConfigFields text = config.section("text_config");
  const ConfigFields vision = config.section("vision_config");
  if (config.failed()) return;
  vision.add_defaults(kSiglipVisionDefaults);
  VisionSpec v = read_vit_shape(vision, "siglip", kClipVitKeys);
  const std::int64_t image_size = vision.positive("image_size", kMaxWidth);
  const std::int64_t tokens_per_image = config.positive_or("mm_tokens_per_image", 256, kMaxPositions);
  const bool head = vision.flag_or("vision_use_head", true);
  if (config.failed()) return;
  const std::int64_t patches_per_side = image_size / v.patch_size;
  std::int64_t tokens_per_side = 1;
  while ((tokens_per_side + 1) * (tokens_per_side + 1) <= tokens_per_image) ++tokens_per_side;
  if (image_size % v.patch_size != 0) {
    vision.fail("patch_size", fmt::format("{} does not divide image_size {}", v.patch_size, image_size));
  } else if (tokens_per_side * tokens_per_side != tokens_per_image || patches_per_side % tokens_per_side != 0) {
    config.fail("mm_tokens_per_image", fmt::format("{} is not a square grid that pools the {} x {} patches evenly",
                                                   tokens_per_image, patches_per_side, patches_per_side));
  }
  if (config.failed()) return;
  // Each image token averages kernel x kernel patches (Gemma3MultiModalProjector.avg_pool).
  v.spatial_merge_size = patches_per_side / tokens_per_side;
  read_gemma(text, "gemma3_text", model);
  if (config.failed()) return;
  v.out_hidden_size = model.hidden_size;
  v.merger_params = params_sum({params_product({v.hidden_size, model.hidden_size}), v.hidden_size});
  v.params = params_sum({siglip_tower_params(v, patches_per_side * patches_per_side, head), v.merger_params});
  model.vision = v;
  count_params(model);
}

}  // namespace meshplan
