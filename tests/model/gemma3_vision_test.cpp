// Gemma 3 vision-language models (gemma3): the SigLIP tower and the projector as their own line,
// the language model from a text_config that leaves Gemma3TextConfig's defaults out.
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

TEST_CASE("gemma3: Gemma-3-4B-it, 4,300,079,472 parameters (google/gemma-3-4b-it safetensors total)") {
  // Independent count: https://huggingface.co/api/models/google/gemma-3-4b-it?expand[]=safetensors
  // (4,300,079,472, also what public scripts assert as sum(p.numel()) of its
  // Gemma3ForConditionalGeneration). Its text_config names only hidden 2560, ffn 10240, 34 layers,
  // window 1024: heads 8, kv heads 4, head_dim 256 and vocab 262,208 are Gemma3TextConfig's defaults.
  // By hand:
  //   text: embedding 262208 x 2560 (tied) = 671,252,480; per layer q 2560 x 2048 + k, v 2 x 2560 x 1024
  //         + o 2048 x 2560 + q/k norms 512 = 15,729,152, GeGLU 3 x 2560 x 10240 = 78,643,200,
  //         four norms 10,240; 34 x 94,382,592 + final 2560                          = 3,880,263,168
  //   SigLIP: patch conv 3 x 14 x 14 x 1152 + 1152 = 678,528; positions (896/14)^2 x 1152 = 4,718,592;
  //         27 layers x (2 LayerNorms 4608 + q/k/v/o 4 x 1,328,256 + fc1 4,962,512 + fc2 4,959,360
  //         = 15,239,504); post_layernorm 2304; no pooling head                  =   416,866,032
  //   projector: 1152 x 2560 + RMSNorm 1152                                          =     2,950,272
  const ModelSpec model = preset_model("gemma-3-4b-it");
  CHECK(model.model_type == "gemma3");
  CHECK(model.total_params == 4300079472);
  REQUIRE(model.vision.has_value());
  CHECK(model.params.vision == 416866032 + 2950272);
  CHECK(model.vision->merger_params == 2950272);
  CHECK(model.vision->spatial_merge_size == 4);  // 64 x 64 patches pooled to 16 x 16 = 256 tokens
  CHECK(model.vocab_size == 262208);
  CHECK(model.attention.num_heads == 8);
  CHECK(model.attention.num_kv_heads == 4);
  CHECK(model.attention.sliding_window == 1024);
  CHECK(model.attention.num_sliding_layers == 34 - 34 / 6);  // layers 5, 11, ..., 29 global
  CHECK(model.tie_word_embeddings);
}

TEST_CASE("gemma3: Gemma-3-27B-it, 27,432,406,640 parameters (google/gemma-3-27b-it safetensors total)") {
  // Config shapes of google/gemma-3-27b-it (text_config: head_dim 128, hidden 5376, ffn 21504,
  // 32 heads, 62 layers, 16 kv heads; the same SigLIP tower). Independent count:
  // https://huggingface.co/api/models/google/gemma-3-27b-it?expand[]=safetensors = 27,432,406,640.
  // By hand: text 262208 x 5376 + 62 x (66,060,544 attention + 346,816,512 GeGLU + 21,504 norms)
  // + 5376 = 27,009,346,304; SigLIP 416,866,032; projector 1152 x 5376 + 1152 = 6,194,304.
  const std::string config = R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "mm_tokens_per_image": 256,
    "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
      "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
      "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14,
      "vision_use_head": false}})";
  const ModelSpec model = parsed_model(config, "gemma-3-27b-it.json");
  CHECK(model.total_params == 27432406640);
  CHECK(model.params.vision == 416866032 + 6194304);
}

TEST_CASE("gemma3: SigLIP's pooling head counts when vision_use_head is absent (SiglipVisionTransformer)") {
  // A 2-layer tower of width 8, ffn 16, image 4 / patch 2 (4 positions), one token per image.
  // Per layer: 2 LayerNorms 32 + q/k/v/o 4 x 72 + fc1 144 + fc2 136 = 600. Patch 3 x 2 x 2 x 8 + 8 = 104,
  // positions 32, post_layernorm 16; head: probe 8 + in_proj 8 x 24 + 24 + out_proj 72 + LayerNorm 16
  // + MLP 280 = 592; projector 8 x 16 + 8 = 136. Tower = 104 + 32 + 1200 + 16 + 592 + 136 = 2080.
  const std::string config = R"({"model_type": "gemma3", "mm_tokens_per_image": 1,
    "text_config": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "vocab_size": 10,
      "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8},
    "vision_config": {"hidden_size": 8, "intermediate_size": 16, "num_attention_heads": 2,
      "num_hidden_layers": 2, "image_size": 4, "patch_size": 2}})";
  const ModelSpec model = parsed_model(config, "tiny-gemma3.json");
  CHECK(model.params.vision == 2080);
  CHECK(model.vision->spatial_merge_size == 2);
}

TEST_CASE("gemma3: an image token grid that does not pool the patches evenly is refused") {
  const std::string config = R"({"model_type": "gemma3", "mm_tokens_per_image": 200,
    "text_config": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "vocab_size": 10},
    "vision_config": {"image_size": 896, "patch_size": 14}})";
  Result<ModelSpec> model = parse_model_config(config, "bad.json");
  REQUIRE_FALSE(model.ok());
  CHECK(model.error().key == "mm_tokens_per_image");
}

}  // namespace meshplan
