// Nemotron-H / Nemotron 3 (nemotron_h): layers of one sublayer each, read from
// hybrid_override_pattern; the FLOPs, the engine's recurrent state and the training activations of
// their Mamba-2 layers, each worked by hand from the config and the frameworks' own shapes.
#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "cost/time/mamba_kernels.hpp"
#include "model/config_reader.hpp"
#include "model/flops.hpp"
#include "model/kv_cache.hpp"
#include "parsed_model.hpp"

namespace meshplan {

using test::parsed_model;
using test::preset_model;

namespace {
constexpr const char* kNano = "nvidia-nemotron-3-nano-30b-a3b-bf16";

/// A small nemotron_h config with `pattern` and `extra` fields.
std::string tiny(const std::string& pattern, const std::string& extra = "") {
  return R"({"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": )" +
         std::to_string(pattern.size()) + R"(, "vocab_size": 100, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96, "mamba_num_heads": 8,
    "mamba_head_dim": 16, "ssm_state_size": 16, "n_groups": 2, "conv_kernel": 4,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "moe_shared_expert_intermediate_size": 48, "hybrid_override_pattern": ")" +
         pattern + "\"" + extra + "}";
}
}  // namespace

TEST_CASE("nemotron_h: the pattern's symbols give each layer its one sublayer") {
  // M-*E: a Mamba layer, an MLP layer, an attention layer, a MoE layer.
  const ModelSpec model = parsed_model(tiny("M-*E"), "tiny.json");
  CHECK(model.single_sublayer_layers());
  CHECK(model.hybrid_layer_pattern == "M-*E");
  CHECK(model.num_layers == 4);
  CHECK(model.linear_attention->num_layers == 1);
  CHECK(model.num_attention_layers() == 1);
  CHECK(model.num_mixer_layers() == 2);
  CHECK(model.num_dense_layers == 1);
  CHECK(model.moe->num_moe_layers == 1);
  CHECK(model.moe->layer_is_moe == std::vector<bool>{false, false, false, true});
  CHECK(model.sublayer_share() == 0.5);
  // One sublayer a layer: 4 sublayers (vLLM's decode all-reduces one per sublayer), where Qwen3-30B-A3B's
  // 48 layers hold 96 (attention and MoE each).
  CHECK(model.num_sublayers() == 4);
  CHECK(preset_model("qwen3-30b-a3b").num_sublayers() == 96);
  CHECK(preset_model("deepseek-v3").num_sublayers() == 122);  // 61 attention, 3 dense MLPs, 58 MoEs
  // One MLP of up + down 2 x 64 x 96 = 12,288 over the three non-MoE layers: 4,096 a layer.
  CHECK(model.params.dense_mlp == 12288);
  CHECK(model.dense_mlp_params_per_layer == 4096);
  CHECK(model.norm_params_per_layer == 64);
}

TEST_CASE("nemotron_h: a bad pattern or activation is an error naming the key") {
  for (const auto& [config, key] : {std::pair{tiny("M-*X"), "hybrid_override_pattern"},
                                    std::pair{tiny("M-*E", R"(, "num_hidden_layers": 5)"), "hybrid_override_pattern"},
                                    std::pair{tiny("M-*E", R"(, "mlp_hidden_act": "silu")"), "mlp_hidden_act"},
                                    std::pair{tiny("M-*E", R"(, "n_groups": 3)"), "n_groups"}}) {
    CAPTURE(config);
    const Result<ModelSpec> model = parse_model_config(config, "bad.json");
    REQUIRE(!model.ok());
    CHECK(model.error().to_string().find(key) != std::string::npos);
  }
  const std::string no_pattern = R"({"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4})";
  const Result<ModelSpec> missing = parse_model_config(no_pattern, "bad.json");
  REQUIRE(!missing.ok());
  CHECK(missing.error().to_string().find("hybrid_override_pattern") != std::string::npos);
}

TEST_CASE("nemotron_h: layers_block_type (transformers 5, Nemotron 3 Super and Ultra) reads as the pattern") {
  // The same four layers by name, with num_hidden_layers null as those configs write it.
  std::string config = tiny("M-*E");
  const std::string pattern_field = R"("hybrid_override_pattern": "M-*E")";
  config.replace(config.find(pattern_field), pattern_field.size(),
                 R"("layers_block_type": ["mamba", "mlp", "attention", "moe"])");
  config.replace(config.find(R"("num_hidden_layers": 4)"), 22, R"("num_hidden_layers": null)");
  const ModelSpec listed = parsed_model(config, "listed.json");
  const ModelSpec patterned = parsed_model(tiny("M-*E"), "tiny.json");
  CHECK(listed.hybrid_layer_pattern == "M-*E");
  CHECK(listed.num_layers == 4);
  CHECK(listed.total_params == patterned.total_params);
  // A name it does not know, and per-layer block sizes (not read: the experts would be miscounted),
  // are errors.
  std::string unknown = config;
  unknown.replace(unknown.find(R"("mlp")"), 5, R"("gdn")");
  const Result<ModelSpec> bad_kind = parse_model_config(unknown, "bad.json");
  REQUIRE(!bad_kind.ok());
  CHECK(bad_kind.error().to_string().find("layers_block_type") != std::string::npos);
  const Result<ModelSpec> puzzle =
      parse_model_config(tiny("M-*E", R"(, "block_configs": [{"block_type": "mamba"}])"), "bad.json");
  REQUIRE(!puzzle.ok());
  CHECK(puzzle.error().to_string().find("block_configs") != std::string::npos);
}

TEST_CASE("nemotron_h: a latent MoE and an MTP module of its own layer pattern, counted by hand") {
  // tiny's MoE with moe_latent_size 16: each of the 4 experts up + down in the latent width,
  // 2 x 16 x 32 = 1,024; the two latent projections 2 x 64 x 16 = 2,048 (no bias), whole per layer.
  const ModelSpec latent = parsed_model(tiny("M-*E", R"(, "moe_latent_size": 16)"), "latent.json");
  CHECK(latent.moe->latent_size == 16);
  CHECK(latent.moe->routed_expert_params == 1024);
  CHECK(latent.moe->latent_projection_params == 2048);
  CHECK(latent.params.latent_projections == 2048);
  CHECK(latent.expert_hidden_size() == 16);
  CHECK(parsed_model(tiny("M-*E"), "tiny.json").expert_hidden_size() == 64);
  // One MTP module of "*E" (Nemotron 3 Super's mtp_hybrid_override_pattern): enorm + hnorm 2 x 64,
  // eh_proj 2 x 64 x 64 = 8,192, the attention layer (q, o 2 x 64 x 64, k, v 2 x 64 x 32 =
  // 12,288, + its norm 64), the MoE layer (experts 4 x 1,024, shared 2 x 64 x 48 = 6,144, router
  // 4 x 64 + 4, latent 2,048: 12,548, + its norm 64), the final norm 64: 33,348.
  const std::string mtp = R"(, "moe_latent_size": 16, "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "*E")";
  const ModelSpec model = parsed_model(tiny("M-*E", mtp), "mtp.json");
  CHECK(model.num_mtp_layers == 1);
  CHECK(model.mtp_layer_pattern == "*E");
  CHECK(model.params.mtp == 33348);
  CHECK(model.total_params == latent.total_params);  // MTP apart
  // transformers 5 names the same layers in a list.
  const ModelSpec listed = parsed_model(
      tiny("M-*E", R"(, "moe_latent_size": 16, "num_nextn_predict_layers": 1, "mtp_layers_block_type": ["attention", "moe"])"),
      "listed.json");
  CHECK(listed.params.mtp == 33348);
  // MTP layers without their pattern, or of a kind the decoder lacks, are errors naming the key.
  for (const auto& [extra, key] :
       {std::pair{std::string(R"(, "num_nextn_predict_layers": 1)"), "mtp_hybrid_override_pattern"},
        std::pair{std::string(R"(, "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "*-")"),
                  "mtp_hybrid_override_pattern"}}) {
    CAPTURE(extra);
    const Result<ModelSpec> bad = parse_model_config(tiny("M*E", extra), "bad.json");
    REQUIRE(!bad.ok());
    CHECK(bad.error().to_string().find(key) != std::string::npos);
  }
  // An attention layer in the module of a decoder that has none (Mamba and MoE layers only).
  const Result<ModelSpec> no_attention = parse_model_config(
      tiny("MEME", R"(, "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "*E")"), "bad.json");
  REQUIRE(!no_attention.ok());
  CHECK(no_attention.error().to_string().find("has a '*' layer") != std::string::npos);
}

TEST_CASE("nemotron_h: Nemotron 3 Nano's FLOPs per token, by hand and beside Megatron-LM's own count") {
  // Forward at 8,192 tokens, 2 FLOPs per parameter a token uses: Mamba layers 23 x 38,742,208,
  // attention 6 x 23,396,352, the shared expert 23 x 19,955,712, six routed experts 23 x 6 x
  // 9,977,856, the routers 23 x 344,192, the output layer 131,072 x 2,688; plus the attention
  // scores counted over the whole s x s matrix, 6 x 2 x 8,192 x 32 x (128 + 128), and the scan,
  // 7 FLOPs per element of 64 heads x 64 x 128 state, x 23 (Megatron-LM training.py
  // mamba_layer_flops). Three passes.
  const ModelSpec model = preset_model(kNano);
  const double params_used = 23.0 * 38742208 + 6.0 * 23396352 + 23.0 * 19955712 + 23.0 * 6 * 9977856 +
                             23.0 * 344192 + 131072.0 * 2688;
  const double scores = 6.0 * 2 * 8192 * 32 * 256 + 23.0 * 7 * 64 * 64 * 128;
  CHECK(train_flops_per_token(model, 8192) == test::approx(3.0 * (2.0 * params_used + scores)).epsilon(1e-9));
  // Megatron-LM's hybrid_flops for the same config (training.py: its Mamba term takes the inner width
  // as 2 x hidden, 5,376, where the layer has 4,096; the scores at the causal half of s x s) gives
  // 22.28 GFLOP a token; the model's count is within 1.2% of it.
  CHECK(train_flops_per_token(model, 8192) / 22.278094848e9 == test::approx(0.989).epsilon(0.002));
}

TEST_CASE("nemotron_h: Nemotron 3 Nano's recurrent state per sequence as vLLM keeps it") {
  // vLLM's Mamba-2 state per layer: the conv state, (conv_kernel - 1) x (4,096 + 2 x 8 x 128)
  // channels in bf16 = 36,864 B, and the SSM state, 64 heads x 64 x 128 in the config's
  // mamba_ssm_cache_dtype, float32 = 2,097,152 B: 2,134,016 B, x 23 layers = 49,082,368 B. The six
  // attention layers keep 2 x 2 kv heads x 128 x 2 B = 1,024 B a token each.
  const ModelSpec model = preset_model(kNano);
  const KvCacheShape shape = kv_cache_shape(model, 2, 1);
  CHECK(shape.state_bytes_per_sequence == 49082368.0);
  CHECK(shape.full_bytes_per_token == 6.0 * 1024);
  CHECK(kv_cache_bytes_per_token(model, 2) == 6 * 1024);
  // TP 2 halves the heads and groups of both states and the kv heads of the attention layers.
  CHECK(kv_cache_shape(model, 2, 2).state_bytes_per_sequence == 49082368.0 / 2);
}

TEST_CASE("nemotron_h: what a Mamba-2 layer keeps for the backward and moves through HBM") {
  const ModelSpec model = preset_model(kNano);
  const LinearAttentionSpec& mamba = *model.linear_attention;
  // Kept (Megatron-core mamba_mixer.py around mamba_split_conv1d_scan_combined): the in_proj output
  // z, x, B, C, dt, 2 x (2 x 4,096 + 2 x 1,024 + 64) = 20,608 B, and three 4,096-wide bf16 tensors
  // (the scan's ungated output, the norm's input, out_proj's input), 24,576 B: 45,184 B a token.
  CHECK(linear_mixer_bytes_per_token(mamba) == 45184.0);
  // Moved in the forward, B a token (cost/time/mamba_kernels.cpp): layout copies 2 x 2 x 10,304 +
  // 2 x 2 x 4,096 = 57,600; conv 2 x 2 x 6,144 = 24,576; norm 16,384; cumsum 2 x 64 + 8 x 64 = 640;
  // chunk state 2 x (1,024 + 4,096) + 8 x 64 + 4 x 4,096 = 27,136 (states: 64 x 64 x 128 / 128 =
  // 4,096 a token); state passing 4 x 4,096 + 2 x 4,096 = 24,576; C B^T 2 x 2 x 1,024 + 4 x 8 x 128
  // = 8,192; chunk scan 4 x 1,024 + 2 x (8,192 + 1,024 + 4,096) + 512 + 4 x 4,096 = 47,616.
  CHECK(mamba2_kernel_bytes_per_token(mamba) == 206720.0);
  // Moved in the backward (mamba_ssm e9594ce ssd_combined.py MambaSplitConv1dScanCombinedFn.backward),
  // B a token. Rerun: conv 24,576, dt's clone 256, cumsum 640, C B^T 8,192, chunk state 27,136,
  // state passing with fp32 states out 8 x 4,096 = 32,768: 93,568. Its own: the layout copies'
  // gradients 57,600; norm 3 x 8,192 = 24,576; dz 6 x 8,192 = 49,152; dstates 2 x 5,120 + 256 +
  // 16,384 = 26,880; state passing 8 x 4,096 + 4 x 4,096 = 49,152; dx 2 x (12,288 + 1,024 + 4,096)
  // + 4 x (1,024 + 192) = 39,680; dB 2 x 9,216 + 4 x (192 + 1,024) + 8 x 1,024 = 31,488; dC 18,432
  // + 4 x (128 + 1,024) + 8,192 = 31,232; d(C B^T) 16,384 + 512 + 12 x 1,024 = 29,184; the two
  // C B^T backward GEMMs 2 x (4,096 + 4 x 2,048) = 24,576; ddA 16,384 + 4 x (192 + 1,024) = 21,248;
  // ddA's sums 10 x 256 = 2,560; cumsum backward 512 + 256 = 768; conv backward 3 x 12,288 = 36,864:
  // 424,960. In all 518,528, 2.51x the forward.
  CHECK(mamba2_backward_kernel_bytes_per_token(mamba) == 518528.0);
  LinearAttentionSpec delta_net = mamba;
  delta_net.kind = LinearAttentionKind::gated_delta_net;
  CHECK(mamba2_kernel_bytes_per_token(delta_net) == 0.0);
  CHECK(mamba2_backward_kernel_bytes_per_token(delta_net) == 0.0);
}

}  // namespace meshplan
