// Llama 4 (llama4, llama4_text): MoE layers with a shared expert interleaved with dense ones,
// chunked attention on the RoPE layers, the vision tower and projector as their own line.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "model/config_reader.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

namespace {

/// The Scout preset's config with `from` replaced by `to` (REQUIREd to occur).
std::string scout_with(const std::string& from, const std::string& to) {
  std::string text(*find_model_preset_config("llama-4-scout-17b-16e"));
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("llama4: Llama-4-Scout-17B-16E, 108,641,793,536 parameters (the Hub's safetensors total)") {
  // Independent count: https://huggingface.co/api/models/meta-llama/Llama-4-Scout-17B-16E-Instruct?expand[]=safetensors
  // = 108,641,793,536 (same shapes as the base model's config.json used here). By hand:
  //   text: embedding + LM head 2 x 202048 x 5120 = 2,068,971,520; 48 MoE layers x (attention
  //         q, o 2 x 5120 x 5120 + k, v 2 x 5120 x 1024 = 62,914,560; 16 experts x 3 x 5120 x 8192
  //         = 2,013,265,920; router 16 x 5120; shared expert 125,829,120; norms 10,240)
  //         = 48 x 2,202,101,760; final norm 5120                              = 107,769,861,120
  //   vision: patch 3 x 14 x 14 x 1408 = 827,904; class 1408; positions 577 x 1408 = 812,416;
  //         layernorm_pre/_post 5,632; 34 layers x 23,807,872 = 809,467,648; adapter fc1
  //         5632 x 4096 + fc2 4096 x 4096 = 39,845,888                        =     850,960,896
  //   projector 4096 x 5120                                                  =      20,971,520
  const ModelSpec model = preset_model("llama-4-scout-17b-16e");
  CHECK(model.model_type == "llama4");
  CHECK(model.total_params == 108641793536);
  CHECK(model.params.vision == 850960896 + 20971520);
  CHECK(model.vision->merger_params == 39845888 + 20971520);
  CHECK(model.vision->spatial_merge_size == 2);  // pixel_shuffle_ratio 0.5
  REQUIRE(model.moe.has_value());
  CHECK(model.moe->num_moe_layers == 48);
  CHECK(model.num_dense_layers == 0);
  CHECK(model.moe->num_shared_experts == 1);
  // Meta's "17B active": the text model minus 48 x 15 idle experts = 17,172,894,720.
  const std::int64_t text_active = model.active_params - model.params.vision;
  CHECK(text_active == 107769861120 - 48LL * 15 * 125829120);
  CHECK(std::llround(static_cast<double>(text_active) / 1e9) == 17);
  // no_rope_layers [1, 1, 1, 0] x 12: 36 RoPE layers attend within 8192-token chunks.
  CHECK(model.attention.sliding_window == 8192);
  CHECK(model.attention.num_sliding_layers == 36);
  CHECK(model.attention.chunked_window);
}

TEST_CASE("llama4: Llama-4-Maverick-17B-128E, 401,583,781,376 parameters (the published total)") {
  // Maverick's config differs from Scout's in num_local_experts 128, interleave_moe_layer_step 2
  // (moe_layers 1, 3, ..., 47) and use_qk_norm false (an L2 norm without weights either way).
  // Independent count: 401,583,781,376, the parameter count public records give for
  // meta-llama/Llama-4-Maverick-17B-128E-Instruct (its safetensors total). By hand: 24 MoE layers
  // x (62,914,560 + 128 x 125,829,120 + 128 x 5120 + 125,829,120 + 10,240) = 391,092,879,360;
  // 24 dense layers x (62,914,560 + 3 x 5120 x 16384 + 10,240) = 7,549,992,960; embedding and head
  // 2,068,971,520; final norm 5120; the same vision tower and projector 871,932,416.
  std::string config = scout_with("\"num_local_experts\": 16", "\"num_local_experts\": 128");
  const std::size_t at = config.find("\"moe_layers\"");
  REQUIRE(at != std::string::npos);
  config.replace(at, config.find(']', at) + 1 - at, "\"moe_layers\": null");
  config.replace(config.find("\"interleave_moe_layer_step\": 1"), 30, "\"interleave_moe_layer_step\": 2");
  const ModelSpec model = parsed_model(config, "llama-4-maverick.json");
  CHECK(model.total_params == 401583781376);
  CHECK(model.moe->num_moe_layers == 24);
  CHECK(model.num_dense_layers == 24);
  CHECK(model.moe->layer_is_moe[1]);
  CHECK_FALSE(model.moe->layer_is_moe[0]);
  CHECK(model.dense_mlp.intermediate_size == 16384);
}

TEST_CASE("llama4_text: the language model alone, Llama4TextConfig's defaults fill what is left out") {
  // Only the shape keys of a tiny text model; the default no_rope_layer_interval 4 makes layers
  // 0, 1, 2 chunked and layer 3 NoPE; interleave_moe_layer_step 1: all 4 MoE.
  // Per layer: attention q, o 2 x 64 x 64 + k, v 2 x 64 x 32 = 12,288; 4 experts x 3 x 64 x 32
  // = 24,576; router 256; shared 6,144; norms 128 -> 43,392. Embedding + head 2 x 100 x 64.
  const ModelSpec model = parsed_model(R"({"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32,
    "intermediate_size_mlp": 128, "num_local_experts": 4})", "tiny-llama4.json");
  CHECK(model.total_params == 4 * 43392 + 2 * 100 * 64 + 64);
  CHECK(model.attention.num_sliding_layers == 3);
  CHECK(model.attention.sliding_window == 8192);
  CHECK(model.active_params == model.total_params - 4 * 3 * 6144);
}

TEST_CASE("llama4: a MoE layer index beyond the layers is refused with its key") {
  const std::string config = R"({"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 2,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "moe_layers": [0, 5]})";
  Result<ModelSpec> model = parse_model_config(config, "bad.json");
  REQUIRE_FALSE(model.ok());
  CHECK(model.error().key == "moe_layers");
}

}  // namespace meshplan
