// What a trained MTP module keeps for the backward: its own layers, each of its own kind, not the
// decoder's mean layer (Megatron-core multi_token_prediction.py MultiTokenPredictionLayer builds
// them from the module's spec), worked by hand.
#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
namespace {

/// Activation bytes of the last (only) stage, with `depths` MTP depths trained (0: none).
double stage_bytes(const ModelSpec& model, Strategy strategy, std::int64_t depths, double tokens) {
  strategy.train_mtp = depths > 0;
  strategy.mtp_depths = depths;
  MicroBatchShape mb;
  mb.seq_tokens = tokens;
  mb.kv_tokens = tokens;
  return stage_activation_bytes(model, strategy, PipelineStage::last, mb, MemoryOptions{}, nullptr);
}

TEST_CASE("MTP activations: a Nemotron-H module of a Mamba and an MLP layer keeps those two layers") {
  // h 64, 8 Mamba heads of 16, 2 groups, state 16, MLP 96 (relu2, not gated); the module "M-".
  // Per token, no TP, no recompute, 16-bit:
  //   Mamba layer: norm input 2h + in_proj input 2h = 256, the mixer's kept tensors (in_proj
  //     output 2 x (2 x 128 + 2 x 2 x 16 + 8) = 656, scan output, its gated copy and out_proj
  //     input 3 x 2 x 128 = 768) 1,424: 1,680
  //   MLP layer: norm input 2h + fc1 input 2h = 256, fc1 output 2 x 96 + fc2 input 2 x 96 = 384: 640
  //   the module's enorm, hnorm and eh_proj inputs 8h = 512
  // 2,832 B a token: 22,656 B for the 8 tokens of a depth.
  const std::string config = R"({"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "intermediate_size": 96, "mamba_num_heads": 8, "mamba_head_dim": 16, "ssm_state_size": 16,
    "n_groups": 2, "conv_kernel": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "moe_intermediate_size": 32, "moe_shared_expert_intermediate_size": 48,
    "hybrid_override_pattern": "M-*E", "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "M-"})";
  const ModelSpec model = test::parsed_model(config, "mtp.json");
  REQUIRE(model.linear_attention.has_value());
  CHECK(linear_mixer_bytes_per_token(*model.linear_attention) == 1424.0);
  const Strategy strategy;
  CHECK(stage_bytes(model, strategy, 1, 8) - stage_bytes(model, strategy, 0, 8) == 22656.0);
  // Two depths of the one module (mtp_use_repeated_layer): twice.
  CHECK(stage_bytes(model, strategy, 2, 8) - stage_bytes(model, strategy, 0, 8) == 2 * 22656.0);
  // Full recompute, "block": Megatron-core skips it for MTP ("not supported for MTP yet"), so the
  // depth keeps all of the above; the decoder's one recomputed layer is the larger working set.
  Strategy full = strategy;
  full.recompute = Recompute::full;
  full.recompute_method = RecomputeMethod::block;
  full.recompute_num_layers = 1;
  CHECK(stage_bytes(model, full, 1, 8) - stage_bytes(model, full, 0, 8) == 22656.0);
  // "uniform" checkpoints the depth whole: its layers' input (the hidden states, 2h) and the
  // embedded tokens (2h), 256 B a token, 2,048 B; the backward recomputes both layers at once:
  // 2 x 1,160 B a token (a pattern layer of the module as its mean: half a Mamba layer, 1,680, half
  // an MLP one, 640) = 18,560 B of working set, over the decoder's one recomputed layer, its largest
  // mean layer (2/3 of the 1,680-B Mamba mixer layer and 1/3 of the MLP: 1,333.3 B a token), 10,666.7 B.
  full.recompute_method = RecomputeMethod::uniform;
  CHECK(stage_bytes(model, full, 1, 8) - stage_bytes(model, full, 0, 8) ==
        test::approx(2048.0 + 18560.0 - 8.0 * (2.0 * 1680.0 + 640.0) / 3.0));
}

TEST_CASE("MTP activations: Qwen3-Next's MTP layer is a full-attention layer, not the decoder's GDN mix") {
  // TP 2, no SP, one 4096-token sequence, FlashAttention, no recompute. The decoder's 48 MoE layers
  // are 12 gated-attention and 36 GDN ones: a gated attention mixer keeps 18,496 B a token, a GDN
  // one 70,080 (gdn_activations_test.cpp), so the mean layer's mixer keeps
  // (12 x 18,496 + 36 x 70,080) / 48 = 57,184 B a token. The MTP layer (vLLM qwen3_next_mtp.py: a
  // full-attention Qwen3NextDecoderLayer) keeps the MoE layer's other tensors and attention's
  // 18,496: 4096 x (57,184 - 18,496) / 2 = 79,233,024 B less than the mean layer, plus the module's
  // enorm, hnorm and eh_proj inputs, 8 x 4096 x 2048 = 67,108,864 B.
  Result<ModelSpec> parsed =
      parse_model_config(*find_model_preset_config("qwen3-next-80b-a3b-instruct"), "qwen3-next-80b-a3b-instruct");
  REQUIRE(parsed.ok());
  ModelSpec model = *parsed;
  model.num_mtp_layers = 1;  // the release's mtp.* weights (its config.json names no count)
  Strategy strategy;
  strategy.tp = 2;
  const double decoder = stage_bytes(model, strategy, 0, 4096);
  const double mean_layer = decoder / 48.0;
  CHECK(stage_bytes(model, strategy, 1, 4096) - decoder ==
        test::approx(mean_layer - 79233024.0 + 67108864.0).epsilon(1e-12));
}

}  // namespace
}  // namespace meshplan
