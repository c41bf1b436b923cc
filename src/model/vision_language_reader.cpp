// Vision-language models: a ViT tower whose merged patches feed a Qwen language model.
// Sources: transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py (Qwen2_5_VisionPatchEmbed,
// Qwen2_5_VLVisionBlock, Qwen2_5_VLPatchMerger) and models/qwen3_vl/modeling_qwen3_vl.py
// (Qwen3VLVisionPatchEmbed, pos_embed, Qwen3VLVisionBlock, Qwen3VLVisionPatchMerger,
// deepstack_merger_list); models/qwen3_5/modular_qwen3_5.py (Qwen3_5VisionConfig: the Qwen3-VL
// tower without deepstack mergers; the language model is the Qwen3-Next-style hybrid).
#include <fmt/format.h>

#include "model/architectures.hpp"
#include "model/param_count.hpp"
#include "model/vit_fields.hpp"

namespace meshplan {

namespace {

/// Linear layer with bias.
std::int64_t linear(std::int64_t in, std::int64_t out) { return params_sum({params_product({in, out}), out}); }

/// A merger: norm, fc1 (h*m^2 -> h*m^2), GELU, fc2 (h*m^2 -> out). `norm_width` is the tower
/// width (Qwen2.5-VL, Qwen3-VL final merger) or h*m^2 (Qwen3-VL deepstack: post-shuffle norm).
std::int64_t merger_params(const VisionSpec& v, NormKind norm, std::int64_t norm_width) {
  const std::int64_t merged = params_product({v.hidden_size, v.spatial_merge_size, v.spatial_merge_size});
  return params_sum({norm_params(norm, norm_width), linear(merged, merged), linear(merged, v.out_hidden_size)});
}

/// The tower's shape; a key the config leaves out takes the vision config class's default
/// (temporal_patch_size 2, spatial_merge_size 2, 3 input channels, out_hidden_size = the language
/// model's hidden_size as the released checkpoints have it).
VisionSpec read_tower_shape(const ConfigFields& vision, std::string_view kind, std::int64_t lm_hidden) {
  vision.add_defaults(fmt::format(R"({{"temporal_patch_size": 2, "spatial_merge_size": 2, "in_channels": 3,
    "in_chans": 3, "out_hidden_size": {}}})", lm_hidden));
  VisionSpec v = read_vit_shape(vision, kind, kind == "qwen2_5_vl" ? kQwen2_5VitKeys : kMergerVitKeys);
  read_patch_merge(vision, lm_hidden, v);
  return v;
}

/// Qwen2.5-VL: Conv3d patch embedding without bias; blocks with RMSNorm, biased qkv/proj and a
/// biased SwiGLU MLP; merger with an RMSNorm of the tower width.
void count_qwen2_5_vl_tower(VisionSpec& v) {
  const std::int64_t h = v.hidden_size;
  const std::int64_t patch = params_product({v.in_channels, v.temporal_patch_size, v.patch_size, v.patch_size, h});
  const std::int64_t block = params_sum({2 * norm_params(NormKind::rms_norm, h), linear(h, 3 * h), linear(h, h),
                                         mlp_params(h, MlpSpec{v.intermediate_size, true, true})});
  v.merger_params = merger_params(v, NormKind::rms_norm, h);
  v.params = params_sum({patch, params_product({v.depth, block}), v.merger_params});
}

/// Qwen3-VL: Conv3d with bias, a learned position embedding, blocks with LayerNorm, biased
/// qkv/proj and a biased GELU MLP (fc1, fc2); the final merger plus one deepstack merger
/// (post-shuffle LayerNorm) per deepstack_visual_indexes entry.
void count_qwen3_vl_tower(const ConfigFields& vision, VisionSpec& v) {
  const std::int64_t h = v.hidden_size;
  const std::int64_t positions = vision.positive("num_position_embeddings", kMaxPositions);
  v.num_deepstack_mergers = static_cast<std::int64_t>(vision.integers("deepstack_visual_indexes", v.depth).size());
  const std::int64_t patch =
      params_sum({params_product({v.in_channels, v.temporal_patch_size, v.patch_size, v.patch_size, h}), h});
  const std::int64_t block = params_sum({2 * norm_params(NormKind::layer_norm, h), linear(h, 3 * h), linear(h, h),
                                         mlp_params(h, MlpSpec{v.intermediate_size, false, true})});
  const std::int64_t merged = params_product({h, v.spatial_merge_size, v.spatial_merge_size});
  v.merger_params = params_sum({merger_params(v, NormKind::layer_norm, h),
                                params_product({v.num_deepstack_mergers,
                                                merger_params(v, NormKind::layer_norm, merged)})});
  v.params = params_sum({patch, params_product({positions, h}), params_product({v.depth, block}), v.merger_params});
}

}  // namespace

void read_vision_language(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  const bool qwen2_5 = model_type == "qwen2_5_vl";
  // Qwen2.5-VL configs keep the language model at the top level (newer ones also in
  // text_config); Qwen3-VL keeps it in text_config.
  const ConfigFields text = (qwen2_5 && !config.has("text_config")) ? config : config.section("text_config");
  const ConfigFields vision = config.section("vision_config");
  if (config.failed()) return;
  const std::int64_t lm_hidden = text.positive("hidden_size", kMaxWidth);
  const bool qwen3_5 = model_type == "qwen3_5" || model_type == "qwen3_5_moe";
  VisionSpec tower = read_tower_shape(vision, qwen2_5 ? "qwen2_5_vl" : (qwen3_5 ? "qwen3_5" : "qwen3_vl"), lm_hidden);
  if (config.failed()) return;
  if (qwen2_5) {
    count_qwen2_5_vl_tower(tower);
  } else {
    count_qwen3_vl_tower(vision, tower);
  }
  model.vision = tower;
  if (qwen3_5) {
    read_qwen3_next(text, model_type, model);
  } else if (model_type == "qwen3_vl_moe") {
    read_moe_decoder(text, model_type, model);
  } else {
    read_dense_decoder(text, model_type, model);
  }
  // tie_word_embeddings of the whole model sits at the top level when both carry it.
  if (config.has("tie_word_embeddings")) {
    model.tie_word_embeddings = config.flag_or("tie_word_embeddings", false);
    const std::int64_t mtp = model.params.mtp;
    count_params(model);
    model.params.mtp = mtp;
  }
}

}  // namespace meshplan
