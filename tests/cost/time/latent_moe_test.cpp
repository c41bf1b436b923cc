// LatentMoE (Nemotron 3 Super, moe_latent_size 1024 on a hidden size of 4,096): the routed experts,
// the rows the dispatcher moves and the rows a layer keeps for the backward are latent-wide, the
// router, the shared expert and the two latent projections run on the hidden width (Megatron-core
// d98e8a64d moe_layer.py: fc1_latent_proj before dispatch_preprocess, fc2_latent_proj after the
// combine). Each figure worked by hand from the config.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"
#include "cost/time/collectives.hpp"
#include "cost/time/moe_dispatch.hpp"
#include "cost/time/parallel_comm.hpp"
#include "cost/time/time_fixtures.hpp"
#include "model/flops.hpp"
#include "model/model_presets.hpp"
#include "model/mtp_module.hpp"
#include "model/parsed_model.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {

namespace {
constexpr const char* kSuper = "nvidia-nemotron-3-super-120b-a12b-bf16";
}

TEST_CASE("latent moe: Nemotron 3 Super's FLOPs a token as Megatron-Bridge counts the latent experts") {
  // Megatron-Bridge flop_utils.py (067f987df), moe_latent_size set: the routed experts cost
  // 4 x latent x ffn x top-k a token forward (two matrices, 2 FLOPs a weight) and the two latent
  // projections 4 x h x latent: 4 x 1024 x 2688 x 22 = 242,221,056 and 4 x 4096 x 1024 =
  // 16,777,216, a MoE layer.
  const ModelSpec model = test::preset_model(kSuper);
  const ForwardFlops flops = forward_flops_per_token(model, 8192);
  CHECK(flops.routed_experts == test::approx(40.0 * 242221056));
  CHECK(flops.latent_projections == test::approx(40.0 * 16777216));
  // The router (512 x 4,096 + the expert bias) and the shared expert (2 x 4,096 x 5,376) stay on h.
  CHECK(flops.routers == test::approx(40.0 * 2 * (512.0 * 4096 + 512)));
  CHECK(flops.shared_experts == test::approx(40.0 * 2 * 2 * 4096.0 * 5376));
}

TEST_CASE("latent moe: Nemotron 3 Super's trained MTP depths in the model FLOPs, as Megatron-LM counts them") {
  // Per depth at 8,192 tokens (training.py num_floating_point_operations: the MTP layers among the
  // layers, "MTP norms and proj", logits x (1 + mtp_num_layers)): the attention layer's projections
  // 2 x 35,651,584 and scores 2 x 8,192 x 32 x (128 + 128) = 134,217,728; the MoE layer's experts
  // 242,221,056, shared expert 88,080,384, router 2 x 2,097,664, latent projections 16,777,216;
  // eh_proj 4 x 4,096^2 = 67,108,864; the output layer 2 x 131,072 x 4,096 = 1,073,741,824:
  // 1,697,645,568 a depth.
  const ModelSpec model = test::preset_model(kSuper);
  Strategy strategy;
  CHECK(mtp_forward_flops_per_token(model, strategy, 8192) == 0.0);
  strategy.train_mtp = true;
  strategy.mtp_depths = 2;
  CHECK(mtp_forward_flops_per_token(model, strategy, 8192) == test::approx(2.0 * 1697645568.0));
  const double trained = trained_flops_per_token(model, strategy, 8192);
  strategy.train_mtp = false;
  CHECK(trained - trained_flops_per_token(model, strategy, 8192) == test::approx(3.0 * 2.0 * 1697645568.0));
  // The recipes' runs: 600 TFLOP/s/GPU at 7,040 tokens/s/GPU (GB200 MXFP8, 26.08), the summary's
  // own count, 85.2 GFLOP a token. The model counts each attention layer's whole s x s (Narayanan
  // et al. 2021 Eq. 3), Megatron-LM's hybrid count the causal half (attn_layer_flops: 2 x sum(L^2) x
  // h x p): 10 attention layers (8 and the two depths') x 2 x 8,192 x 4,096 x 3 passes more. Less
  // that, the model's count is within 1% of the summary's.
  const double causal_half = 10.0 * 2 * 8192 * 4096 * 3;
  CHECK((trained - causal_half) / (600e12 / 7040.0) == test::approx(1.0).epsilon(0.01));
}

TEST_CASE("latent moe: the dispatcher moves latent rows, a quarter of the hidden ones") {
  // The alltoall dispatcher at EP 8 on one node, TP 1, 4,096 tokens a micro-batch: each token's 22
  // rows of 1,024 bf16 values, 45,056 B (a hidden-wide row would be 180,224 B). Forward one
  // dispatch and one combine a MoE layer, 40 layers; the backward moves the same gradients back.
  const ModelSpec model = test::preset_model(kSuper);
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  strategy.moe_dispatcher = MoeDispatcher::alltoall;
  const TimeOptions options = test::simple_options();
  const StageCompute compute = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const ExpertDispatch latent_rows{4096, 1024 * 2, 512, 22, MoeDispatcher::alltoall, 0};
  const double one = expert_dispatch_seconds(latent_rows, node, GroupPlacement{8, 1},
                                             intra_node_link(node, options.constants.nvlink_efficiency),
                                             inter_node_link(node, options.constants.ep_nic_efficiency));
  CHECK(micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s ==
        test::approx(2 * 2 * 40 * one));
}

TEST_CASE("latent moe: a MoE layer keeps its routed rows latent-wide, and fc2_latent_proj's input") {
  // Nemotron 3 Super, bf16, TP 1, no recomputation, a token: the layer input and its norm's output
  // 2 x 2 B x 4,096 = 16,384 B; fc2_latent_proj's input, the combined latent row, 2 x 1,024 =
  // 2,048 B; the shared expert's up output and down input (relu2) 2 x 2 x 5,376 = 21,504 B; per
  // routed copy (22) the permuted latent row 2 x 1,024, the fp32 probability 4 and the expert's up
  // output and down input 2 x 2 x 2,688 = 12,804 B, x 22 = 281,688 B; the fp32 router logits
  // 4 x 512 = 2,048 B. 323,672 B in all.
  const ModelSpec model = test::preset_model(kSuper);
  const LayerShape moe = moe_layer_shape(model, 1.0);
  CHECK(moe.expert_hidden == 1024);
  const double s = 8192;
  CHECK(layer_activation_bytes(moe, layer_split(Strategy{}), s, s, 1, LayerRecompute(Recompute::none),
                               MemoryOptions{}) == test::approx(s * 323672.0));
}

TEST_CASE("latent moe: the latent projections are whole on every TP rank, as the router") {
  // TELinear parallel_mode "duplicated": at TP 2 each rank holds both projections of each of the
  // 40 MoE layers whole, 40 x 8,388,608 = 335,544,320 parameters, not half of them; the routed
  // experts (EP 64: 8 of 512, 5,505,024 each) are unchanged by them.
  const ModelSpec model = test::preset_model(kSuper);
  ModelSpec without = model;
  without.moe->latent_projection_params = 0;
  Strategy strategy;
  strategy.tp = 2;
  strategy.ep = 64;
  strategy.etp = 1;
  const RankParams with_latent = rank_params(model, strategy, PipelineStage::first);
  const RankParams plain = rank_params(without, strategy, PipelineStage::first);
  CHECK(with_latent.dense - plain.dense == test::approx(40.0 * 8388608));
  CHECK(with_latent.expert == test::approx(40.0 * 8 * 5505024));
  // The trained MTP module (last stage) holds one more MoE layer: its router (512 x 4,096 + 512)
  // and latent projections whole too, the rest of its 2,942,325,248 parameters (less 512 routed
  // experts) over TP 2.
  strategy.train_mtp = true;
  const RankParams last = rank_params(model, strategy, PipelineStage::last);
  strategy.train_mtp = false;
  const RankParams last_without = rank_params(model, strategy, PipelineStage::last);
  const double whole = 2097664.0 + 8388608.0;
  CHECK(last.dense - last_without.dense ==
        test::approx((2942325248.0 - 512.0 * 5505024 - whole) / 2 + whole));
  CHECK(last.expert - last_without.expert == test::approx(8.0 * 5505024));
}

TEST_CASE("latent moe: Nemotron 3 Super's MTP module, two layers, trained at the recipes' two depths") {
  // mtp_hybrid_override_pattern "*E": an attention layer and a MoE layer a depth, costed as a stage
  // of those two layers (mtp_module_model: not two of the decoder's mean layer), forward, backward
  // and recomputation, and each depth's own pass through the output layer and loss;
  // mtp_use_repeated_layer runs the one module twice.
  const ModelSpec model = test::preset_model(kSuper);
  const NodeGroup node = test::a100_node();
  const TimeOptions options = test::simple_options();
  Strategy strategy;
  strategy.ep = 8;
  const StageCompute plain = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  strategy.train_mtp = true;
  strategy.mtp_depths = 2;
  const StageCompute mtp = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const ModelSpec module = mtp_module_model(model);
  const StageCompute layers = stage_compute(module, node, mtp_module_strategy(strategy, 2), 4096, 1, options, nullptr);
  CHECK(mtp.lm_head_s == test::approx(plain.lm_head_s + 2 * (layers.layers_total() + plain.lm_head_s)));
  CHECK(mtp.lm_head_forward_s == test::approx(plain.lm_head_forward_s + 2 * (layers.layers_forward_s + plain.lm_head_forward_s)));
  // The module is the pattern's attention and MoE layer, not two of the decoder's mean layer (40 MoE,
  // 40 Mamba and 8 attention layers).
  CHECK(module.hybrid_layer_pattern == "*E");
  CHECK(module.num_layers == 2);
  CHECK(layers.layers_forward_s != test::approx(2.0 * plain.layers_forward_s / 88.0));
  // What the depths keep for the backward: per depth the module's own two layers, an attention
  // layer and a MoE layer (not the decoder's mean token mixer, 8 attention to 40 Mamba, which
  // keeps about 0.23 GB more a depth here).
  MicroBatchShape mb;
  mb.seq_tokens = 4096;
  mb.kv_tokens = 4096;
  strategy.mtp_depths = 1;
  const double one_depth = stage_activation_bytes(model, strategy, PipelineStage::last, mb, MemoryOptions{}, nullptr);
  strategy.mtp_depths = 2;
  const double two_depths = stage_activation_bytes(model, strategy, PipelineStage::last, mb, MemoryOptions{}, nullptr);
  const LayerSplit split = layer_split(strategy);
  const LayerRecompute none(Recompute::none);
  LayerShape attention_shape = dense_layer_shape(model);
  attention_shape.linear_mixer = 0;
  LayerShape mamba_shape = attention_shape;
  mamba_shape.linear_mixer = linear_mixer_bytes_per_token(*model.linear_attention);
  const double attention = layer_activation_bytes(attention_shape, split, 4096, 4096, 1, none, MemoryOptions{});
  const double mamba = layer_activation_bytes(mamba_shape, split, 4096, 4096, 1, none, MemoryOptions{});
  const double moe = layer_activation_bytes(moe_layer_shape(model, 1.0), split, 4096, 4096, 1, none, MemoryOptions{});
  // + the module's enorm / hnorm inputs and eh_proj input, 8 x 4,096 x 4,096 B.
  CHECK(two_depths - one_depth == test::approx(attention + moe + 8.0 * 4096 * 4096));
  // Each depth's MoE layer dispatches and combines too: 40 + 2 MoE layers' all-to-alls at PP 1; at
  // PP 2 a stage's 20 and the last stage's 2 spread over the 2 stages, as the output layer's time is.
  strategy.mtp_depths = 2;
  const StageCompute compute = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const double ep_mtp = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s;
  strategy.train_mtp = false;
  const double ep_plain = micro_batch_comm(model, node, strategy, 4096, 1, plain, options, nullptr).ep_s;
  CHECK(ep_plain > 0);
  CHECK(ep_mtp == test::approx(ep_plain * 42.0 / 40.0));
  strategy.pp = 2;
  const double ep_plain_pp2 = micro_batch_comm(model, node, strategy, 4096, 1, plain, options, nullptr).ep_s;
  strategy.train_mtp = true;
  const double ep_mtp_pp2 = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s;
  CHECK(ep_mtp_pp2 == test::approx(ep_plain_pp2 * 21.0 / 20.0));
  CHECK((8.0 * attention + 40.0 * mamba) / 48.0 - attention == test::approx(0.2346e9).epsilon(0.001));
}

}  // namespace meshplan
