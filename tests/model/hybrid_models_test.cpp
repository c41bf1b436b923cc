// Hybrid linear-attention models (qwen3_next, qwen3_5): exact counts against the published
// checkpoint totals, and the per-layer structure read from the config's own fields.
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"
#include "model/kv_cache.hpp"
#include "model/model_presets.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

TEST_CASE("qwen3_next: Qwen3-Next-80B-A3B, 79,674,391,296 parameters as the Hub's safetensors total") {
  // Independent count: the Hugging Face safetensors total of Qwen/Qwen3-Coder-Next (same
  // config.json shapes, a checkpoint without MTP weights) is 79,674,391,296. By hand:
  //   embedding + lm_head 2 x 151936 x 2048                                =    622,329,856
  //   36 Gated DeltaNet layers x (2048 x 12288 qkvz + 2048 x 64 ba + 8192 x 4 conv
  //      + 32 dt_bias + 32 A_log + 128 norm + 4096 x 2048 out) = 36 x 33,718,464 = 1,213,864,704
  //   12 gated attention layers x (2048 x 8192 q+gate + 2 x 2048 x 512 k,v + 4096 x 2048 o
  //      + 2 x 256 q/k norm) = 12 x 27,263,488                             =    327,161,856
  //   48 MoE layers x (512 x 3 x 2048 x 512 experts + 512 x 2048 router
  //      + 3 x 2048 x 512 + 2048 shared expert and gate) = 48 x 1,614,809,088 = 77,510,836,224
  //   norms 48 x 2 x 2048 + 2048                                           =        198,656
  const ModelSpec model = preset_model("qwen3-next-80b-a3b-instruct");
  CHECK(model.model_type == "qwen3_next");
  CHECK(model.total_params == 79674391296);
  CHECK(model.params.linear_attention == 1213864704);
  CHECK(model.params.attention == 327161856);
  // Active: total - 48 x (512 - 10) x 3,145,728 = 3,874,929,408 (10 routed + 1 shared expert).
  CHECK(model.active_params == 3874929408);
  REQUIRE(model.linear_attention.has_value());
  CHECK(model.linear_attention->num_layers == 36);  // full_attention_interval 4: layers 3, 7, ..., 47 full
  CHECK(model.num_attention_layers() == 12);
  CHECK(model.moe->num_shared_experts == 1);
  CHECK(model.params.mtp == 0);  // its config declares no MTP layer
}

TEST_CASE("qwen3_next: layer_types wins over full_attention_interval, MTP from mtp_num_hidden_layers") {
  // 4 layers, listed as linear, full, linear, full (the interval would give 3 linear).
  const std::string config = R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "intermediate_size": 96, "full_attention_interval": 4, "mtp_num_hidden_layers": 1,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
    "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4,
    "layer_types": ["linear_attention", "full_attention", "linear_attention", "full_attention"]})";
  const ModelSpec model = parsed_model(config, "tiny.json");
  REQUIRE(model.linear_attention.has_value());
  CHECK(model.linear_attention->num_layers == 2);
  CHECK(!model.is_moe());
  // GDN layer: 64 x (2x16 + 2x32) qkvz + 64 x 8 ba + (2x16 + 32) x 4 conv + 8 + 8 norm + 32 x 64 out
  //   = 6144 + 512 + 256 + 8 + 8 + 2048 = 8976
  CHECK(model.linear_attention->params_per_layer == 8976);
  // Gated attention: 64 x 128 q+gate + 2 x 64 x 32 k,v + 64 x 64 o + 2 x 16 norms = 16416
  CHECK(model.params.attention == 2 * 16416);
  // MTP: layer (16416 + 2 x 64 norms + 3 x 64 x 96 MLP = 34976) + 2 x 64 + 2 x 64 x 64 + 64 = 43360
  CHECK(model.params.mtp == 43360);
  CHECK(model.total_params == 2 * 100 * 64 + 2 * 8976 + 2 * 16416 + 4 * 3 * 64 * 96 + 4 * 128 + 64);
}

TEST_CASE("qwen3_5: Qwen3.5-9B, 9,653,104,368 = language model + vision tower + MTP, the Hub's total") {
  // Independent count: the Hugging Face safetensors total of Qwen/Qwen3.5-9B is 9,653,104,368
  // (its model.safetensors.index.json total_size 19,306,216,416 bytes = 2 x that + 3,840 fp32
  // elements: A_log and the gated norm of the 24 linear layers). By hand:
  //   text: embedding + lm_head 2 x 248320 x 4096 = 2,034,237,440; 24 GDN layers x 67,403,968;
  //         8 gated attention layers x 58,720,768; 32 MLPs x 3 x 4096 x 12288; norms 266,240
  //         = 8,953,803,264
  //   MTP: (58,720,768 + 8,192 + 150,994,944) + 2 x 4096 + 2 x 4096^2 + 4096 = 243,290,624
  //   vision (Qwen3-VL tower, no deepstack): patch 1,770,624 + positions 2,654,208
  //         + 27 blocks x 15,239,504 + merger 40,119,040 = 456,010,480
  const ModelSpec model = preset_model("qwen3.5-9b");
  CHECK(model.model_type == "qwen3_5");
  CHECK(model.total_params - model.params.vision == 8953803264);
  CHECK(model.params.vision == 456010480);
  CHECK(model.params.mtp == 243290624);
  CHECK(model.total_params + model.params.mtp == 9653104368);
  CHECK(model.active_params == model.total_params);
  REQUIRE(model.linear_attention.has_value());
  CHECK(model.linear_attention->num_layers == 24);
  CHECK(model.linear_attention->state_bytes_per_element == 4);  // mamba_ssm_dtype float32
}

TEST_CASE("qwen3_5_moe: Qwen3.5-35B-A3B, 35,951,822,704 = model + vision + MTP, the Hub's total") {
  // Config facts of Qwen/Qwen3.5-35B-A3B (a public inventory of its config.json and weight names:
  // hidden 2048, 40 layers with full attention every 4th, 256 experts top-8 of ffn 512, a shared
  // expert of 512, vocab 248320, GDN 16 x 128 key / 32 x 128 value heads, gated attention 16 heads,
  // 2 kv heads of 256, one MTP layer, untied head; vision: the Qwen3.5 tower with out_hidden 2048).
  // Independent count: https://huggingface.co/api/models/Qwen/Qwen3.5-35B-A3B?expand[]=safetensors
  // = 35,951,822,704 (as public records quote it; Qwen/Qwen3.6-35B-A3B, same shapes, the same).
  // By hand from modular_qwen3_5_moe.py:
  //   embedding + head 2 x 248320 x 2048 = 1,017,118,720; 30 GDN layers x 33,718,464;
  //   10 gated attention layers x 27,263,488; 40 MoE layers x (256 x 3,145,728 + router 256 x 2048
  //   + shared 3,145,728 + its gate 2048 = 808,978,432); norms 40 x 4096 + 2048 = 34,660,610,688
  //   vision: patch 1,770,624 + positions 2,654,208 + 27 x 15,239,504 + merger (LayerNorm 2304
  //         + fc1 4608^2 + 4608 + fc2 4608 x 2048 + 2048 = 30,679,808)             = 446,571,248
  //   MTP: (27,263,488 + 4096 + 808,978,432) + 2 x 2048 + 2 x 2048^2 + 2048 = 844,640,768
  std::string types;
  for (int layer = 0; layer < 40; ++layer) {
    types += std::string(layer == 0 ? "" : ", ") + (layer % 4 == 3 ? "\"full_attention\"" : "\"linear_attention\"");
  }
  const std::string config = R"({"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
    "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40,
      "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "attn_output_gate": true,
      "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
      "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
      "mamba_ssm_dtype": "float32", "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
      "shared_expert_intermediate_size": 512, "mtp_num_hidden_layers": 1, "vocab_size": 248320,
      "tie_word_embeddings": false, "layer_types": [)" + types + R"(]},
    "vision_config": {"deepstack_visual_indexes": [], "depth": 27, "hidden_size": 1152, "in_channels": 3,
      "intermediate_size": 4304, "num_heads": 16, "num_position_embeddings": 2304, "out_hidden_size": 2048,
      "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2}})";
  const ModelSpec model = parsed_model(config, "qwen3.5-35b-a3b.json");
  CHECK(model.total_params - model.params.vision == 34660610688);
  CHECK(model.params.vision == 446571248);
  CHECK(model.total_params == 35107181936);
  CHECK(model.params.mtp == 844640768);
  CHECK(model.total_params + model.params.mtp == 35951822704);
  CHECK(model.linear_attention->num_layers == 30);
  CHECK(model.moe->num_moe_layers == 40);
  // Active: total - 40 x (256 - 8) x 3,145,728 = 3,901,560,176 (Qwen: "A3B").
  CHECK(model.active_params == 3901560176);
}

TEST_CASE("qwen3_next: bad linear-attention head counts are errors naming the key") {
  const std::string config = R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "intermediate_size": 96, "linear_num_key_heads": 3, "linear_num_value_heads": 4})";
  const Result<ModelSpec> model = parse_model_config(config, "bad.json");
  REQUIRE(!model.ok());
  CHECK(model.error().to_string().find("linear_num_value_heads") != std::string::npos);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("minimax_m1: MiniMax-M1, 70 lightning + 10 softmax layers, 456.09 B total, 45.94 B active w/o embedding") {
  // MiniMax-M1's shapes (hidden 6144, 80 layers, 64 heads of 128, 8 kv heads, 32 experts top-2 of
  // ffn 9216, vocab 200064; attn_type_list: every eighth layer softmax). By hand from
  // modular_minimax.py:
  //   lightning layer: qkv 6144 x 3 x 8192 + output_gate 6144 x 8192 + norm 8192 + out 8192 x 6144
  //     = 251,666,432; x 70 = 17,616,650,240
  //   softmax layer: q, o 2 x 6144 x 8192 + k, v 2 x 6144 x 1024 = 113,246,208; x 10 = 1,132,462,080
  //   MoE: 80 x (32 x 3 x 6144 x 9216 + 32 x 6144) = 434,881,167,360
  //   embedding + head 2 x 200064 x 6144 = 2,458,386,432; norms 80 x 2 x 6144 + 6144 = 989,184
  //   total 456,089,655,296 (the Hub safetensors total of MiniMaxAI/MiniMax-M1-40k and -80k); active = total - 80 x 30 x 169,869,312
  //   = 48,403,306,496; the card's 45.9 B leaves out both vocabulary tables: 45,944,920,064.
  std::string types;
  for (int layer = 0; layer < 80; ++layer) types += std::string(layer == 0 ? "" : ", ") + (layer % 8 == 7 ? "1" : "0");
  const std::string config = R"({"model_type": "minimax_m1", "hidden_size": 6144, "num_hidden_layers": 80,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 9216,
    "num_local_experts": 32, "num_experts_per_tok": 2, "vocab_size": 200064, "attn_type_list": [)" + types + "]}";
  const ModelSpec model = parsed_model(config, "minimax-m1.json");
  CHECK(model.linear_attention->num_layers == 70);
  CHECK(model.linear_attention->params_per_layer == 251666432);
  CHECK(model.params.linear_attention == 17616650240);
  CHECK(model.params.attention == 1132462080);
  CHECK(model.total_params == 456089655296);
  CHECK(model.active_params == 48403306496);
  CHECK(model.active_params - model.params.embedding - model.params.lm_head == 45944920064);
  // Cache per sequence at TP 1 (vLLM linear_attention_state_shape: heads x 128 x 128 per layer):
  // 70 x 64 x 128 x 128 x 2 B = 146,800,640 B of state; KV 10 x 2 x 8 x 128 x 2 B = 40,960 B per token.
  const KvCacheShape shape = kv_cache_shape(model, 2, 1);
  CHECK(shape.state_bytes_per_sequence == 146800640);
  CHECK(shape.full_bytes_per_token == 40960);
}

}  // namespace meshplan
