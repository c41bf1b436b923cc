// What a Nemotron-H layer keeps for the backward: one sublayer's activations, worked by hand from
// Nemotron 3 Nano's shapes (h 2,688; bf16, TP 1, no recomputation, FlashAttention).
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {

TEST_CASE("nemotron_h activations: a Mamba, an attention and a MoE layer each keep their own sublayer's") {
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16");
  const LayerSplit split = layer_split(Strategy{});
  const MemoryOptions options;
  const LayerRecompute none(Recompute::none);
  const double s = 8192;
  // Every layer's input and its fused norm's output: 2 x 2 B x 2,688 = 10,752 B a token.
  const double norm = 4.0 * 2688;
  // The non-MoE layers hold a mixer and no MLP (29 of 29 have a mixer, none an MLP).
  LayerShape mixer = dense_layer_shape(model);
  CHECK(mixer.mixer_share == 1.0);
  CHECK(mixer.mlp_share == 0.0);
  // A Mamba layer: + 45,184 B (the in_proj output and three inner-width tensors).
  LayerShape mamba = mixer;
  mamba.linear_mixer = linear_mixer_bytes_per_token(*model.linear_attention);
  CHECK(layer_activation_bytes(mamba, split, s, s, 1, none, options) == test::approx(s * (norm + 45184.0)));
  // An attention layer: Q, K (2 B x (4,096 + 256)), V (2 x 256), the output projection's input
  // (2 x 4,096) and FlashAttention's fp32 log-sum-exp per head (4 x 32): 17,536 B.
  CHECK(layer_activation_bytes(mixer, split, s, s, 1, none, options) == test::approx(s * (norm + 17536.0)));
  // A MoE layer, no mixer: its norm (10,752 B), the shared expert's up output and down input
  // (relu2, not gated: 2 x 2 B x 3,712 = 14,848 B), and per routed copy (6 a token) the permuted
  // input 2 x 2,688, the fp32 probability 4 and the expert's up output and down input 2 x 2 x
  // 1,856 = 12,804 B, x 6 = 76,824 B; the fp32 router logits 4 x 128 = 512 B: 102,936 B.
  const LayerShape moe = moe_layer_shape(model, 1.0);
  CHECK(moe.mixer_share == 0.0);
  CHECK(layer_activation_bytes(moe, split, s, s, 1, none, options) == test::approx(s * 102936.0));
}

}  // namespace meshplan
