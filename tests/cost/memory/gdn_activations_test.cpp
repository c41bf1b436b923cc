// Training activations of Gated DeltaNet layers: what fla's chunk_gated_delta_rule and the layer
// around it keep for the backward, in place of softmax attention's q/k/v/o (hand-worked).
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {
namespace {

ModelSpec qwen3_next() {
  Result<ModelSpec> model =
      parse_model_config(*find_model_preset_config("qwen3-next-80b-a3b-instruct"), "qwen3-next-80b-a3b-instruct");
  REQUIRE(model.ok());
  return std::move(model).value();
}

TEST_CASE("Gated DeltaNet of Qwen3-Next: 70,080 bytes per token kept by the token mixer") {
  // 16 key heads, 32 value heads, head dims 128 (q and k repeat to the 32 value heads):
  //   conv1d input (2 x 2048 + 4096 channels) x 2 B                         = 16,384
  //   fla kernel: q, k 2 x 32 x 128 x 2 B = 16,384; v 32 x 128 x 2 B = 8,192;
  //     q/k rstd 2 x 32 x 4 B = 256; g (fp32 cumsum) 32 x 4 B = 128; beta 32 x 2 B = 64;
  //     A (chunk 64) 32 x 64 x 2 B = 4,096                                  = 29,120
  //   gated RMSNorm input and gate z 2 x 4096 x 2 B                          = 16,384
  //   out_proj input 4096 x 2 B                                              =  8,192
  const ModelSpec model = qwen3_next();
  REQUIRE(model.linear_attention.has_value());
  CHECK(linear_mixer_bytes_per_token(*model.linear_attention) == 70080.0);
  LinearAttentionSpec lightning = *model.linear_attention;
  lightning.kind = LinearAttentionKind::lightning;
  CHECK(linear_mixer_bytes_per_token(lightning) == 0.0);
}

TEST_CASE("Qwen3-Next training activations: the 36 GDN layers keep their mixer's tensors, not attention's") {
  // TP 2, no SP, one 4096-token sequence, FlashAttention, no recompute, PP 1. A gated attention
  // layer's mixer keeps 2 x (4096 q + 512 k) + 2 x 512 v + 2 x 4096 o + lse 4 x 16 = 18,496 B per
  // token; a GDN layer 70,080. The other terms are equal, so reading the model with its 36 GDN
  // layers instead of 48 attention layers adds 36 x 4096 x (70,080 - 18,496) / 2 = 3,803,185,152 B.
  const ModelSpec hybrid = qwen3_next();
  ModelSpec all_attention = hybrid;
  all_attention.linear_attention.reset();
  Strategy s;
  s.tp = 2;
  const MicroBatchShape mb{4096, 4096, 1, 1};
  const MemoryOptions options;
  const double with_gdn = stage_activation_bytes(hybrid, s, PipelineStage::first, mb, options, nullptr);
  const double without = stage_activation_bytes(all_attention, s, PipelineStage::first, mb, options, nullptr);
  CHECK(with_gdn - without == test::approx(3803185152.0));
  // Full recompute (block, all 48 layers) keeps only each layer's input, the same for both; the
  // recompute working buffer is the larger layer, a GDN one: 4096 x (70,080 - 18,496) / 2 more.
  s.recompute = Recompute::full;
  s.recompute_num_layers = 48;
  s.recompute_method = RecomputeMethod::block;
  const double hybrid_recomputed = stage_activation_bytes(hybrid, s, PipelineStage::first, mb, options, nullptr);
  const double attention_recomputed =
      stage_activation_bytes(all_attention, s, PipelineStage::first, mb, options, nullptr);
  CHECK(hybrid_recomputed - attention_recomputed == test::approx(105644032.0));
}

}  // namespace
}  // namespace meshplan
