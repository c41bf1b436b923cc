// Gemma 2/3, GLM-4.5, DeepSeek-V3.2, Kimi K2, MiniMax-M2 and MiMo readers: exact counts against the Hugging Face
// Hub's safetensors totals (https://huggingface.co/api/models/<repo>?expand[]=safetensors), or a
// hand-worked count from the modeling code.
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

TEST_CASE("gemma3_text: Gemma-3-1B, 999,885,952 parameters (google/gemma-3-1b-it safetensors total)") {
  // embedding 262144 x 1152 (tied) = 301,989,888; per layer: q 1152 x 1024 + k, v 2 x 1152 x 256
  // + o 1024 x 1152 + q/k norms 2 x 256 = 2,949,632, GeGLU 3 x 1152 x 6912 = 23,887,872, four norms
  // 4 x 1152; 26 layers x 26,842,112 + final norm 1152.
  const ModelSpec model = preset_model("gemma-3-1b-it");
  CHECK(model.total_params == 999885952);
  CHECK(model.tie_word_embeddings);
  CHECK(model.norm_params_per_layer == 4 * 1152);
  // sliding_window_pattern 6: layers 5, 11, 17, 23 global, the other 22 slide over 512 tokens.
  CHECK(model.attention.num_sliding_layers == 22);
  CHECK(model.attention.sliding_window == 512);
}

TEST_CASE("gemma2: Gemma-2-2B, 2,614,341,888 parameters (google/gemma-2-2b-it safetensors total)") {
  // Config shapes of google/gemma-2-2b-it. Embedding 256000 x 2304 = 589,824,000 (tied); per layer
  // attention 3 x 4,718,592 (q, k+v, o), GeGLU 3 x 2304 x 9216 = 63,700,992, four norms 9216;
  // 26 x 77,865,984 + 2304. No q/k norms in Gemma 2; every other layer slides (4096).
  const ModelSpec model = parsed_model(R"({"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"],
    "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26, "num_attention_heads": 8,
    "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 256000, "sliding_window": 4096,
    "max_position_embeddings": 8192})", "gemma-2-2b.json");
  CHECK(model.total_params == 2614341888);
  CHECK(!model.attention.qk_norm);
  CHECK(model.attention.num_sliding_layers == 13);
}

TEST_CASE("glm4_moe: GLM-4.5-Air, 106,852,251,264 + MTP, the Hub's 110,468,824,832 adds its duplicated tables") {
  // Independent counts (Hub safetensors totals): PrimeIntellect/INTELLECT-3 (GLM-4.5-Air layers,
  // no MTP) 106,852,251,264; zai-org/GLM-4.5-Air 110,468,824,832, whose MTP layer also stores its
  // own copies of the embedding and the output head (vLLM glm4_moe_mtp.py: embed_tokens,
  // shared_head.head): 106,852,251,264 + 2,375,059,584 MTP + 2 x 151552 x 4096 = 110,468,824,832.
  const ModelSpec model = preset_model("glm-4.5-air");
  CHECK(model.total_params == 106852251264);
  CHECK(model.params.mtp == 2375059584);
  CHECK(model.total_params + model.params.mtp + model.params.embedding + model.params.lm_head == 110468824832);
  // Active: total - 45 MoE layers x (128 - 8) x 3 x 4096 x 1408.
  CHECK(model.active_params == 106852251264 - 45LL * 120 * 17301504);
  CHECK(model.moe->num_moe_layers == 45);
  CHECK(model.attention.qkv_bias);
  CHECK(!model.attention.o_bias);
}

TEST_CASE("deepseek_v32: the lightning indexer adds 13,959,424 parameters per layer to DeepSeek-V3") {
  // DeepSeek-V3.2-Exp config = DeepSeek-V3's shapes + index_n_heads 64, index_head_dim 128
  // (inference/model.py Indexer): wq_b 1536 x 64 x 128 = 12,582,912, wk 7168 x 128 = 917,504,
  // k_norm (LayerNorm) 2 x 128, weights_proj 7168 x 64 = 458,752.
  std::string v3(*find_model_preset_config("deepseek-v3"));
  const ModelSpec base = parsed_model(v3, "deepseek-v3");
  const std::string key = "\"model_type\": \"deepseek_v3\"";
  const std::size_t at = v3.find(key);
  REQUIRE(at != std::string::npos);
  v3.replace(at, key.size(), R"("model_type": "deepseek_v32", "index_n_heads": 64, "index_head_dim": 128)");
  const ModelSpec model = parsed_model(v3, "deepseek-v32.json");
  CHECK(model.model_type == "deepseek_v32");
  CHECK(model.total_params - base.total_params == 61 * 13959424LL);
  CHECK(model.params.mtp - base.params.mtp == 13959424);
}

TEST_CASE("kimi_k2: Kimi-K2-Instruct, 1,026,408,232,448 parameters (the published checkpoint count)") {
  // Config shapes of moonshotai/Kimi-K2-Instruct (DeepSeek-V3 layers under model_type kimi_k2: 64
  // heads, 384 routed experts, one dense layer, no MTP). Independent count: 1,026,408,232,448, the
  // parameter count public records give for the checkpoint (e.g. Fireworks' model record,
  // paramCount); the Hub's safetensors total of the FP8 checkpoint is 1,026,408,235,864 (docs/tour/
  // model.md: 3,416 = 61 x 56 more, not explained by the block scales or the modeling code). By hand:
  //   embedding + head 2 x 163840 x 7168                                    =     2,348,810,240
  //   MLA per layer: q_a 7168 x 1536 + norm 1536 + q_b 1536 x 64 x 192 + kv_a 7168 x 576 + norm 512
  //     + kv_b 512 x 64 x 256 + o 64 x 128 x 7168 = 101,124,096; norms 14,336
  //   layer 0 dense: + 3 x 7168 x 18432                                     =       497,500,160
  //   60 MoE layers: + 384 x 44,040,192 experts + shared 44,040,192 + router 384 x 7168 + 384
  //     = 60 x 17,059,365,248                                               = 1,023,561,914,880
  //   final norm 7168
  const ModelSpec model = parsed_model(R"({"architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2",
    "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
    "num_attention_heads": 64, "num_key_value_heads": 64, "n_routed_experts": 384, "n_shared_experts": 1,
    "num_experts_per_tok": 8, "first_k_dense_replace": 1, "moe_layer_freq": 1, "n_group": 1, "topk_group": 1,
    "topk_method": "noaux_tc", "scoring_func": "sigmoid", "norm_topk_prob": true, "routed_scaling_factor": 2.827,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "vocab_size": 163840, "tie_word_embeddings": false, "num_nextn_predict_layers": 0,
    "max_position_embeddings": 131072, "rope_theta": 50000.0})", "kimi-k2-instruct.json");
  CHECK(model.model_type == "kimi_k2");
  CHECK(model.total_params == 1026408232448);
  CHECK(model.moe->num_moe_layers == 60);
  CHECK(model.params.mtp == 0);
  // Active: total - 60 x (384 - 8) x 44,040,192 = 32,862,546,688 (Moonshot: "32B activated").
  CHECK(model.active_params == 1026408232448 - 60LL * 376 * 44040192);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("seed_oss: Seed-OSS-36B, 36,151,104,512 parameters (ByteDance-Seed/Seed-OSS-36B-Instruct total)") {
  // embedding + untied head 2 x 155136 x 5120 = 1,588,592,640; per layer: q 5120 x 10240 + bias,
  // k, v 2 x 5120 x 1024 + biases, o 10240 x 5120 without bias (attention_out_bias false)
  // = 115,355,648; SwiGLU 3 x 5120 x 27648 = 424,673,280; norms 10240; 64 layers + final 5120.
  Result<ModelSpec> model =
      parse_model_config(*find_model_preset_config("seed-oss-36b-instruct"), "seed-oss-36b-instruct");
  REQUIRE(model.ok());
  CHECK(model->total_params == 36151104512);
  CHECK(model->attention.qkv_bias);
  CHECK(!model->attention.o_bias);
}

TEST_CASE("minimax_m2: MiniMax-M2, 228,689,764,864 parameters by hand (the card's 230 B, 10 B active)") {
  // MiniMaxAI/MiniMax-M2's config.json: hidden 3072, 62 layers, 48 heads of 128, 8 kv heads, every
  // layer a MoE of 256 experts top-8 of 1536 with sigmoid routing and a per-expert bias, no shared
  // expert, qk_norm_type per_layer, vocab 200064 untied; its 3 MTP modules are not in the HF model.
  // By hand (transformers modeling_minimax_m2.py):
  //   attention q, o 2 x 3072 x 6144 + k, v 2 x 3072 x 1024 + q_norm 6144 + k_norm 1024 = 44,047,360
  //   MoE 256 x 3 x 3072 x 1536 + gate 256 x 3072 + bias 256 = 3,624,665,344
  //   62 x (44,047,360 + 3,624,665,344 + 2 x 3072) + final norm 3072 = 227,460,571,648
  //   + embedding and head 2 x 200064 x 3072 = 228,689,764,864 (the card's "230 B")
  //   active: total - 62 x 248 x 14,155,776 = 11,030,553,088; less both tables 9,801,359,872 ("10 B")
  const std::string config = R"({"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2",
    "hidden_size": 3072, "intermediate_size": 1536, "num_hidden_layers": 62, "num_attention_heads": 48,
    "num_key_value_heads": 8, "head_dim": 128, "rotary_dim": 64, "num_local_experts": 256,
    "num_experts_per_tok": 8, "shared_intermediate_size": 0, "scoring_func": "sigmoid",
    "use_routing_bias": true, "use_qk_norm": true, "qk_norm_type": "per_layer", "vocab_size": 200064,
    "tie_word_embeddings": false, "max_position_embeddings": 196608, "num_mtp_modules": 3,
    "use_mtp": true})";
  const ModelSpec model = parsed_model(config, "minimax-m2.json");
  CHECK(model.attention.head_dim == 128);
  CHECK(model.moe->num_moe_layers == 62);
  CHECK(model.total_params == 228689764864);
  CHECK(model.active_params == 11030553088);
  CHECK(model.active_params - model.params.embedding - model.params.lm_head == 9801359872);
  // qk_norm_type per_head: a norm of head_dim for q and for k, as Qwen3's.
  std::string per_head = config;
  per_head.replace(per_head.find("per_layer"), 9, "per_head");
  CHECK(parsed_model(per_head, "minimax-m2.json").total_params == 228689764864 - 62 * (6144 + 1024 - 2 * 128));
}

TEST_CASE("mimo: a Qwen2 decoder and its MTP modules, counted by hand from modeling_mimo.py (MiMo-7B's shape)") {
  // verl's examples/mtp_trainer scripts train XiaomiMiMo/MiMo-7B-RL (model_type mimo). Embedding and
  // untied LM head 151680 x 4096 = 621,281,280 each; per layer q 4096 x 4096 + 4096, k and v
  // 4096 x 1024 + 1024 each, o 4096 x 4096 = 41,949,184, SwiGLU 3 x 4096 x 11008 = 135,266,304, two
  // norms 8192: 177,223,680 x 36 = 6,380,052,480; final norm 4096: 7,622,619,136. An MTP module adds
  // token_layernorm, hidden_layernorm and final_layernorm (3 x 4096), input_proj 8192 x 4096 =
  // 33,554,432 and a decoder layer (177,223,680): 210,790,400, shared embedding and LM head.
  const std::string config = R"({"architectures": ["MiMoForCausalLM"], "model_type": "mimo", "hidden_act": "silu",
    "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 36, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151680, "tie_word_embeddings": false,
    "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 640000, "sliding_window": 32768,
    "use_sliding_window": false, "max_window_layers": 36, "attention_bias": true, "torch_dtype": "bfloat16",
    "num_nextn_predict_layers": 1})";
  const ModelSpec model = parsed_model(config, "mimo-7b");
  CHECK(model.total_params == 7622619136);
  CHECK(model.attention.qkv_bias);
  CHECK(model.attention.sliding_window == 0);  // use_sliding_window false (Qwen2Config)
  CHECK(model.num_mtp_layers == 1);
  CHECK(model.params.mtp == 210790400);
}

}  // namespace meshplan
