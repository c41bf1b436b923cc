#include <doctest/doctest.h>

#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

Strategy pipeline(int pp, int vpp = 1, int first = 0, int last = 0) {
  Strategy s;
  s.pp = pp;
  s.vpp = vpp;
  s.first_stage_layers = first;
  s.last_stage_layers = last;
  return s;
}

}  // namespace

TEST_CASE("even splits: PP x VPP divides the layers") {
  const auto counts = stage_layer_counts(32, pipeline(4, 2));
  REQUIRE(counts.has_value());
  CHECK(counts->first == 8);
  CHECK(counts->middle == 8);
  CHECK(counts->last == 8);
  CHECK_FALSE(stage_layer_counts(30, pipeline(4)).has_value());  // 30 / 4 without a first/last count
  CHECK(max_stage_layers(30, pipeline(4)) == 8);                 // ceil, for an invalid split
  CHECK(max_stage_layers(30, pipeline(1)) == 30);
}

TEST_CASE("the embedding and the loss counted as layers: Qwen3-235B's 94 layers on PP 8") {
  // verl's run_qwen3-235b_megatron_96gb.sh (b178a3cd) sets account_for_embedding_in_pipeline_split
  // and account_for_loss_in_pipeline_split: Megatron-core transformer_block.py counts 94 + 2 = 96,
  // 12 a stage, so the first and last stages build 11 decoder layers and the others 12.
  Strategy s = pipeline(8);
  CHECK_FALSE(stage_layer_counts(94, s).has_value());
  s.pipeline_counts_embedding = true;
  CHECK_FALSE(stage_layer_counts(94, s).has_value());  // 95 is not a multiple of 8
  s.pipeline_counts_loss = true;
  const auto counts = stage_layer_counts(94, s);
  REQUIRE(counts.has_value());
  CHECK(counts->first == 11);
  CHECK(counts->middle == 12);
  CHECK(counts->last == 11);
  CHECK(max_stage_layers(94, s) == 12);
}

TEST_CASE("uneven splits as verl's DeepSeek-V3 examples set them (61 layers)") {
  // examples: first 6 + last 7 on PP=8 -> 48 layers for 6 middle stages = 8 each.
  auto counts = stage_layer_counts(61, pipeline(8, 1, 6, 7));
  REQUIRE(counts.has_value());
  CHECK(counts->middle == 8);
  CHECK(max_stage_layers(61, pipeline(8, 1, 6, 7)) == 8);
  // first 4 + last 1 on PP=16 -> 56 layers for 14 stages = 4 each.
  counts = stage_layer_counts(61, pipeline(16, 1, 4, 1));
  REQUIRE(counts.has_value());
  CHECK(counts->middle == 4);
  // Only the last stage set (13 on PP=4, 61 layers): 48 for the 3 others = 16 each.
  counts = stage_layer_counts(61, pipeline(4, 1, 0, 13));
  REQUIRE(counts.has_value());
  CHECK(counts->first == 16);
  CHECK(counts->last == 13);
  // 61 - 5 - 5 = 51 does not divide among 6 middle stages.
  CHECK_FALSE(stage_layer_counts(61, pipeline(8, 1, 5, 5)).has_value());
  // With VPP 2 the middle share must split into 2 chunks: 48 / 6 = 8 = 2 x 4 is fine; 42 / 6 = 7 is not.
  CHECK(stage_layer_counts(61, pipeline(8, 2, 6, 7)).has_value());
  CHECK_FALSE(stage_layer_counts(61, pipeline(8, 2, 9, 10)).has_value());
}

TEST_CASE("the planner's balanced split takes the remainder from the first and last stages") {
  // 61 layers on PP=16: ceil(61/16) = 4 per middle stage, 64 - 61 = 3 short: the last stage
  // (LM head) gives up 2, the first 1 -> 3 + 14 x 4 + 2 = 61 (one of verl's example splits).
  Strategy s = pipeline(16);
  apply_balanced_split(s, 61);
  CHECK(s.first_stage_layers == 3);
  CHECK(s.last_stage_layers == 2);
  CHECK(stage_layer_counts(61, s).has_value());
  // 61 on PP=2: 31 + 30.
  s = pipeline(2);
  apply_balanced_split(s, 61);
  CHECK(s.first_stage_layers == 31);
  CHECK(s.last_stage_layers == 30);
  // Even splits get none.
  s = pipeline(4);
  apply_balanced_split(s, 32);
  CHECK(s.first_stage_layers == 0);
  CHECK_FALSE(s.pipeline_counts_loss);
  // Interleaved, Megatron-core wants first/last counts divisible by VPP too: 30 layers on PP 4 x
  // VPP 2 count the embedding and the loss as layers instead (32 = 8 chunks of 4; Megatron-Bridge's
  // 94 layers on PP 8 x VPP 3 likewise): 7 + 8 + 8 + 7 decoder layers.
  s = pipeline(4, 2);
  apply_balanced_split(s, 30);
  CHECK(s.first_stage_layers == 0);
  CHECK(s.pipeline_counts_embedding);
  CHECK(s.pipeline_counts_loss);
  const auto counted = stage_layer_counts(30, s);
  REQUIRE(counted.has_value());
  CHECK(counted->first == 7);
  CHECK(counted->middle == 8);
  CHECK(counted->last == 7);
  // Neither way for 29 layers on PP 4 x VPP 2 (29 % 8, 31 % 8): no split, rule pp.divides-layers.
  s = pipeline(4, 2);
  apply_balanced_split(s, 29);
  CHECK_FALSE(s.pipeline_counts_loss);
  CHECK_FALSE(stage_layer_counts(29, s).has_value());
  // 5 layers on PP=4: 2 per middle stage, 3 short: the last would keep 0 layers -> no split.
  s = pipeline(4);
  apply_balanced_split(s, 5);
  CHECK(s.first_stage_layers == 0);
}

TEST_CASE("mtp module strategy: the module's layers as Megatron-core's MultiTokenPredictionLayer runs them") {
  // The last stage's module, one stage of its own: no split, no BF16 edge layers, no offload, no MTP.
  Strategy s = pipeline(8, 4, 7, 5);
  s.train_mtp = true;
  s.compute_dtype = Dtype::fp8;
  s.bf16_first_layers = 1;
  s.bf16_last_layers = 14;
  s.activation_offload_layers = 3;
  s.recompute = Recompute::full;
  s.recompute_method = RecomputeMethod::uniform;
  s.recompute_num_layers = 1;
  Strategy module = mtp_module_strategy(s, 2);
  CHECK(module.pp == 1);
  CHECK(module.vpp == 1);
  CHECK(module.first_stage_layers == 0);
  CHECK(module.bf16_first_layers + module.bf16_last_layers == 0);
  CHECK(module.activation_offload_layers == 0);
  CHECK_FALSE(module.train_mtp);
  CHECK(module.compute_dtype == Dtype::fp8);  // get_fp8_context(config): the global fp8 context
  // Full uniform recompute checkpoints a depth whole: its 2 layers one chunk.
  CHECK(module.recompute == Recompute::full);
  CHECK(module.recompute_num_layers == 2);
  // "recompute_method == 'block' is not supported for MTP yet. Skipping recompute."
  s.recompute_method = RecomputeMethod::block;
  CHECK(mtp_module_strategy(s, 2).recompute == Recompute::none);
  // "currently ignoring FP4 in MTP layers": BF16 under NVFP4.
  s.compute_dtype = Dtype::fp4;
  CHECK(mtp_module_strategy(s, 2).compute_dtype == Dtype::bf16);
}

}  // namespace meshplan
