#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/parallel_comm.hpp"
#include "cost/time/time_fixtures.hpp"
#include "model/flops.hpp"

namespace meshplan {
namespace {

TEST_CASE("stage compute of a tiny GPT, worked by hand") {
  // Per layer per token (2 FLOPs per weight): attention 4h^2+4h = 4,198,400 params, MLP
  // 8h^2+5h = 8,393,728 params -> 25,184,256 FLOPs; scores 4*s*h = 4,194,304 FLOPs.
  // 2 layers, 1024 tokens, 312 TFLOP/s x 0.5:
  //   dense     = 2*25,184,256*1024 / 1.56e14 = 3.30622e-4 s
  // Attention at cuDNN's rate for 1024 causal keys and 16 heads of 64 (FlashAttention-3 paper, H100,
  // head dim 64: full-mask forward 373 and backward 348 TFLOP/s, both scaled by head dim 128's causal /
  // full forward ratio 410/574: 266.43 and 248.57): 3 / (1/266.43 + 2.5/248.57) / 989.4 = 0.219548
  // of the peak:
  //   attention = 2*4,194,304*1024*0.5 (causal, fused) / (312e12 * 0.219548) = 6.27011e-5 s
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.compute_dtype = Dtype::bf16;
  const StageCompute stage = stage_compute(model, node, strategy, 1024, 1, test::simple_options(), nullptr);
  CHECK(stage.attention_forward_s == test::approx(6.27011e-5).epsilon(1e-4));
  CHECK(stage.layers_forward_s == test::approx(3.30622e-4 + 6.27011e-5).epsilon(1e-4));
  CHECK(stage.layers_backward_s == test::approx(2 * stage.layers_forward_s));
  CHECK(stage.recompute_s == 0.0);
  // LM head: 3 passes of 2*V*h*tokens = 3*2*1000*1024*1024 / 1.56e14 = 4.0330e-5 s, plus the
  // cross-entropy 16 B * 1024 * 1000 / 2.039e12 = 8.0353e-6 s.
  CHECK(stage.lm_head_s == test::approx(4.0330e-5 + 8.0353e-6).epsilon(1e-3));

  SUBCASE("TP 2 halves the work per rank") {
    Strategy tp2 = strategy;
    tp2.tp = 2;
    const StageCompute half = stage_compute(model, node, tp2, 1024, 1, test::simple_options(), nullptr);
    CHECK(half.layers_forward_s == test::approx(stage.layers_forward_s / 2));
  }
  SUBCASE("full recomputation redoes the forward; selective only the attention scores") {
    Strategy full = strategy;
    full.recompute = Recompute::full;
    CHECK(stage_compute(model, node, full, 1024, 1, test::simple_options(), nullptr).recompute_s ==
          test::approx(stage.layers_forward_s));
    Strategy selective = strategy;
    selective.recompute = Recompute::selective;
    CHECK(stage_compute(model, node, selective, 1024, 1, test::simple_options(), nullptr).recompute_s ==
          test::approx(stage.attention_forward_s));
    Strategy block = full;
    block.recompute_method = RecomputeMethod::block;
    block.recompute_num_layers = 1;  // 1 of the 2 layers
    CHECK(stage_compute(model, node, block, 1024, 1, test::simple_options(), nullptr).recompute_s ==
          test::approx(stage.layers_forward_s / 2));
  }
  SUBCASE("selective recompute of Megatron-core modules redoes each module's forward") {
    // "mlp": the dense MLPs' share of the dense GEMMs, by their weights: 8,393,728 of
    // 4,198,400 + 8,393,728 = 0.666580 of 3.30622e-4 s = 2.20386e-4 s; with "core_attn" the
    // attention scores (6.27011e-5 s) as well.
    Strategy mlp = strategy;
    mlp.recompute = Recompute::selective;
    mlp.recompute_modules = kRecomputeMlp;
    CHECK(stage_compute(model, node, mlp, 1024, 1, test::simple_options(), nullptr).recompute_s ==
          test::approx(2.20386e-4).epsilon(1e-4));
    mlp.recompute_modules = kRecomputeMlp | kRecomputeCoreAttn;
    CHECK(stage_compute(model, node, mlp, 1024, 1, test::simple_options(), nullptr).recompute_s ==
          test::approx(2.20386e-4 + 6.27011e-5).epsilon(1e-4));
    // Hardware FLOPs per token add the recomputed MLP forward: 2 layers x 2 x 8,393,728.
    mlp.recompute_modules = kRecomputeMlp;
    CHECK(hardware_flops_per_token(model, mlp, 1024) - hardware_flops_per_token(model, strategy, 1024) ==
          test::approx(2.0 * 2.0 * 8393728.0));
    // A MoE module list on a dense model recomputes nothing.
    mlp.recompute_modules = kRecomputeMoe | kRecomputeMoeAct | kRecomputeMlaUpProj;
    CHECK(stage_compute(model, node, mlp, 1024, 1, test::simple_options(), nullptr).recompute_s == 0.0);
  }
  SUBCASE("a trained MTP module adds a decoder layer and another pass through the output layer") {
    // lm_head_s 4.8365e-5 s (above) + 3 x the average layer's forward 1.96662e-4 s + 4.8365e-5 s.
    ModelSpec with_mtp = model;
    with_mtp.num_mtp_layers = 1;
    Strategy mtp = strategy;
    mtp.train_mtp = true;
    CHECK(stage_compute(with_mtp, node, mtp, 1024, 1, test::simple_options(), nullptr).lm_head_s ==
          test::approx(2 * 4.8365e-5 + 3 * 1.96662e-4).epsilon(1e-3));
  }
  SUBCASE("unfused attention computes the full score matrix and streams it through HBM") {
    TimeOptions unfused = test::simple_options();
    unfused.flash_attention = false;
    // scores 2x the fused work at the full-mask rate for 1024 keys, 3 / (1/574 + 2.5/408) / 989.4
    // = 0.385300 of the peak: 2*4,194,304*1024 / (312e12 * 0.3853) = 7.14555e-5 s, plus 10 B *
    // (1024 tokens * 1024 * 16 heads) * 2 layers / 2.039e12.
    const StageCompute slow = stage_compute(model, node, strategy, 1024, 1, unfused, nullptr);
    CHECK(slow.attention_forward_s == test::approx(7.14555e-5 + 10.0 * 1024 * 1024 * 16 * 2 / 2.039e12)
                                          .epsilon(1e-3));
  }
}

TEST_CASE("a layer's dense GEMMs: the harmonic mean of its matrices' widths, per layer, over TP") {
  // Tiny GPT (h 1024, 16 heads, 4h MLP): QKV 3072 + output projection 1024 (its other width) and
  // FC1 4096 + FC2 4096: (3072 + 1024 + 4096 + 4096) / 4 = 3072 a layer, 1536 at TP 2 (and the
  // biases' few FLOPs a token, within 0.1%).
  const ModelSpec gpt = test::tiny_gpt();
  const GemmShape dense = dense_gemm_shape(forward_flops_per_token(gpt, 1024), 1024, gpt.num_layers, 2048, 2);
  CHECK(dense.rows == 2048);
  CHECK(dense.in == 1024);
  CHECK(dense.out == test::approx(1536).epsilon(0.001));
  // Qwen3-30B-A3B (h 2048, 32 x 128 query heads, 4 x 128 key-value heads, every layer MoE): QKV
  // 4096 + 2 x 512 = 5120 and the output projection 4096; the routed experts and the router are not
  // the dense GEMMs': (5120 + 4096) / 2 = 4608.
  const ModelSpec moe = test::qwen3_30b_a3b();
  CHECK(dense_gemm_shape(forward_flops_per_token(moe, 4096), 2048, moe.num_layers, 4096, 1).out == test::approx(4608).epsilon(0.001));
}

TEST_CASE("a sliding-window layer scores a band of its window's keys, a chunked one a triangle, at the rate of a causal pass that short") {
  // The tiny GPT with a 128-key window on one of its two layers (gpt-oss alternates them), 1024 tokens:
  // the full layer as above, half of 6.27011e-5 s = 3.13506e-5 s; the window layer scores
  // 2*128*16*(64+64) = 524,288 FLOPs a token, no causal half (each query sees its 128 keys), at
  // cuDNN's share for 512 causal keys, head dim 64 (the shortest bar; attention_kernels_test):
  // 0.155188 -> 524,288*1024 / (312e12 * 0.155188) = 1.10881e-5 s.
  ModelSpec model = test::tiny_gpt();
  model.attention.sliding_window = 128;
  model.attention.num_sliding_layers = 1;
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  const StageCompute stage = stage_compute(model, node, strategy, 1024, 1, test::simple_options(), nullptr);
  CHECK(stage.attention_forward_s == test::approx(3.13506e-5 + 1.10881e-5).epsilon(1e-4));
  // Llama 4's chunked attention: causal within each 128-token chunk, the half of the band:
  // 1.10881e-5 / 2 = 5.54406e-6 s.
  model.attention.chunked_window = true;
  CHECK(stage_compute(model, node, strategy, 1024, 1, test::simple_options(), nullptr).attention_forward_s ==
        test::approx(3.13506e-5 + 5.54406e-6).epsilon(1e-4));
  // A window as long as the sequence is a full causal layer.
  model.attention.sliding_window = 4096;
  CHECK(stage_compute(model, node, strategy, 1024, 1, test::simple_options(), nullptr).attention_forward_s ==
        test::approx(6.27011e-5).epsilon(1e-4));
}

TEST_CASE("attention's kernel by code path: FlashAttention-2 under Hugging Face modeling on Hopper, cuDNN elsewhere") {
  // The tiny GPT's attention at 1024 causal keys, head dim 64: cuDNN 0.219548 of the peak (above); the
  // flash-attn package's FlashAttention-2 (head dim 64: full-mask forward 306, backward 238, scaled by
  // its head dim 128 causal / full ratio 260/350): 3 / (1/227.31 + 2.5/176.80) / 989.4 = 0.163551, on a Hopper.
  const ModelSpec model = test::tiny_gpt();
  NodeGroup node = test::a100_node();
  Strategy megatron;
  Strategy fsdp;
  fsdp.backend = Backend::fsdp;
  const TimeOptions options = test::simple_options();
  const auto attention = [&](const Strategy& s, const TimeOptions& o) {
    return stage_compute(model, node, s, 1024, 1, o, nullptr).attention_forward_s;
  };
  // On the A100 (Ampere) both paths run at cuDNN's share: FlashAttention-2 is that generation's kernel.
  CHECK(attention(fsdp, options) == test::approx(attention(megatron, options)));
  node.gpu.arch = "Hopper GH100";
  CHECK(attention(fsdp, options) / attention(megatron, options) == test::approx(0.219548 / 0.163551).epsilon(1e-4));
  // Megatron's own model code under ZeRO-3 (hf_modeling false) runs Transformer Engine's cuDNN kernel.
  TimeOptions megatron_code = options;
  megatron_code.hf_modeling = false;
  CHECK(attention(fsdp, megatron_code) == test::approx(attention(megatron, options)));
}

TEST_CASE("Hugging Face modeling under FSDP runs its memory-bound kernels unfused: hf_elementwise_factor x the passes") {
  // Tiny GPT, 1024 tokens, 10 passes of the 16-bit hidden state per layer:
  // 10 * 1024 * 1024 * 2 B * 2 layers / 2.039e12 B/s = 2.05704e-5 s. Hugging Face's RMSNorm,
  // SwiGLU and rotary run as separate eager kernels (transformers modeling_qwen2.py) where
  // Megatron-core fuses each: twice the traffic with hf_elementwise_factor 2.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  TimeOptions options = test::simple_options();
  options.constants.elementwise_passes = 10;
  options.constants.hf_elementwise_factor = 2.0;
  const auto elementwise = [&](Backend backend, bool hf_modeling) {
    Strategy strategy;
    strategy.backend = backend;
    TimeOptions o = options;
    o.hf_modeling = hf_modeling;
    Trace trace;
    stage_compute(model, node, strategy, 1024, 1, o, &trace);
    for (const TraceTerm& term : trace) {
      if (term.name == "time/compute/elementwise") return term.value;
    }
    return -1.0;
  };
  CHECK(elementwise(Backend::megatron, true) == test::approx(2.05704e-5).epsilon(1e-5));
  CHECK(elementwise(Backend::fsdp, false) == test::approx(2.05704e-5).epsilon(1e-5));
  CHECK(elementwise(Backend::fsdp, true) == test::approx(2 * 2.05704e-5).epsilon(1e-5));
}

TEST_CASE("LoRA trains no weight gradient of the base model: 2 of the 3 passes of its GEMMs, all of attention's") {
  // Training is 3 forward passes (Narayanan 2021 §5.1); a frozen weight's GEMM skips its weight
  // gradient (Hu et al. 2021 §4.2), the score GEMMs (no weights) do not change.
  const ModelSpec model = test::tiny_gpt();
  const ForwardFlops forward = forward_flops_per_token(model, 1024);
  Strategy strategy;
  CHECK(trained_flops_per_token(model, strategy, 1024) == test::approx(3 * forward.total()));
  strategy.lora.rank = 16;
  const double weights = forward.attention_projections + forward.mlp + forward.lm_head;
  CHECK(trained_flops_per_token(model, strategy, 1024) == test::approx(2 * weights + 3 * forward.attention_scores));
  CHECK(weights + forward.attention_scores == test::approx(forward.total()));
}

TEST_CASE("hardware FLOPs add the recomputed forward of the layers, as Narayanan 2021 Eq. 3") {
  // GPT-3 175B shape: Eq. 3 per token = 96*L*h^2*(1 + s/(6h) + V/(16*L*h)); the model FLOPs
  // (no recompute) 72*L*h^2*(1 + s/(6h) + V/(12*L*h)). Biases and norms add < 0.1%.
  const ModelSpec model = gpt_model_spec(96, 12288, 96, 4 * 12288, 51200, 2048);
  Strategy strategy;
  strategy.recompute = Recompute::full;
  const double L = 96, h = 12288, s = 2048, V = 51200;
  const double eq3 = 96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
  CHECK(hardware_flops_per_token(model, strategy, 2048) == test::approx(eq3).epsilon(1e-3));
  strategy.recompute = Recompute::none;
  const double model_flops = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  CHECK(hardware_flops_per_token(model, strategy, 2048) == test::approx(model_flops).epsilon(1e-3));
}

TEST_CASE("optimizer step streams 30 bytes per parameter of the rank's optimizer shard") {
  const NodeGroup node = test::a100_node();
  CHECK(optimizer_step_seconds(1e9, node, nullptr) == test::approx(30e9 / 2.039e12));
  // Qwen3-30B-A3B on 16 GPUs, TP 1, PP 1, EP 8 (DP 16), distributed optimizer. Published counts:
  // 30,532,122,624 in all, routed experts 48 x 128 x 3 x 2048 x 768 = 28,991,029,248, untied
  // embedding and LM head 151,936 x 2048 = 311,164,928 each. A rank holds the 918,763,520 other
  // decoder parameters, both vocab matrices (1,541,093,376 dense) and 16 of the 128 experts
  // (3,623,878,656). The dense states shard over DP 16: 96,318,336; the experts' over the
  // expert-DP group 16 / (ETP 1 x EP 8 x PP 1) = 2: 1,811,939,328. Sharding every parameter over
  // DP would give 322,810,752, six times too few.
  const ModelSpec model = test::qwen3_30b_a3b();
  Strategy strategy;
  strategy.dp = 16;
  strategy.ep = 8;
  strategy.distributed_optimizer = true;
  const RankParams held = rank_params(model, strategy);
  CHECK(held.dense == test::approx(1541093376.0));
  CHECK(held.expert == test::approx(3623878656.0));
  CHECK(optimizer_params_per_rank(held, strategy) == test::approx(96318336.0 + 1811939328.0));
  strategy.distributed_optimizer = false;
  CHECK(optimizer_params_per_rank(held, strategy) == test::approx(1541093376.0 + 3623878656.0));
}

TEST_CASE("MoE layers: grouped expert GEMMs pay for small row counts, a host-bound layer runs at the host's pace") {
  // Qwen3-30B-A3B: 48 layers, all MoE, 128 experts, top-8. One micro-batch of 4096 tokens,
  // EP 8: each local expert sees 4096 * 8 * 8 / 128 = 2048 rows.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  TimeOptions options = test::simple_options();
  options.constants.expert_gemm_half_rows = 0;
  const auto routed_seconds = [&](const TimeOptions& o) {
    Trace trace;
    stage_compute(model, node, strategy, 4096, 1, o, &trace);
    for (const TraceTerm& term : trace) {
      if (term.name == "time/compute/routed_experts") return term.value;
    }
    return 0.0;
  };
  const double full_rows = routed_seconds(options);
  REQUIRE(full_rows > 0);
  // r0 = 2048 rows: a grouped GEMM of 2048 rows per expert reaches half of the dense curve.
  options.constants.expert_gemm_half_rows = 2048;
  CHECK(routed_seconds(options) == test::approx(2 * full_rows));
  // Host time 1 s per MoE layer plus 10 ms per local expert (128 / 8 = 16): 1.16 s, far above
  // the GPU's time, so every layer's forward takes exactly that: 48 * 1.16 s; backward twice.
  options.constants.moe_layer_host_seconds = 1.0;
  options.constants.moe_expert_host_seconds = 0.01;
  const StageCompute host_bound = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  CHECK(host_bound.layers_forward_s == test::approx(48 * 1.16));
  CHECK(host_bound.layers_backward_s == test::approx(2 * 48 * 1.16));
  // No host time: the GPU's own time, far below.
  options.constants.moe_layer_host_seconds = 0;
  options.constants.moe_expert_host_seconds = 0;
  CHECK(stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s < 48 * 0.1);
}

TEST_CASE("gpt-oss-style experts: a clamped GLU and FC2's bias cost memory passes outside the fused kernels") {
  // Qwen3-30B-A3B's shape (h 2048, expert width 768, top-8, 48 MoE layers), EP 8, 4096 tokens, on
  // A100 (2.039e12 B/s). Megatron-core (experts.py _apply_bias, fused_bias_geglu.py
  // weighted_bias_quick_geglu_impl) adds per routed row, a third of forward + backward:
  //   clamp + cat 6f = 4608, FC2's bias 4h = 8192 elements of 2 B.
  // Per layer forward: 4096 tokens * 8 rows * 12800 * 2 B = 838,860,800 B; 48 layers:
  //   4.02653e10 B / 2.039e12 B/s = 0.0197476 s.
  ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  TimeOptions options = test::simple_options();
  options.constants.moe_layer_host_seconds = 0;  // the GPU's own time, no host wait to absorb it
  options.constants.moe_expert_host_seconds = 0;
  const double plain = stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s;
  model.moe->glu_clamp_limit = 7.0;
  model.moe->expert_linear_bias = true;
  const double epilogue = stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s;
  CHECK(epilogue - plain == test::approx(0.0197476).epsilon(1e-4));
  // ETP 2 halves the clamp's rows' width, not the bias's: 2304 + 8192 elements.
  strategy.etp = 2;
  model.moe->glu_clamp_limit = 0;
  model.moe->expert_linear_bias = false;
  const double plain_etp = stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s;
  model.moe->glu_clamp_limit = 7.0;
  model.moe->expert_linear_bias = true;
  CHECK(stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s - plain_etp ==
        test::approx(0.0197476 * 10496.0 / 12800.0).epsilon(1e-4));
  // Transformer Engine's op fuser (Megatron-core use_transformer_engine_op_fuser) runs both inside
  // its fused ops: ScaledClampedQGeGLU and GroupedLinear with the bias.
  strategy.te_op_fuser = true;
  CHECK(stage_compute(model, node, strategy, 4096, 1, options, nullptr).layers_forward_s == test::approx(plain_etp));
}

TEST_CASE("MoE layers under a trained router's imbalance wait for the most loaded EP rank's experts") {
  // Qwen3-30B-A3B, EP 8, 4096 tokens, as above. With --moe-dropless-imbalance a rank's share of the
  // routed tokens sums its 128 / 8 = 16 experts' shares, whose spread (cv 1.067, fit on
  // Megatron-MoE-ModelZoo's dropless runs) shrinks by sqrt(16); the largest of 8 ranks lies
  // sqrt(2 ln 8) = 2.04 spreads above the mean: 1 + 1.067 x 2.04 / 4 = 1.54 times the mean rows, and
  // its permutation moves as many more. The dense GEMMs and attention, the same tokens on every
  // rank, do not change. With EP 1 every expert is on the GPU: no rank to wait for; with 64 ranks of
  // 2 experts, 1 + 1.067 x sqrt(2 ln 64 / 2) = 3.18.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  TimeOptions balanced = test::simple_options();
  balanced.constants.elementwise_passes = 34;  // so that the permutation's traffic is in the trace
  TimeOptions dropless = balanced;
  dropless.moe_dropless_imbalance = true;
  const auto term = [&](const TimeOptions& o, const Strategy& s, const char* name) {
    Trace trace;
    stage_compute(model, node, s, 4096, 1, o, &trace);
    for (const TraceTerm& t : trace) {
      if (t.name == name) return t.value;
    }
    return -1.0;
  };
  const double load = moe_load_factor(model, strategy, dropless);
  CHECK(load == test::approx(1.544).epsilon(0.001));
  CHECK(moe_load_factor(model, strategy, balanced) == 1.0);
  CHECK(term(dropless, strategy, "time/compute/routed_experts") ==
        test::approx(load * term(balanced, strategy, "time/compute/routed_experts")));
  CHECK(term(dropless, strategy, "time/compute/dense_gemm") == test::approx(term(balanced, strategy, "time/compute/dense_gemm")));
  CHECK(term(dropless, strategy, "time/compute/attention_scores") ==
        test::approx(term(balanced, strategy, "time/compute/attention_scores")));
  CHECK(term(dropless, strategy, "time/compute/elementwise") > term(balanced, strategy, "time/compute/elementwise"));
  Strategy one_gpu = strategy;
  one_gpu.ep = 1;
  CHECK(moe_load_factor(model, one_gpu, dropless) == 1.0);
  CHECK(term(dropless, one_gpu, "time/compute/routed_experts") ==
        test::approx(term(balanced, one_gpu, "time/compute/routed_experts")));
  Strategy wide = strategy;
  wide.ep = 64;
  CHECK(moe_load_factor(model, wide, dropless) == test::approx(3.175).epsilon(0.002));
  CHECK(moe_load_factor(test::tiny_gpt(), strategy, dropless) == 1.0);  // dense: no experts
}

TEST_CASE("fp8 GEMMs read casts of their inputs: 4 bytes per element cast apart, thin GEMMs pay most") {
  // Transformer Engine casts an fp8 GEMM's 16-bit input (read 2 B) into a row-wise and a
  // column-wise fp8 copy (write 1 B + 1 B); where a TE norm precedes the GEMM in one module (QKV,
  // dense FC1, MLA's up projections) the norm writes the fp8 input itself and adds nothing.
  // Qwen3-30B-A3B, TP 1, EP 8, one micro-batch of 4096 tokens. Elements cast apart per token and
  // layer: the output projection's input 32 heads x 128 = 4096, and 8 routed rows x (FC1 input 2048
  // + FC2 input 768) = 22528: 26624, x 48 layers = 1,277,952. 4 B x 4096 tokens x 1,277,952 /
  // 2.039e12 B/s = 10.27 ms of the forward (the A100 node's HBM), and none in bf16.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  strategy.compute_dtype = Dtype::fp8;
  const auto cast_seconds = [&](const ModelSpec& m, const Strategy& s, std::int64_t tokens) {
    Trace trace;
    stage_compute(m, node, s, tokens, 1, test::simple_options(), &trace);
    const auto term = std::find_if(trace.begin(), trace.end(), [](const TraceTerm& t) { return t.name == "time/compute/fp8_cast"; });
    return term == trace.end() ? 0.0 : term->value;
  };
  CHECK(cast_seconds(model, strategy, 4096) == test::approx(4.0 * 4096 * 1277952 / 2.039e12).epsilon(1e-6));
  // TP 2 halves every input of the row-parallel and expert GEMMs; Qwen3-30B-A3B casts no hidden
  // state apart, so sequence parallelism changes nothing.
  Strategy tp2 = strategy;
  tp2.tp = 2;
  CHECK(cast_seconds(model, tp2, 4096) == test::approx(cast_seconds(model, strategy, 4096) / 2).epsilon(1e-6));
  tp2.sequence_parallel = true;
  CHECK(cast_seconds(model, tp2, 4096) == test::approx(cast_seconds(model, strategy, 4096) / 2).epsilon(1e-6));
  Strategy bf16 = strategy;
  bf16.compute_dtype = Dtype::bf16;
  CHECK(cast_seconds(model, bf16, 4096) == 0.0);

  // The tiny GPT (h 1024, 16 heads of 64, MLP 4096): the projection's input 1024 and FC2's 4096,
  // 5120 a layer, 2 layers: 4 B x 1024 tokens x 10240 / 2.039e12 B/s.
  Strategy dense;
  dense.compute_dtype = Dtype::fp8;
  CHECK(cast_seconds(test::tiny_gpt(), dense, 1024) == test::approx(4.0 * 1024 * 10240 / 2.039e12).epsilon(1e-6));

  // DeepSeek-V3 (h 7168; MLA: the two down projections cast the hidden state, 2 x 7168, and the
  // projection 128 heads x v 128 = 16384, on all 61 layers: 30720; 3 dense layers' FC2 18432; 58
  // MoE layers of 8 routed rows x (7168 + 2048) = 73728 and a shared expert's 7168 + 2048 = 9216),
  // TP 1: 1,873,920 + 55,296 + 4,810,752 = 6,739,968 elements a token.
  const auto config = find_model_preset_config("deepseek-v3");
  REQUIRE(config);
  const auto deepseek = parse_model_config(*config, "deepseek-v3");
  REQUIRE(deepseek.ok());
  CHECK(cast_seconds(*deepseek, strategy, 4096) == test::approx(4.0 * 4096 * 6739968 / 2.039e12).epsilon(1e-6));
  // With TP 2 and sequence parallelism each term halves; without it the down projections' hidden
  // state stays whole on each rank: 61 x 7168 more a token than half.
  Strategy deepseek_tp2 = strategy;
  deepseek_tp2.tp = 2;
  deepseek_tp2.sequence_parallel = true;
  const double halved = cast_seconds(*deepseek, deepseek_tp2, 4096);
  CHECK(halved == test::approx(4.0 * 4096 * 6739968 / 2 / 2.039e12).epsilon(1e-6));
  deepseek_tp2.sequence_parallel = false;
  // without SP: MLA's 2h and the shared expert's h stay whole: + 61 x 7168 + 58 x 3584 a token.
  CHECK(cast_seconds(*deepseek, deepseek_tp2, 4096) ==
        test::approx(4.0 * 4096 * (6739968.0 / 2 + 61 * 7168 + 58 * 3584) / 2.039e12).epsilon(1e-6));
}

}  // namespace
}  // namespace meshplan
