// GLM-4.1V (glm4v) and GLM-4.5V (glm4v_moe): the GLM vision tower and the language model of
// text_config (GLM-4.1V: a dense GLM-4 decoder with four norms per layer; GLM-4.5V: the glm4_moe
// decoder).
// Sources: transformers models/glm4v/modeling_glm4v.py (Glm4vVisionPatchEmbed: Conv3d with bias;
// post_conv_layernorm; Glm4vVisionEmbeddings: (image_size / patch_size)^2 learned positions;
// Glm4vVisionBlock: two RMSNorms, qkv (bias = attention_bias), proj without bias, Glm4VisionMlp of
// out_hidden_size width without biases; post_layernorm; downsample: Conv2d hidden -> out_hidden
// over spatial_merge_size^2 with bias; Glm4vVisionPatchMerger: proj, post_projection_norm
// (LayerNorm), gate/up/down of intermediate_size, no biases; Glm4vTextAttention: q/k/v with bias,
// o without; Glm4vTextDecoderLayer: input, post_self_attn, post_attention and post_mlp RMSNorms;
// Glm4vTextMLP: gate_up and down), configuration_glm4v.py (defaults), models/glm4v_moe/
// modular_glm4v_moe.py (Glm4vMoeTextDecoderLayer = Glm4MoeDecoderLayer; the same vision tower).

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"
#include "model/vit_fields.hpp"

namespace meshplan {

namespace {

// Glm4vVisionConfig.__init__ defaults.
constexpr std::string_view kGlm4vVisionDefaults = R"({"depth": 24, "hidden_size": 1536, "num_heads": 12,
  "in_channels": 3, "image_size": 336, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
  "out_hidden_size": 4096, "intermediate_size": 13696})";

// Glm4vTextConfig.__init__ defaults.
constexpr std::string_view kGlm4vTextDefaults = R"({"vocab_size": 151552, "hidden_size": 4096,
  "intermediate_size": 13696, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2,
  "max_position_embeddings": 32768, "rms_norm_eps": 1e-5})";

VisionSpec read_glm4v_tower(const ConfigFields& vision, std::int64_t lm_hidden) {
  vision.add_defaults(kGlm4vVisionDefaults);
  VisionSpec v = read_vit_shape(vision, "glm4v", kMergerVitKeys);
  read_patch_merge(vision, lm_hidden, v);
  const std::int64_t image_size = vision.positive("image_size", kMaxWidth);
  const bool qkv_bias = vision.flag_or("attention_bias", false);
  if (vision.failed()) return v;
  const std::int64_t h = v.hidden_size;
  const std::int64_t out = v.out_hidden_size;
  const std::int64_t side = image_size / v.patch_size;
  const std::int64_t patch =
      params_sum({params_product({v.in_channels, v.temporal_patch_size, v.patch_size, v.patch_size, h}), h});
  const std::int64_t block = params_sum({2 * h, params_product({h, 3 * h}), qkv_bias ? 3 * h : 0, params_product({h, h}),
                                         mlp_params(h, MlpSpec{out, true, false})});
  const std::int64_t downsample =
      params_sum({params_product({h, v.spatial_merge_size, v.spatial_merge_size, out}), out});
  const std::int64_t merger = params_sum({params_product({out, out}), norm_params(NormKind::layer_norm, out),
                                          mlp_params(out, MlpSpec{v.intermediate_size, true, false})});
  // Run once per merged token: the downsample convolution and the merger.
  v.merger_params = params_sum({downsample, merger});
  v.params = params_sum({patch, h, params_product({side * side, h}), params_product({v.depth, block}), h,
                         v.merger_params});
  return v;
}

void read_glm4v_text(const ConfigFields& text, ModelSpec& model) {
  text.add_defaults(kGlm4vTextDefaults);
  read_decoder_shape(text, false, model);
  read_standard_attention(text, model);
  read_gated_mlp(text, model);
  model.norms_per_layer = 4;  // input, post_self_attn, post_attention, post_mlp
  model.attention.qkv_bias = true;
  model.attention.o_bias = false;
  count_params(model);
}

}  // namespace

void read_glm4v(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  const ConfigFields text = config.section("text_config");
  const ConfigFields vision = config.section("vision_config");
  if (config.failed()) return;
  if (model_type == "glm4v_moe") {
    read_glm4_moe(text, "glm4_moe", model);
  } else {
    read_glm4v_text(text, model);
  }
  if (config.failed()) return;
  model.vision = read_glm4v_tower(vision, model.hidden_size);
  if (config.failed()) return;
  const std::int64_t mtp = model.params.mtp;
  count_params(model);
  model.params.mtp = mtp;
}

}  // namespace meshplan
