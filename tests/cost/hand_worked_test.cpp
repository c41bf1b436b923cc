// Multi-dimension cases of the cost terms, each worked by hand below from the formula's source
// (Korthikanti et al. 2022 for activations, Megatron-core for sharding, the alpha-beta model for
// collectives) on toy shapes small enough to follow: ETP, MoE with SP, MLA under TP, uniform and
// block recompute with VPP, CP in optimizer sharding, expert parameters under ETP, the tied
// embedding under PP, collective latencies. The expected values never come from the code.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "cost/time/collectives.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"

namespace meshplan {
namespace {

MemoryOptions plain() {
  MemoryOptions options;
  options.flash_attention = true;
  options.dropout = false;
  return options;
}

// s = 10 tokens, b = 1 sequence: sb = 10; h = 8. Every layer keeps 8sbh / r of replicated
// tensors (the two norm inputs, the QKV and fc1 inputs: 4 x 2sbh) = 640 / r.
LayerShape moe_toy() {
  LayerShape shape;
  shape.hidden = 8;
  shape.experts = 4;
  shape.routed_per_token = 2;  // top-2, capacity 1
  shape.expert_ffn = 16;
  return shape;
}

// The toy dense model: 8 layers, h 8, 1 head of 8 (q, k, v, o widths 8), SwiGLU ffn 16.
ModelSpec dense_toy(int layers) {
  ModelSpec model;
  model.num_layers = layers;
  model.hidden_size = 8;
  model.attention.num_heads = 1;
  model.attention.num_kv_heads = 1;
  model.attention.head_dim = 8;
  model.dense_mlp.intermediate_size = 16;
  model.dense_mlp.gated = true;
  return model;
}

}  // namespace

TEST_CASE("MoE activations: routed experts' inner tensors split by ETP, routed tokens by SP") {
  // Routed part per token: top-2 x (2h permuted input + 4-byte fp32 routing probability + 6 x 16
  // SwiGLU inner / ETP), plus 4 bytes x 4 experts of fp32 router logits. (Megatron-core >= 0.13
  // scales by the probability inside the activation: no expert output is kept for it.)
  // TP 1, ETP 1: tokens 10: 10 x 2 x (16 + 4 + 96) + 4 x 10 x 4 = 2320 + 160 = 2480; + 640 = 3120.
  CHECK(layer_activation_bytes(moe_toy(), LayerSplit{1, false, 1}, 10, 10, 1, Recompute::none, plain()) == 3120);
  // ETP 2: 10 x 2 x (16 + 4 + 48) + 160 = 1520; + 640 = 2160.
  CHECK(layer_activation_bytes(moe_toy(), LayerSplit{1, false, 2}, 10, 10, 1, Recompute::none, plain()) == 2160);
  // TP 2 with SP: replicated 640 / 2 = 320; each rank routes its 10 / 2 = 5 tokens:
  // 5 x 2 x 116 + 4 x 5 x 4 = 1160 + 80 = 1240; total 1560.
  CHECK(layer_activation_bytes(moe_toy(), LayerSplit{2, true, 1}, 10, 10, 1, Recompute::none, plain()) == 1560);
}

// The toy dense layer: h 8, one head, attention widths 8, SwiGLU ffn 16.
LayerShape dense_toy() {
  LayerShape dense;
  dense.hidden = 8;
  dense.heads = 1;
  dense.q_width = dense.k_width = dense.v_width = dense.o_width = 8;
  dense.ffn = 16;
  return dense;
}

TEST_CASE("FP8 (Transformer Engine): linear layers keep their inputs at 1 byte an element") {
  // The toy dense layer of the recompute case below (sb 10, h 8, widths 8, SwiGLU ffn 16) keeps
  // 2280 bytes in 16 bits. Under FP8: the QKV and fc1 inputs 1 x sb x h = 80 each (160 less), the
  // fc2 input 1 x 16 x sb = 160 (160 less), and the output projection keeps a quantized copy of
  // the attention output beside the one the attention kernel keeps (+ 1 x sb x 8 = 80):
  // 2280 - 160 - 160 + 80 = 2040.
  const LayerShape dense = dense_toy();
  CHECK(layer_activation_bytes(dense, LayerSplit{1, false, 1, 2.0}, 10, 10, 1, Recompute::none, plain()) == 2280);
  CHECK(layer_activation_bytes(dense, LayerSplit{1, false, 1, 1.0}, 10, 10, 1, Recompute::none, plain()) == 2040);
  // The MoE toy (3120 in 16 bits): replicated 640 - 160 = 480; each routed copy keeps its permuted
  // input at 1 byte (8 less) and its fc2 input at 1 byte (16 less): 10 x 2 x 24 = 480 less. 2480.
  CHECK(layer_activation_bytes(moe_toy(), LayerSplit{1, false, 1, 1.0}, 10, 10, 1, Recompute::none, plain()) == 2480);
  // Which strategies: Megatron-core (TE modules) under FP8; FSDP (Hugging Face modules) keeps 16 bits.
  Strategy megatron;
  megatron.compute_dtype = Dtype::fp8;
  CHECK(layer_split(megatron).linear_input_bytes == 1.0);
  Strategy fsdp = megatron;
  fsdp.backend = Backend::fsdp;
  CHECK(layer_split(fsdp).linear_input_bytes == 2.0);
  // NVFP4: Transformer Engine saves the column-wise NVFP4 copy, 4 bits and an E4M3 scale per 16.
  megatron.compute_dtype = Dtype::fp4;
  CHECK(layer_split(megatron).linear_input_bytes == 0.5625);
  megatron.compute_dtype = Dtype::bf16;
  CHECK(layer_split(megatron).linear_input_bytes == 2.0);
}

TEST_CASE("activation_func_fp8_input_store: the SwiGLU keeps its input at 1 byte an element") {
  // Megatron-core fused_bias_swiglu.py SwiGLUFunction saves input.to(torch.float8_e4m3fn) when
  // fp8_input_store. The toy dense layer (sb 10, SwiGLU ffn 16, FP8 linears: 2040 bytes) keeps the
  // 2 x 16 x 10 = 320-element SwiGLU input at 1 byte instead of 2: 2040 - 320 = 1720.
  const LayerShape dense = dense_toy();
  CHECK(layer_activation_bytes(dense, LayerSplit{1, false, 1, 1.0, 1.0}, 10, 10, 1, Recompute::none, plain()) == 1720);
  // Megatron-core only: Hugging Face modeling (FSDP) has no such option.
  Strategy megatron;
  megatron.activation_func_fp8_input_store = true;
  CHECK(layer_split(megatron).activation_input_bytes == 1.0);
  Strategy fsdp = megatron;
  fsdp.backend = Backend::fsdp;
  CHECK(layer_split(fsdp).activation_input_bytes == 2.0);
  CHECK(layer_split(Strategy{}).activation_input_bytes == 2.0);
}

TEST_CASE("selective recompute of Megatron-core modules drops what each module would keep") {
  // Megatron-core transformer_config.py recompute_modules, on the toy shapes above (sb 10, h 8).
  const auto bytes = [](const LayerShape& shape, std::uint16_t modules) {
    return layer_activation_bytes(shape, LayerSplit{1, false, 1}, 10, 10, 1, {Recompute::selective, modules},
                                  plain());
  };
  // MoE toy, 3120 without recompute (replicated 640, routed 2480).
  // "moe_act": each routed copy drops its 2 x 16 fc2 input: 10 tokens x 2 x 32 = 640 less: 2480.
  CHECK(bytes(moe_toy(), kRecomputeMoeAct) == 2480);
  // "layernorm": the MoE layer's pre-MLP norm is a module of its own, its output 2sbh = 160 goes;
  // the input norm is fused into QKV (no MLA) and stays: 2960.
  CHECK(bytes(moe_toy(), kRecomputeLayernorm) == 2960);
  // "moe": the layer keeps its 16-bit input (160, as the norm output was) and nothing routed: 640.
  CHECK(bytes(moe_toy(), kRecomputeMoe) == 640);
  CHECK(bytes(moe_toy(), kRecomputeMoe | kRecomputeLayernorm) == 480);
  // Dense toy, 2280 (replicated 640; sharded Q, K 320, V 160, o 160, LSE 40, SwiGLU 960).
  const LayerShape dense = dense_toy();
  // "mlp": the fused norm keeps the MLP's input; the fc1 input 160 and the SwiGLU tensors 960 go: 1160.
  CHECK(bytes(dense, kRecomputeMlp) == 1160);
  // "core_attn" with FlashAttention, "moe" on a dense layer: nothing stored changes.
  CHECK(bytes(dense, kRecomputeCoreAttn | kRecomputeMoe) == 2280);
  // MLA toy: the dense toy with latents of width 12 (2sb x 12 = 240): 2520.
  LayerShape mla = dense;
  mla.latent_width = 12;
  CHECK(bytes(mla, 0) == 2520);
  // "mla_up_proj": the up-projected Q, K (320) and V (160) go once core attention has run: 2040.
  CHECK(bytes(mla, kRecomputeMlaUpProj) == 2040);
  // "layernorm": MLA's input norm is its own module: its output (the down projections' input, 160) goes.
  CHECK(bytes(mla, kRecomputeLayernorm) == 2360);
  CHECK(bytes(mla, kRecomputeMlaUpProj | kRecomputeLayernorm) == 1880);
}

TEST_CASE("MLA latents are not split by TP") {
  LayerShape shape;
  shape.hidden = 8;
  shape.latent_width = 12;  // q_a + q_a_norm + kv_a + kv_a_norm outputs
  // TP 2 without SP: replicated 640 (r = 1), latents 2 x sb x 12 = 240 on every rank: 880.
  CHECK(layer_activation_bytes(shape, LayerSplit{2, false, 1}, 10, 10, 1, Recompute::none, plain()) == 880);
}

TEST_CASE("full recompute: uniform chunks round up, block recompute counts every virtual chunk") {
  // One toy layer without recompute (sb 10, h 8): replicated 640; sharded: Q, K for QK^T 2sb(8 + 8)
  // = 320, V 2sb x 8 = 160, output projection input 160, FlashAttention LSE 4 x 1 head x sb = 40,
  // SwiGLU inner 6 x 16 x sb = 960: 1640. Per layer 2280. A recomputed layer keeps its input
  // 2sbh = 160. The first stage adds 8 bytes x sb of token ids = 80.
  MicroBatchShape mb;
  mb.seq_tokens = 10;
  mb.kv_tokens = 10;
  mb.sequences = 1;
  mb.microbatches = 8;
  Strategy uniform;
  uniform.dp = 1;
  uniform.recompute = Recompute::full;
  uniform.recompute_method = RecomputeMethod::uniform;
  uniform.recompute_num_layers = 3;
  // 7 layers in chunks of 3: ceil(7 / 3) = 3 chunk inputs kept = 480, ids 80, one chunk of 3
  // layers recomputed at a time 3 x 2280 = 6840: 7400.
  CHECK(stage_activation_bytes(dense_toy(7), uniform, PipelineStage::first, mb, plain(), nullptr) == 7400);

  Strategy block = uniform;
  block.recompute_method = RecomputeMethod::block;
  block.recompute_num_layers = 1;
  block.pp = 2;
  block.vpp = 2;
  // 8 layers on PP 2: 4 per stage in 2 virtual chunks; block recompute of 1 layer per chunk
  // recomputes 1 x 2 = 2 layers (inputs 2 x 160) and stores 2 x 2280: 4880; ids 80.
  // Interleaved 1F1B keeps p x (1 + (p - 1) / (p x vpp)) = 2 x 1.25 = 2.5 micro-batches on the
  // first stage (Narayanan et al. 2021 §2.2); plus one recomputed layer 2280:
  // 2.5 x (4880 + 80) + 2280 = 14680.
  CHECK(stage_activation_bytes(dense_toy(8), block, PipelineStage::first, mb, plain(), nullptr) == 14680);
}

TEST_CASE("activation offloading keeps the resident layers' activations on the GPU, the rest in host memory") {
  // The toy dense layer keeps 2280 bytes (above); 8 layers, PP 1, token ids 80.
  MicroBatchShape mb;
  mb.seq_tokens = 10;
  mb.kv_tokens = 10;
  mb.sequences = 1;
  Strategy none;
  none.dp = 1;
  CHECK(stage_activation_bytes(dense_toy(8), none, PipelineStage::first, mb, plain(), nullptr) == 8 * 2280 + 80);
  // Megatron-core cpu_offloading_num_layers = 5 (Transformer Engine's v2 offload): the first 5
  // layers go to host once copied, 3 stay: 3 x 2280 + 80 = 6920 on the GPU, 5 x 2280 = 11400 in host memory.
  Strategy megatron = none;
  megatron.activation_offload_layers = 5;
  CHECK(stage_activation_bytes(dense_toy(8), megatron, PipelineStage::first, mb, plain(), nullptr) == 6920);
  CHECK(offloaded_activation_bytes(dense_toy(8), megatron, PipelineStage::first, mb, plain()) == 11400);
  // verl FSDP enable_activation_offload: every layer but the last goes, and the handler holds one
  // group more in flight: 2 x 2280 + 80 = 4640 on the GPU, 7 x 2280 = 15960 in host memory.
  Strategy fsdp = none;
  fsdp.backend = Backend::fsdp;
  fsdp.activation_offload_layers = kOffloadAllButLastLayer;
  CHECK(stage_activation_bytes(dense_toy(8), fsdp, PipelineStage::first, mb, plain(), nullptr) == 4640);
  CHECK(offloaded_activation_bytes(dense_toy(8), fsdp, PipelineStage::first, mb, plain()) == 15960);
  // With gradient checkpointing it is the layer inputs (160 each) that go: 2 x 160 + 80 ids + the
  // one layer recomputed at a time 2280 = 2680 (8 x 160 + 80 + 2280 = 3640 without offloading).
  fsdp.recompute = Recompute::full;
  fsdp.recompute_num_layers = 1;
  CHECK(stage_activation_bytes(dense_toy(8), fsdp, PipelineStage::first, mb, plain(), nullptr) == 2680);
}

namespace {

// A toy MoE model: 4 layers (2 dense, then 2 MoE), h 64, vocabulary 1000 (padded to 1024 at TP 1),
// tied embeddings; attention 400, norms 10, dense MLP 800 per layer; 8 routed experts of 100
// parameters and a router of 20 per MoE layer; final norm 5.
ModelSpec moe_params_toy() {
  ModelSpec model;
  model.num_layers = 4;
  model.hidden_size = 64;
  model.vocab_size = 1000;
  model.tie_word_embeddings = true;
  model.attention_params_per_layer = 400;
  model.norm_params_per_layer = 10;
  model.dense_mlp_params_per_layer = 800;
  model.params.embedding = 64000;
  model.params.final_norm = 5;
  model.moe = MoeSpec{};
  model.moe->num_experts = 8;
  model.moe->routed_expert_params = 100;
  model.moe->router_params = 20;
  model.moe->num_moe_layers = 2;
  return model;
}

}  // namespace

TEST_CASE("parameters per rank: expert parameters over EP x ETP, the tied embedding copied to the last stage") {
  Strategy s;
  s.pp = 2;
  s.ep = 2;
  s.etp = 2;
  s.dp = 2;
  // Last stage (Megatron puts the MoE layers 3-4 there): 2 x (400 + 10 + 20) = 860, the final
  // norm 5 and, tied under PP > 1, its own copy of the embedding 1024 x 64 = 65536: 66401.
  // Experts: 2 layers x 8 x 100 / (EP 2 x ETP 2) = 400.
  const RankParams last = rank_params(moe_params_toy(), s, PipelineStage::last);
  CHECK(last.dense == 66401);
  CHECK(last.expert == 400);
  // First stage: dense layers 2 x (400 + 10 + 800) = 2420 and the embedding 65536: 67956.
  const RankParams first = rank_params(moe_params_toy(), s, PipelineStage::first);
  CHECK(first.dense == 67956);
  CHECK(first.expert == 0);
}

TEST_CASE("the distributed optimizer shards dense states over DP x CP") {
  ModelSpec model = moe_params_toy();
  model.moe.reset();
  Strategy s;
  s.cp = 2;
  s.dp = 4;
  // PP 1: 4 dense layers x 1210 = 4840, embedding 65536, final norm 5: 70381 parameters.
  // Weights bf16 2 x 70381 = 140762; fp32 main grads 4 x 70381 = 281524; master 4 + Adam 8 bytes
  // over DP 4 x CP 2: 12 x 70381 / 8 = 105571.5.
  const ModelStateBytes b = model_state_bytes(model, s, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.weights == 140762);
  CHECK(b.gradients == 281524);
  CHECK(b.optimizer == 105571.5);
}

TEST_CASE("collective latencies: all-gather pays (n - 1) hops, the inter-node default is 8 us") {
  const LinkPath link{1e9, 1e-5};
  // Ring all-gather of 8 MB over 4 ranks: 3/4 x 8e6 / 1e9 = 6 ms, plus 3 hops x 10 us = 6.03 ms.
  CHECK(ring_all_gather_seconds(8e6, 4, link) == test::approx(6.03e-3).epsilon(1e-12));
  // Reduce-scatter moves the same: 6.03 ms; all-reduce is both: 2 x 6 ms + 6 x 10 us = 12.06 ms.
  CHECK(ring_reduce_scatter_seconds(8e6, 4, link) == test::approx(6.03e-3).epsilon(1e-12));
  CHECK(ring_all_reduce_seconds(8e6, 4, link) == test::approx(12.06e-3).epsilon(1e-12));
  // Without a latency in the cluster file: NCCL's LL protocol over InfiniBand, ~5-10 us per hop
  // (nccl-tests small-message rows): 8 us; over NVLink 3 us.
  NodeGroup node;
  node.gpus_per_node = 8;
  node.gpu.nic_Bps = 25e9;
  node.gpu.intra_node_Bps = 300e9;
  CHECK(inter_node_link(node, 1.0).latency_s == 8e-6);
  CHECK(intra_node_link(node, 1.0).latency_s == 3e-6);
}

}  // namespace meshplan
