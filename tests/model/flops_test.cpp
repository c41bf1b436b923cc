// FLOPs per token against Megatron's closed form and hand-worked attention terms.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "model/config_reader.hpp"
#include "model/flops.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

TEST_CASE("GPT-2 training FLOPs match 72*L*h^2*(1 + s/(6h) + V/(12*L*h)) (Narayanan et al. 2021 Eq. 3)") {
  Result<ModelSpec> model = parse_model_config(*find_model_preset_config("gpt2"), "gpt2");
  REQUIRE(model.ok());
  const double layers = 12, h = 768, s = 1024, vocab = 50257;
  const double megatron = 72 * layers * h * h * (1 + s / (6 * h) + vocab / (12 * layers * h));  // 8.544e8
  // The closed form has no biases or norms; they add 0.06% here.
  CHECK(train_flops_per_token(*model, 1024) == test::approx(megatron).epsilon(0.001));
  CHECK(train_flops_per_token(*model, 1024) > megatron);
}

TEST_CASE("sliding-window layers score min(seq, window) keys") {
  // 2 layers, 2 heads of 4, layer 0 slides with window 128. At seq 1024 the score FLOPs are
  // 2 x (1024 + 128) keys x 2 heads x (4 + 4) = 36864; at seq 64 the window does not bite:
  // 2 x (64 + 64) x 2 x 8 = 4096.
  Result<ModelSpec> model = parse_model_config(R"({"model_type": "gpt_oss", "hidden_size": 8,
    "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
    "intermediate_size": 4, "num_local_experts": 2, "num_experts_per_tok": 1, "vocab_size": 10,
    "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"]})", "tiny.json");
  REQUIRE(model.ok());
  CHECK(forward_flops_per_token(*model, 1024).attention_scores == test::approx(36864));
  CHECK(forward_flops_per_token(*model, 64).attention_scores == test::approx(4096));
}

TEST_CASE("linear-attention layers: a fixed state per token, only the full layers grow with the context") {
  // Qwen3-Next: 12 full layers x 2 x s x 16 heads x (256 + 256), plus 36 GDN layers x
  // 5 x 32 value heads x 128 x 128 (verl flops_counter.py): at s = 4096 that is
  // 805,306,368 + 94,371,840; at s = 8192 only the first term doubles.
  Result<ModelSpec> model = parse_model_config(*find_model_preset_config("qwen3-next-80b-a3b-instruct"), "q3n");
  REQUIRE(model.ok());
  CHECK(forward_flops_per_token(*model, 4096).attention_scores == test::approx(805306368.0 + 94371840.0));
  CHECK(forward_flops_per_token(*model, 8192).attention_scores == test::approx(2 * 805306368.0 + 94371840.0));
  // Projections: 2 x (gated attention + Gated DeltaNet parameters) = 2 x 1,541,026,560.
  CHECK(forward_flops_per_token(*model, 4096).attention_projections == test::approx(3082053120.0));
}

TEST_CASE("vision FLOPs: the tower runs per patch (merge^2 per token), the mergers once per token") {
  Result<ModelSpec> model =
      parse_model_config(*find_model_preset_config("qwen2.5-vl-7b-instruct"), "qwen2.5-vl-7b-instruct");
  REQUIRE(model.ok());
  const VisionSpec& v = *model->vision;
  // Merger by hand: RMSNorm 1280 + fc1 5120^2 + 5120 + fc2 5120x3584 + 3584 = 44,574,464.
  CHECK(v.merger_params == 44574464);
  const double expected = 2.0 * (4.0 * static_cast<double>(v.params - v.merger_params) + 44574464.0);
  CHECK(forward_flops_per_token(*model, 4096).vision == test::approx(expected));
}

}  // namespace meshplan
