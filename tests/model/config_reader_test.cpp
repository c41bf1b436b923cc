// Hand-worked parameter counts of tiny configs, one per architecture family, and the reader's
// errors for bad input (file, line and key).
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"

namespace meshplan {

namespace {

ModelSpec parse_ok(const std::string& text) {
  Result<ModelSpec> model = parse_model_config(text, "tiny.json");
  REQUIRE_MESSAGE(model.ok(), (model.ok() ? "" : model.error().to_string()));
  return std::move(model).value();
}

Error parse_error(const std::string& text) {
  const Result<ModelSpec> model = parse_model_config(text, "bad.json");
  REQUIRE_FALSE(model.ok());
  return model.error();
}

}  // namespace

TEST_CASE("tiny llama, counted by hand") {
  // hidden 8, 4 heads -> head_dim 2, 2 kv heads, ffn 16, vocab 10, 2 layers, untied.
  // Per layer: q 8x8=64, k 8x4=32, v 32, o 64 (192); two RMSNorms 16; SwiGLU 3x8x16=384 -> 592.
  // 2 layers 1184 + embedding 80 + lm_head 80 + final norm 8 = 1352.
  const ModelSpec model = parse_ok(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 10,
    "tie_word_embeddings": false})");
  CHECK(model.attention.head_dim == 2);
  CHECK(model.attention_params_per_layer == 192);
  CHECK(model.total_params == 1352);
  CHECK(model.active_params == 1352);
  CHECK(model.name == "tiny.json");
}

TEST_CASE("tiny qwen2: q/k/v bias implied by the model type, tied head") {
  // As the llama above plus biases q 8 + k 4 + v 4 = 16 per layer: (192+16+16+384) x 2 = 1216,
  // embedding 80 (head tied), final norm 8 -> 1304.
  const ModelSpec model = parse_ok(R"({"model_type": "qwen2", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 10,
    "tie_word_embeddings": true, "sliding_window": 4096, "use_sliding_window": false})");
  CHECK(model.total_params == 1304);
  CHECK(model.params.lm_head == 0);
  CHECK(model.attention.sliding_window == 0);  // use_sliding_window false: every layer full
}

TEST_CASE("tiny qwen3: head_dim from the config (not hidden/heads) and q/k norms") {
  // head_dim 4: q 8x16=128, k 8x8=64, v 64, o 128, q_norm + k_norm 8 -> 392; + norms 16 + MLP
  // 384 = 792 per layer; x 2 = 1584 + 80 + 80 + 8 = 1752.
  const ModelSpec model = parse_ok(R"({"model_type": "qwen3", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4, "intermediate_size": 16,
    "vocab_size": 10, "attention_bias": false, "tie_word_embeddings": false})");
  CHECK(model.attention_params_per_layer == 392);
  CHECK(model.total_params == 1752);
}

TEST_CASE("tiny qwen2_moe: shared expert with its gate, mlp_only_layers") {
  // MHA 4 heads of 2: attention 4x64 + bias 24 = 280; norms 16.
  // Layer 0 (MoE): 4 experts x 3x8x4 (96) = 384, router 4x8 = 32, shared 3x8x6 + gate 8 = 152.
  // Layer 1 (mlp_only_layers): SwiGLU 3x8x16 = 384.
  // Total 2x(280+16) + 568 + 384 + 80 + 80 + 8 = 1712; active = 1712 - 1 x (4-2) x 96 = 1520.
  const ModelSpec model = parse_ok(R"({"model_type": "qwen2_moe", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 16, "moe_intermediate_size": 4, "num_experts": 4,
    "num_experts_per_tok": 2, "shared_expert_intermediate_size": 6, "decoder_sparse_step": 1,
    "mlp_only_layers": [1], "vocab_size": 10, "tie_word_embeddings": false})");
  REQUIRE(model.moe.has_value());
  CHECK(model.moe->num_moe_layers == 1);
  CHECK(model.num_dense_layers == 1);
  CHECK(model.moe->shared_expert_params == 152);
  CHECK(model.total_params == 1712);
  CHECK(model.active_params == 1520);
}

TEST_CASE("tiny deepseek_v3: MLA with q_lora, first dense layer, noaux_tc bias, one MTP layer") {
  // MLA (hidden 8, 2 heads, q_lora 4, kv_lora 4, nope 2, rope 2, v 2):
  //   q_a 8x4 + q_a_norm 4 + q_b 4x2x4 = 68; kv_a 8x6 = 48; kv_a_norm 4; kv_b 4x2x4 = 32;
  //   o 2x2x8 = 32 -> 184 per layer.
  // Layer 0 dense SwiGLU 3x8x16 = 384; layer 1 MoE: 4 experts x 96 + shared 96 + router 4x8 + 4.
  // Total 2x(184+16) + 384 + 516 + 80 + 80 + 8 = 1468; active 1468 - (4-2) x 96 = 1276.
  // MTP: a MoE layer 184+16+516 + enorm/hnorm 16 + eh_proj 2x8x8 + head norm 8 = 868.
  const ModelSpec model = parse_ok(R"({"model_type": "deepseek_v3", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 2, "num_key_value_heads": 2, "q_lora_rank": 4, "kv_lora_rank": 4,
    "qk_nope_head_dim": 2, "qk_rope_head_dim": 2, "v_head_dim": 2, "intermediate_size": 16,
    "moe_intermediate_size": 4, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "topk_method": "noaux_tc", "vocab_size": 10,
    "num_nextn_predict_layers": 1, "tie_word_embeddings": false})");
  CHECK(model.attention.kind == AttentionKind::mla);
  CHECK(model.attention_params_per_layer == 184);
  CHECK(model.moe->router_params == 36);
  CHECK(model.total_params == 1468);
  CHECK(model.active_params == 1276);
  CHECK(model.params.mtp == 868);
  CHECK(model.num_mtp_layers == 1);
}

TEST_CASE("tiny gpt_oss: sinks, biases everywhere, expert and router biases, alternating window") {
  // hidden 8, 2 heads of 4, 1 kv head: q 8x8 + k 8x4 + v 8x4 + o 8x8 = 192, biases 8+4+4+8 = 24,
  // sinks 2 -> 218. Expert: 3x8x4 + gate_up bias 8 + down bias 8 = 112; 2 experts; router 2x8 + 2.
  // Per layer 218 + 16 + 224 + 18 = 476; x 2 = 952 + 80 + 80 + 8 = 1120; active = total (top-2 of 2).
  const ModelSpec model = parse_ok(R"({"model_type": "gpt_oss", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4,
    "num_local_experts": 2, "num_experts_per_tok": 2, "vocab_size": 10, "sliding_window": 128,
    "attention_bias": true, "tie_word_embeddings": false})");
  CHECK(model.attention_params_per_layer == 218);
  CHECK(model.moe->routed_expert_params == 112);
  CHECK(model.total_params == 1120);
  CHECK(model.attention.num_sliding_layers == 1);  // no layer_types: layers 0, 2, ... slide
  // GptOssExperts: biased projections, the GLU's halves clamped to swiglu_limit (GptOssConfig: 7.0).
  CHECK(model.moe->expert_linear_bias);
  CHECK(model.moe->glu_clamp_limit == 7.0);
  const ModelSpec limited = parse_ok(R"({"model_type": "gpt_oss", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4,
    "num_local_experts": 2, "num_experts_per_tok": 2, "vocab_size": 10, "swiglu_limit": 5.5})");
  CHECK(limited.moe->glu_clamp_limit == 5.5);
}

TEST_CASE("tiny gpt2: LayerNorm with bias, learned positions, 4h GeLU MLP, tied head") {
  // wte 10x8 = 80, wpe 16x8 = 128; layer: ln_1 + ln_2 32, c_attn 8x24+24 = 216, c_proj 64+8 = 72,
  // c_fc 8x32+32 = 288, mlp c_proj 32x8+8 = 264 -> 872; ln_f 16. Total 1096.
  const ModelSpec model = parse_ok(R"({"model_type": "gpt2", "n_embd": 8, "n_layer": 1, "n_head": 2,
    "n_positions": 16, "n_inner": null, "vocab_size": 10})");
  CHECK(model.dense_mlp.intermediate_size == 32);
  CHECK(model.total_params == 1096);
}

TEST_CASE("tiny gpt_neox: rotary positions, biased attention and MLP, untied head") {
  // embed_in 80 + embed_out 80; layer: two LayerNorms 32, query_key_value 8x24+24 = 216,
  // dense 64+8 = 72, dense_h_to_4h 8x32+32 = 288, dense_4h_to_h 32x8+8 = 264 -> 872; final LN 16.
  const ModelSpec model = parse_ok(R"({"model_type": "gpt_neox", "hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 10, "max_position_embeddings": 64})");
  CHECK(model.position == PositionKind::rope);
  CHECK(model.params.position_embedding == 0);
  CHECK(model.total_params == 1048);
}

TEST_CASE("a Qwen3-VL-8B-shaped config: 8,767,123,696 parameters (published as 8.77B)") {
  // Language model = Qwen3-8B's shape (8,190,735,360). Vision tower by hand:
  //   patch Conv3d 3x2x16x16x1152 + bias 1152 = 1,770,624; positions 2304x1152 = 2,654,208;
  //   block: 2 LayerNorms 4x1152, qkv 1152x3456+3456, proj 1152^2+1152, fc1 1152x4304+4304,
  //   fc2 4304x1152+1152 = 15,239,504; x 27 = 411,466,608;
  //   merger: LN 2x1152 + fc1 4608^2+4608 + fc2 4608x4096+4096 = 40,119,040;
  //   3 deepstack mergers with LN over 4608: 3 x 40,125,952 = 120,377,856.
  //   Tower 576,388,336; model 8,767,123,696.
  const ModelSpec model = parse_ok(R"({"model_type": "qwen3_vl", "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096, "intermediate_size": 12288,
      "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 151936, "attention_bias": false},
    "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16,
      "in_channels": 3, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2,
      "num_position_embeddings": 2304, "out_hidden_size": 4096, "deepstack_visual_indexes": [8, 16, 24]}})");
  REQUIRE(model.vision.has_value());
  CHECK(model.vision->params == 576388336);
  CHECK(model.vision->num_deepstack_mergers == 3);
  CHECK(model.vision->merger_params == 40119040 + 120377856);
  CHECK(model.total_params == 8767123696);
}

TEST_CASE("the architecture is taken from `architectures` when model_type is absent") {
  const ModelSpec model = parse_ok(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 8,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 16,
    "vocab_size": 10, "sliding_window": 4096})");
  CHECK(model.model_type == "mistral");
  CHECK(model.total_params == 1352);  // the tiny llama's shape
  CHECK(model.attention.num_sliding_layers == 2);
}

TEST_CASE("bad input: one Error naming the file, the line and the key") {
  SUBCASE("truncated JSON") {
    const Error error = parse_error("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 40");
    CHECK(error.file == "bad.json");
    CHECK(error.line == 3);
    CHECK(error.message.find("malformed JSON") != std::string::npos);
  }
  SUBCASE("malformed JSON in the middle") {
    const Error error = parse_error("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 40,,\n  \"x\": 1\n}");
    CHECK(error.line == 3);
  }
  SUBCASE("a number beyond double's range (a fuzz finding): the line of the literal") {
    const Error error = parse_error("{\n  \"model_type\": \"llama\",\n  \"rope_theta\": 1E400\n}");
    CHECK(error.line == 3);
    CHECK(error.message.find("number out of range") != std::string::npos);
  }
  SUBCASE("not an object") { CHECK(parse_error("[1, 2]").message.find("object") != std::string::npos); }
  SUBCASE("wrong type") {
    const Error error = parse_error("{\"model_type\": \"llama\",\n\"hidden_size\": \"4096\"}");
    CHECK(error.key == "hidden_size");
    CHECK(error.line == 2);
    CHECK(error.message.find("integer") != std::string::npos);
  }
  SUBCASE("absurd size") {
    const Error error = parse_error("{\"model_type\": \"qwen2\",\n\n\"hidden_size\": 1e30}");
    CHECK(error.key == "hidden_size");
    CHECK(error.line == 3);
  }
  SUBCASE("zero and negative sizes") {
    CHECK(parse_error(R"({"model_type": "llama", "hidden_size": 0})").key == "hidden_size");
    CHECK(parse_error(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": -2})").key ==
          "num_hidden_layers");
  }
  SUBCASE("missing required key") {
    const Error error = parse_error(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2})");
    CHECK(error.key == "vocab_size");
    CHECK(error.message.find("missing") != std::string::npos);
  }
  const std::string shape = R"("hidden_size": 8, "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10)";
  SUBCASE("more kv heads than heads") {
    const Error error = parse_error("{\"model_type\": \"llama\", " + shape +
                                    ",\n\"num_attention_heads\": 4,\n\"num_key_value_heads\": 8}");
    CHECK(error.key == "num_key_value_heads");
    CHECK(error.line == 3);
  }
  SUBCASE("kv heads not dividing the heads") {
    const Error error =
        parse_error("{\"model_type\": \"llama\", " + shape + ", \"num_attention_heads\": 4, \"num_key_value_heads\": 3}");
    CHECK(error.key == "num_key_value_heads");
  }
  SUBCASE("heads not dividing hidden without head_dim") {
    const Error error = parse_error("{\"model_type\": \"llama\", " + shape + ", \"num_attention_heads\": 3}");
    CHECK(error.key == "num_attention_heads");
    CHECK(error.message.find("head_dim") != std::string::npos);
  }
  SUBCASE("unknown architecture names it and the supported list") {
    const Error error = parse_error("{\n\"model_type\": \"mamba\"}");
    CHECK(error.key == "model_type");
    CHECK(error.line == 2);
    CHECK(error.message.find("mamba") != std::string::npos);
    CHECK(error.message.find("deepseek_v3") != std::string::npos);
  }
  SUBCASE("a nested key is located inside its section") {
    const Error error = parse_error(R"({"model_type": "qwen3_vl", "hidden_size": 8,
      "text_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8,
                      "vocab_size": 10},
      "vision_config": {"depth": 1,
        "hidden_size": -4}})");
    CHECK(error.key == "vision_config.hidden_size");
    CHECK(error.line == 5);
  }
  SUBCASE("top-k above the expert count") {
    const Error error = parse_error(R"({"model_type": "mixtral", "hidden_size": 8, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 16, "vocab_size": 10, "num_local_experts": 2,
      "num_experts_per_tok": 4})");
    CHECK(error.key == "num_experts_per_tok");
  }
  SUBCASE("sizes that multiply past 100 trillion parameters") {
    const Error error = parse_error(R"({"model_type": "llama", "hidden_size": 1000000, "num_hidden_layers": 10000,
      "num_attention_heads": 1000, "intermediate_size": 1000000, "vocab_size": 10})");
    CHECK(error.message.find("absurd") != std::string::npos);
  }
}

}  // namespace meshplan
