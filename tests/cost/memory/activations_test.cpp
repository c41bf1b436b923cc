// Activation memory: Korthikanti et al. 2022 Table 2 for GPT layers, and hand-worked per-tensor
// extensions for GQA + SwiGLU, MoE and MLA.
#include "cost/memory/activations.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

// GPT-3 22B layer of the paper (Table 3): h 6144, a 64, s 2048, 4h GeLU MLP, MHA; b = 1, t = 8.
LayerShape gpt_22b_layer() {
  LayerShape shape;
  shape.hidden = 6144;
  shape.heads = 64;
  shape.q_width = shape.k_width = shape.v_width = shape.o_width = 6144;
  shape.ffn = 4 * 6144;
  shape.gated = false;
  return shape;
}

MemoryOptions paper_options() {
  MemoryOptions o;
  o.flash_attention = false;  // Table 2 stores the attention scores
  o.dropout = true;           // GPT-3 trains with dropout
  return o;
}

TEST_CASE("Korthikanti Table 2: per-layer activations of a GPT layer under TP, SP and recompute") {
  const double s = 2048, b = 1, h = 6144, a = 64, t = 8;
  const double sbh = s * b * h;
  const LayerShape gpt = gpt_22b_layer();
  const MemoryOptions o = paper_options();
  auto bytes = [&](bool sp, Recompute r) {
    return layer_activation_bytes(gpt, LayerSplit{t, sp, 1}, s, s, b, r, o);
  };
  CHECK(bytes(false, Recompute::none) == test::approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
  CHECK(bytes(true, Recompute::none) == test::approx(sbh * (34 / t + 5 * a * s / (h * t))));
  CHECK(bytes(false, Recompute::selective) == test::approx(sbh * (10 + 24 / t)));
  CHECK(bytes(true, Recompute::selective) == test::approx(sbh * 34 / t));
  CHECK(bytes(false, Recompute::full) == test::approx(2 * sbh));
  CHECK(bytes(true, Recompute::full) == test::approx(2 * sbh / t));
  // No parallelism: s*b*h*(34 + 5as/h).
  CHECK(layer_activation_bytes(gpt, LayerSplit{1, false, 1}, s, s, b, Recompute::none, o) ==
        test::approx(sbh * (34 + 5 * a * s / h)));
}

TEST_CASE("FlashAttention replaces the 5as^2b score term by the fp32 log-sum-exp (4asb)") {
  const LayerShape gpt = gpt_22b_layer();
  MemoryOptions o = paper_options();
  o.flash_attention = true;
  const double s = 2048, h = 6144, t = 8;
  CHECK(layer_activation_bytes(gpt, LayerSplit{t, false, 1}, s, s, 1, Recompute::none, o) ==
        test::approx(s * h * (10 + 24 / t) + 4 * 64 * s / t));
}

TEST_CASE("GQA + SwiGLU (Qwen2.5-7B), MoE (Mixtral) and MLA (DeepSeek-V2-Lite) layers, per token") {
  MemoryOptions o;  // defaults: FlashAttention, no dropout
  const double s = 4096;
  // Qwen2.5-7B: norms + QKV input + fc1 input 8h = 28,672; Q+K 2*(3584+512) = 8,192; V 1,024;
  // o-proj input 7,168; lse 4*28 = 112; SwiGLU 6*18944 = 113,664 -> 158,832 bytes per token.
  CHECK(layer_activation_bytes(dense_layer_shape(test::qwen25_7b()), LayerSplit{}, s, s, 1, Recompute::none,
                               o) == test::approx(158832.0 * s));
  // Mixtral: 8h = 32,768; Q+K 2*(4096+1024) = 10,240; V 2,048; o 8,192; lse 128; top-2 routed:
  // 2 x (2h permuted input + 4 fp32 probability + 6*14336) = 188,424; fp32 router logits 4*8 = 32
  // -> 241,832 bytes per token (Megatron-core < 0.13 also kept each copy's output: 258,208).
  CHECK(layer_activation_bytes(moe_layer_shape(test::mixtral_8x7b(), 1.0), LayerSplit{}, s, s, 1,
                               Recompute::none, o) == test::approx(241832.0 * s));
  // DeepSeek-V2-Lite dense layer: 8h = 16,384; Q+K 2*(3072+3072) = 12,288; V 4,096; o 4,096;
  // lse 64; latents 2*(576+512) = 2,176; SwiGLU 6*10944 = 65,664 -> 104,768 bytes per token.
  CHECK(layer_activation_bytes(dense_layer_shape(test::deepseek_v2_lite()), LayerSplit{}, s, s, 1,
                               Recompute::none, o) == test::approx(104768.0 * s));
  // TP 2 with SP halves every term of the dense Qwen layer but the unsplit ones (none here).
  CHECK(layer_activation_bytes(dense_layer_shape(test::qwen25_7b()), LayerSplit{2, true, 1}, s, s, 1,
                               Recompute::none, o) == test::approx(158832.0 * s / 2));
}

TEST_CASE(
    "Micro-batches in flight: p on the first stage under 1F1B, fewer when m < p, interleaving adds "
    "(p-1)/(pv)") {
  Strategy s;
  s.pp = 4;
  CHECK(microbatches_in_flight(s, PipelineStage::first, 8) == 4.0);
  CHECK(microbatches_in_flight(s, PipelineStage::first, 2) == 2.0);
  CHECK(microbatches_in_flight(s, PipelineStage::last, 8) == 1.0);
  s.vpp = 2;
  CHECK(microbatches_in_flight(s, PipelineStage::first, 8) == test::approx(4 * (1 + 3.0 / 8)));
  // EP all-to-all overlap runs one more warm-up forward of one chunk (half a stage here) on every
  // rank (schedules.py get_pp_rank_microbatches: num_warmup_microbatches + 1).
  s.moe_a2a_overlap = true;
  CHECK(microbatches_in_flight(s, PipelineStage::first, 8) == test::approx(4 * (1 + 3.0 / 8) + 0.5));
  CHECK(microbatches_in_flight(s, PipelineStage::last, 8) == test::approx(1 + 3.0 / 8 + 0.5));
  s.moe_a2a_overlap = false;
  s.pp = 1;
  s.vpp = 1;
  CHECK(microbatches_in_flight(s, PipelineStage::first, 8) == 1.0);
}

TEST_CASE("Full recompute (uniform, 1 layer): every layer keeps 2sbh, one layer is recomputed at a time") {
  // Llama-2-7B, s = 4096, b = 1, TP 1: stored 32 x 2 x 4096 x 4096 = 1,073,741,824; working one
  // full layer: 8h + 2*(4096+4096) + 8,192 + 8,192 + lse 128 + 6*11008 = 131,712 bytes/token
  // x 4096 = 539,492,352; input ids 8 x 4096 = 32,768. Total 1,613,266,944.
  Strategy s;
  s.recompute = Recompute::full;
  s.recompute_num_layers = 1;
  MicroBatchShape mb{4096, 4096, 1, 1};
  CHECK(stage_activation_bytes(test::llama2_7b(), s, PipelineStage::first, mb, MemoryOptions{}, nullptr) ==
        test::approx(1613266944.0));
  // Block method with 8 layers recomputed: 8 x 2sbh + 24 full layers + one working layer + ids.
  s.recompute_method = RecomputeMethod::block;
  s.recompute_num_layers = 8;
  CHECK(stage_activation_bytes(test::llama2_7b(), s, PipelineStage::first, mb, MemoryOptions{}, nullptr) ==
        test::approx(8 * 33554432.0 + 25 * 539492352.0 + 32768.0));
  // No recompute, PP 4 with 8 micro-batches: first stage 4 in flight x 8 layers x full + ids.
  s.recompute = Recompute::none;
  s.pp = 4;
  mb.microbatches = 8;
  CHECK(stage_activation_bytes(test::llama2_7b(), s, PipelineStage::first, mb, MemoryOptions{}, nullptr) ==
        test::approx(4 * (8 * 539492352.0 + 32768.0)));
}

}  // namespace
}  // namespace meshplan
