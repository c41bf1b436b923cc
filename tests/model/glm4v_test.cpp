// GLM-4.1V (glm4v) and GLM-4.5V (glm4v_moe): the GLM vision tower as its own line, the language
// model of text_config. Hand-worked counts from transformers' modeling_glm4v.py (the Hub totals of
// these checkpoints were not found in the searchable sources).
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

TEST_CASE("glm4v: the configuration classes' defaults (GLM-4.1V-9B-Thinking's shapes) give 10,292,777,472") {
  // Glm4vTextConfig / Glm4vVisionConfig defaults, which their docstrings describe as
  // THUDM/GLM-4.1V-9B-Thinking. By hand from modeling_glm4v.py:
  //   text: embedding + untied head 2 x 151552 x 4096 = 1,241,513,984; per layer q 4096 x 4096 + bias,
  //         k, v 2 x (4096 x 256 + 256), o 4096 x 4096 = 35,656,192; MLP 3 x 4096 x 13696 = 168,296,448;
  //         four RMSNorms 16,384; 40 x 203,969,024 + final norm 4096              = 9,400,279,040
  //   vision: Conv3d 3 x 2 x 14 x 14 x 1536 + 1536 = 1,807,872; post_conv norm 1536; positions
  //         24^2 x 1536 = 884,736; 24 blocks x (norms 3072 + qkv 1536 x 4608 + proj 1536^2 + MLP
  //         3 x 1536 x 4096 = 28,314,624); post_layernorm 1536; downsample 1536 x 4 x 4096 + 4096
  //         = 25,169,920; merger 4096^2 + LayerNorm 8192 + 3 x 4096 x 13696 = 185,081,856 = 892,498,432
  const ModelSpec model = parsed_model(R"({"model_type": "glm4v", "text_config": {}, "vision_config": {}})",
                                       "glm4v-defaults.json");
  CHECK(model.total_params - model.params.vision == 9400279040);
  CHECK(model.params.vision == 892498432);
  CHECK(model.total_params == 10292777472);
  CHECK(model.norm_params_per_layer == 4 * 4096);
  CHECK(model.attention.qkv_bias);
  CHECK_FALSE(model.attention.o_bias);
  CHECK(model.vision->merger_params == 25169920 + 185081856);
  CHECK(model.vision->spatial_merge_size == 2);
}

TEST_CASE("glm4v_moe: GLM-4.5V = the GLM-4.5-Air language model + the GLM vision tower") {
  // GLM-4.5V's text_config has GLM-4.5-Air's shapes (the glm-4.5-air preset) and its vision_config
  // differs from the defaults in the merger width, intermediate_size 10944: merger 4096^2 + 8192
  // + 3 x 4096 x 10944 = 151,265,280, so the tower is 892,498,432 - 185,081,856 + 151,265,280
  // = 858,681,856; total 106,852,251,264 + 858,681,856 = 107,710,933,120 (MTP apart).
  const std::string air(*find_model_preset_config("glm-4.5-air"));
  const std::string config = R"({"model_type": "glm4v_moe", "text_config": )" + air +
                             R"(, "vision_config": {"intermediate_size": 10944}})";
  const ModelSpec model = parsed_model(config, "glm-4.5v.json");
  const ModelSpec text = preset_model("glm-4.5-air");
  CHECK(model.params.vision == 858681856);
  CHECK(model.total_params == 106852251264 + 858681856);
  CHECK(model.active_params == text.active_params + 858681856);
  CHECK(model.params.mtp == text.params.mtp);
  CHECK(model.moe->num_moe_layers == 45);
}

TEST_CASE("glm4v: a vision tower whose output width is not the language model's is refused") {
  Result<ModelSpec> model = parse_model_config(
      R"({"model_type": "glm4v", "text_config": {"hidden_size": 2048, "num_attention_heads": 16},
          "vision_config": {}})",
      "bad.json");
  REQUIRE_FALSE(model.ok());
  CHECK(model.error().key == "vision_config.out_hidden_size");
}

}  // namespace meshplan
