// One MTP depth's layers as a decoder of their own (model/mtp_module.hpp), held to the published
// parameter counts of the modules it is cut from.
#include <doctest/doctest.h>

#include "model/config_reader.hpp"
#include "model/flops.hpp"
#include "model/model_presets.hpp"
#include "model/mtp_module.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
namespace {

/// The module's decoder layers: its parameters less the embedding, output layer and final norm it shares.
std::int64_t layer_params(const ModelSpec& module) {
  return module.total_params - module.params.embedding - module.params.lm_head - module.params.final_norm;
}

TEST_CASE("mtp module: Nemotron 3 Super's \"*E\", an attention layer and a latent MoE layer") {
  // The BF16 release's MTP module, 2,942,325,248 parameters (preset_counts_test.cpp), less enorm,
  // hnorm (2 x 4,096), eh_proj (2 x 4,096 x 4,096) and its final norm (4,096): 2,908,758,528 in
  // its two layers. The attention layer: q and o 4,096 x 4,096 each, k and v 4,096 x 256 each,
  // 35,651,584; the MoE layer: 512 experts of 1,024 x 2,688 x 2 (5,505,024 each), the shared
  // expert 4,096 x 5,376 x 2, the router 512 x 4,096 + 512, the latent projections 2 x 4,096 x 1,024.
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-super-120b-a12b-bf16");
  const ModelSpec module = mtp_module_model(model);
  CHECK(module.num_layers == 2);
  CHECK(module.hybrid_layer_pattern == "*E");
  CHECK(module.num_attention_layers() == 1);
  CHECK(module.num_dense_layers == 0);
  CHECK(module.moe->num_moe_layers == 1);
  CHECK(!module.linear_attention.has_value());
  CHECK(module.num_mtp_layers == 0);
  CHECK(module.params.attention == 35651584);
  CHECK(module.params.routed_experts == 512LL * 5505024);
  CHECK(module.params.shared_experts == 44040192);
  CHECK(module.params.routers == 2097664);
  CHECK(module.params.latent_projections == 8388608);
  CHECK(layer_params(module) == 2908758528LL);
  CHECK(model.params.mtp - layer_params(module) == 2 * 4096 + 2LL * 4096 * 4096 + 4096);
  // 22 of the 512 experts a token: the others' 490 x 5,505,024 are inactive.
  CHECK(module.total_params - module.active_params == 490LL * 5505024);
  // Its forward FLOPs a token are the two layers' (2 per parameter) and the scores of one full
  // attention layer (32 heads x (128 + 128) x 2 x 4,096 keys).
  const ForwardFlops flops = forward_flops_per_token(module, 4096);
  CHECK(flops.attention_projections == 2.0 * 35651584);
  CHECK(flops.routed_experts == 2.0 * 22 * 5505024);
  CHECK(flops.attention_scores == 2.0 * 4096 * 32 * 256);
}

TEST_CASE("mtp module: DeepSeek-V3's one MoE layer, and Qwen3-Next's full-attention one") {
  // DeepSeek-V3's module, 11,610,068,224 parameters (model_states_test.cpp), less 2 x 7,168 +
  // 2 x 7,168^2 + 7,168 around its layer: one MLA + MoE decoder layer of 11,507,286,272.
  Result<ModelSpec> deepseek = parse_model_config(*find_model_preset_config("deepseek-v3"), "deepseek-v3");
  REQUIRE(deepseek.ok());
  const ModelSpec module = mtp_module_model(*deepseek);
  CHECK(module.num_layers == 1);
  CHECK(module.hybrid_layer_pattern.empty());
  CHECK(module.num_dense_layers == 0);
  CHECK(module.moe->num_moe_layers == 1);
  CHECK(layer_params(module) == 11507286272LL);
  // Qwen3-Next's MTP layer (vLLM qwen3_next_mtp.py) is a full-attention layer: no Gated DeltaNet.
  Result<ModelSpec> next =
      parse_model_config(*find_model_preset_config("qwen3-next-80b-a3b-instruct"), "qwen3-next-80b-a3b-instruct");
  REQUIRE(next.ok());
  REQUIRE(next->linear_attention.has_value());
  const ModelSpec next_module = mtp_module_model(*next);
  CHECK(!next_module.linear_attention.has_value());
  CHECK(next_module.num_attention_layers() == 1);
  CHECK(next_module.params.attention == next->params.attention / 12);
  CHECK(next_module.params.linear_attention == 0);
}

TEST_CASE("mtp module: a pattern's Mamba and MLP layers keep the decoder's shapes") {
  // "M-": one Mamba-2 layer and one MLP layer of the model's sizes.
  const ModelSpec model = test::parsed_model(
      R"({"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 4, "vocab_size": 100,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96,
    "mamba_num_heads": 8, "mamba_head_dim": 16, "ssm_state_size": 16, "n_groups": 2, "conv_kernel": 4,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "moe_shared_expert_intermediate_size": 48, "hybrid_override_pattern": "M-*E",
    "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "M-"})",
      "mtp.json");
  const ModelSpec module = mtp_module_model(model);
  CHECK(module.num_layers == 2);
  CHECK(module.linear_attention->num_layers == 1);
  CHECK(module.num_attention_layers() == 0);
  CHECK(module.num_dense_layers == 1);
  CHECK(module.moe->num_moe_layers == 0);
  CHECK(module.params.linear_attention == model.linear_attention->params_per_layer);
  // The MLP: fc1 64 x 96 and fc2 96 x 64, relu2 without a gate.
  CHECK(module.params.dense_mlp == 2 * 64 * 96);
  CHECK(module.params.attention == 0);
  CHECK(module.params.routed_experts == 0);
}

}  // namespace
}  // namespace meshplan
