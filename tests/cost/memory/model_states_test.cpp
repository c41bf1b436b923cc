// Weights, gradients and optimizer states per GPU: hand-worked cases, Megatron's theoretical
// formula on a grid, and the ZeRO paper's 2 + 2 + 12 bytes per parameter.
#include "cost/memory/model_states.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "approx.hpp"
#include "cost/memory/lora_params.hpp"
#include "cost/hand_models.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {
namespace {

Strategy megatron(int tp, int pp, int ep, int dp, bool distributed) {
  Strategy s;
  s.tp = tp;
  s.pp = pp;
  s.ep = ep;
  s.dp = dp;
  s.distributed_optimizer = distributed;
  return s;
}

double on_gpu(const ModelSpec& m, const Strategy& s, PipelineStage stage = PipelineStage::first) {
  return model_state_bytes(m, s, stage, OffloadMode::training, nullptr).on_gpu();
}

TEST_CASE("Llama-2-7B, Megatron TP1 PP1 DP8 with the distributed optimizer: 6 + 12/8 bytes per parameter") {
  // P = 6,738,415,616 (vocab 32000 is already a multiple of 128). weights 2P = 13,476,831,232;
  // fp32 grads 4P = 26,953,662,464; optimizer 12P/8 = 10,107,623,424; total 7.5P = 50,538,117,120.
  const ModelStateBytes b = model_state_bytes(test::llama2_7b(), megatron(1, 1, 1, 8, true),
                                              PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.weights == 13476831232.0);
  CHECK(b.gradients == 26953662464.0);
  CHECK(b.optimizer == 10107623424.0);
  CHECK(b.on_gpu() == 50538117120.0);
  // Without the distributed optimizer: 18 bytes/param = 121,291,481,088.
  CHECK(on_gpu(test::llama2_7b(), megatron(1, 1, 1, 8, false)) == 121291481088.0);
  // Main grads in 16 bits (Megatron-core ddp grad_reduce_in_fp32=False, as Megatron-Bridge's
  // performance recipes set it): 2P = 13,476,831,232; total 5.5P = 37,061,285,888.
  Strategy bf16_grads = megatron(1, 1, 1, 8, true);
  bf16_grads.grad_reduce_in_fp32 = false;
  const ModelStateBytes half = model_state_bytes(test::llama2_7b(), bf16_grads, PipelineStage::first,
                                                 OffloadMode::training, nullptr);
  CHECK(half.gradients == 13476831232.0);
  CHECK(half.on_gpu() == 37061285888.0);
  // Adam's m and v in bf16 too (precision-aware optimizer): (4 + 2 + 2)P / 8 = P = 6,738,415,616.
  bf16_grads.adam_moment_bytes = 4;
  CHECK(model_state_bytes(test::llama2_7b(), bf16_grads, PipelineStage::first, OffloadMode::training, nullptr)
            .optimizer == 6738415616.0);
  // Layer weights held in fp8 (fp8_params, FP8 compute): the 32 layers' matrices, 32 x (4 x 4096^2 +
  // 3 x 4096 x 11008) = 6,476,005,376, at 1 byte; the embedding, LM head and norms (262,410,240)
  // at 2: 7,000,825,856. Under BF16 compute the flag changes nothing.
  // NVFP4 params (--fp4-param-gather under NVFP4 compute): the same matrices as NVFP4 tensors, a
  // row-wise and a column-wise copy of 4 bits and an E4M3 scale per 16 each, 1.125 bytes:
  // 6,476,005,376 x 1.125 = 7,285,506,048, with 524,820,480 of 16-bit embedding, LM head and norms:
  // 7,810,326,528. Either flag alone (bf16 compute) changes nothing.
  const auto weights = [](Dtype dtype, bool Strategy::*quantized_weights) {
    Strategy s = megatron(1, 1, 1, 8, true);
    s.compute_dtype = dtype;
    s.*quantized_weights = true;
    return model_state_bytes(test::llama2_7b(), s, PipelineStage::first, OffloadMode::training, nullptr).weights;
  };
  CHECK(weights(Dtype::fp8, &Strategy::fp8_params) == 7000825856.0);
  CHECK(weights(Dtype::bf16, &Strategy::fp8_params) == 13476831232.0);
  CHECK(weights(Dtype::fp4, &Strategy::fp4_param_gather) == 7810326528.0);
  CHECK(weights(Dtype::bf16, &Strategy::fp4_param_gather) == 13476831232.0);
}

TEST_CASE(
    "Llama-2-7B TP2 PP2: first stage holds 16 layers + embedding, last 16 layers + final norm + LM head") {
  // TP-sharded per layer: (67,108,864 + 135,266,304)/2 = 101,187,584, norms 8,192 replicated ->
  // 101,195,776; x16 = 1,619,132,416. Embedding 32000 x 4096 / 2 = 65,536,000.
  // first = 1,684,668,416; last = 1,619,132,416 + 4,096 + 65,536,000 = 1,684,672,512.
  const Strategy s = megatron(2, 2, 1, 2, true);
  CHECK(rank_params(test::llama2_7b(), s, PipelineStage::first).total() == 1684668416.0);
  CHECK(rank_params(test::llama2_7b(), s, PipelineStage::last).total() == 1684672512.0);
}

TEST_CASE("Megatron-FSDP shards the main grads (optim_grads) and the weights (optim_grads_params) over DP") {
  // Llama-2-7B, P = 6,738,415,616 on one rank at PP 1, DP 8, main grads in 16 bits.
  Strategy s = megatron(1, 1, 1, 8, true);
  s.grad_reduce_in_fp32 = false;
  // optim_grads (ZeRO-2): weights 2P = 13,476,831,232, grads 2P/8 = 1,684,603,904, optimizer
  // 12P/8 = 10,107,623,424.
  s.zero = ZeroStage::zero2;
  ModelStateBytes b = model_state_bytes(test::llama2_7b(), s, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.weights == 13476831232.0);
  CHECK(b.gradients == 1684603904.0);
  CHECK(b.optimizer == 10107623424.0);
  CHECK(b.gathered == 0.0);
  // optim_grads_params (ZeRO-3): weights 2P/8 = 1,684,603,904 as well; two layers' weights gathered
  // and one layer's grads whole: (2 x 2 + 2) x 202,383,360 = 1,214,300,160.
  s.zero = ZeroStage::zero3;
  b = model_state_bytes(test::llama2_7b(), s, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.weights == 1684603904.0);
  CHECK(b.gradients == 1684603904.0);
  CHECK(b.optimizer == 10107623424.0);
  CHECK(b.gathered == 1214300160.0);
}

TEST_CASE("trained MTP modules sit on the last pipeline stage, their experts split by EP") {
  // DeepSeek-V3's MTP module: 11,610,068,224 parameters (the report's 11.5B unique), of which the
  // routed experts 256 x 3 x 7168 x 2048 = 11,274,289,152. TP 1, PP 16, EP 64: the last stage holds
  // 335,779,072 + 11,274,289,152 / 64 = 511,939,840 more parameters, 1,023,879,680 bytes of bf16 weights.
  const auto config = find_model_preset_config("deepseek-v3");
  REQUIRE(config);
  const auto model = parse_model_config(*config, "deepseek-v3");
  REQUIRE(model.ok());
  CHECK(model->params.mtp == 11610068224);
  Strategy s = megatron(1, 16, 64, 16, true);
  const double without = model_state_bytes(*model, s, PipelineStage::last, OffloadMode::training, nullptr).weights;
  const double first = model_state_bytes(*model, s, PipelineStage::first, OffloadMode::training, nullptr).weights;
  s.train_mtp = true;
  CHECK(model_state_bytes(*model, s, PipelineStage::last, OffloadMode::training, nullptr).weights - without ==
        1023879680.0);
  CHECK(model_state_bytes(*model, s, PipelineStage::first, OffloadMode::training, nullptr).weights == first);
}

TEST_CASE("Megatron pads the vocabulary to a multiple of 128 x TP") {
  CHECK(megatron_padded_vocab(32000, 1) == 32000);
  CHECK(megatron_padded_vocab(152064, 8) == 152576);  // 152064 / 1024 = 148.5 -> 149 x 1024
  CHECK(megatron_padded_vocab(151936, 4) == 152064);
}

TEST_CASE("Mixtral-8x7B EP8 DP8: experts sharded by EP, their optimizer over expert-DP = 8/(1*8*1) = 1") {
  // dense per rank: 32 x (41,943,040 + 8,192 + 32,768) + 2 x 131,072,000 + 4,096 = 1,605,636,096
  // expert per rank: 32 x 8 x 176,160,768 / 8 = 5,637,144,576
  // bytes = dense x (6 + 12/8) + expert x (6 + 12/1) = 12,042,270,720 + 101,468,602,368
  const Strategy s = megatron(1, 1, 8, 8, true);
  const RankParams p = rank_params(test::mixtral_8x7b(), s, PipelineStage::first);
  CHECK(p.dense == 1605636096.0);
  CHECK(p.expert == 5637144576.0);
  CHECK(on_gpu(test::mixtral_8x7b(), s) == 113510873088.0);
}

TEST_CASE("DeepSeek-V2-Lite (MLA + first dense layer) EP8 DP8") {
  // dense: 81,007,104 (layer 0) + 26 x (13,763,072 + 4,096 + 17,301,504 + 131,072) + 419,432,448
  //      = 1,311,632,896; expert: 26 x 64 x 8,650,752 / 8 = 1,799,356,416
  // bytes = 1,311,632,896 x 7.5 + 1,799,356,416 x 18 = 42,225,662,208
  const Strategy s = megatron(1, 1, 8, 8, true);
  const RankParams p = rank_params(test::deepseek_v2_lite(), s, PipelineStage::first);
  CHECK(p.dense == 1311632896.0);
  CHECK(p.expert == 1799356416.0);
  CHECK(on_gpu(test::deepseek_v2_lite(), s) == 42225662208.0);
}

TEST_CASE("PP splits dense layers first: DeepSeek-V2-Lite PP3 puts the dense layer on the first stage") {
  Strategy s = megatron(1, 3, 1, 1, false);
  const StageLayers first = stage_layers(test::deepseek_v2_lite(), s, PipelineStage::first);
  const StageLayers last = stage_layers(test::deepseek_v2_lite(), s, PipelineStage::last);
  CHECK(first.dense == 1);
  CHECK(first.moe == 8);
  CHECK(last.dense == 0);
  CHECK(last.moe == 9);
}

// ---- Megatron-LM theoretical weight + optimizer memory (formulas.md), written independently ----
struct Shape {
  double h, layers, heads, groups, kv_channels, ffn, vocab, experts, expert_ffn;
};

// Per-layer parameters as Megatron counts them (formulas.md): attention 2h^2 (1 + g/a)
// (kv_channels a / h), SwiGLU MLP 2 h ffn x 3/2 (x experts), RMSNorm 2h; router E x h (MoE).
double formula_bytes(const Shape& m, int tp, int pp, int ep, int dp, bool distributed) {
  const double attention = 2 * m.h * m.h * (1 + m.groups / m.heads) * (m.kv_channels * m.heads / m.h);
  const double norms = 2 * m.h;
  const double padded_vocab = std::ceil(m.vocab / (128.0 * tp)) * 128.0 * tp;
  const double embedding = padded_vocab * m.h;
  const double layers_on_stage = m.layers / pp;
  double dense = layers_on_stage * (attention / tp + norms) + embedding / tp;
  double expert = 0;
  if (m.experts > 0) {
    dense += layers_on_stage * m.experts * m.h;  // router, replicated
    expert = layers_on_stage * 2 * m.h * m.expert_ffn * 1.5 * m.experts / ep;
  } else {
    dense += layers_on_stage * 2 * m.h * m.ffn * 1.5 / tp;
  }
  if (pp == 1) dense += embedding / tp + m.h;  // untied LM head + final norm
  const double world = double(tp) * pp * dp;
  const double dense_bytes = distributed ? 6 + 12.0 / dp : 18;
  const double expert_bytes = distributed ? 6 + 12.0 / (world / (double(ep) * pp)) : 18;
  return dense * dense_bytes + expert * expert_bytes;
}

ModelSpec spec_of(const Shape& m) {
  ModelSpec s;
  s.hidden_size = std::int64_t(m.h);
  s.num_layers = std::int64_t(m.layers);
  s.vocab_size = std::int64_t(m.vocab);
  const std::int64_t q = std::int64_t(m.heads * m.kv_channels);
  const std::int64_t kv = std::int64_t(m.groups * m.kv_channels);
  s.attention = AttentionSpec{AttentionKind::standard, std::int64_t(m.heads), std::int64_t(m.groups),
                              std::int64_t(m.kv_channels)};
  s.attention_params_per_layer = s.hidden_size * q * 2 + s.hidden_size * kv * 2;  // q, o, k, v
  s.norm_params_per_layer = 2 * s.hidden_size;
  s.params.embedding = s.vocab_size * s.hidden_size;
  s.params.lm_head = s.params.embedding;
  s.params.final_norm = s.hidden_size;
  if (m.experts > 0) {
    MoeSpec moe;
    moe.num_experts = std::int64_t(m.experts);
    moe.experts_per_token = 2;
    moe.expert_intermediate_size = std::int64_t(m.expert_ffn);
    moe.num_moe_layers = s.num_layers;
    moe.routed_expert_params = 3 * s.hidden_size * moe.expert_intermediate_size;
    moe.router_params = moe.num_experts * s.hidden_size;
    s.moe = moe;
  } else {
    s.dense_mlp = MlpSpec{std::int64_t(m.ffn), true, false};
    s.num_dense_layers = s.num_layers;
    s.dense_mlp_params_per_layer = 3 * s.hidden_size * std::int64_t(m.ffn);
  }
  return s;
}

TEST_CASE("Weights + optimizer equal Megatron's theoretical formula on a grid of >= 50 points") {
  const std::vector<Shape> shapes = {
      {4096, 32, 32, 32, 128, 11008, 32000, 0, 0},  // Llama-2-7B (MHA)
      {4096, 32, 32, 8, 128, 14336, 128256, 0, 0},  // Llama-3-8B (GQA)
      {5120, 40, 40, 40, 128, 13824, 32000, 0, 0},  // Llama-2-13B
      {4096, 32, 32, 8, 128, 0, 32000, 8, 14336},   // Mixtral-8x7B (MoE)
  };
  int points = 0;
  for (const Shape& shape : shapes) {
    const ModelSpec model = spec_of(shape);
    for (int tp : {1, 2, 4, 8}) {
      for (int pp : {1, 2, 4}) {
        for (int ep : {1, 2, 8}) {
          if (ep > 1 && shape.experts == 0) continue;
          for (int dp : {1, 2, 8}) {
            if (ep > tp * dp) continue;  // EP x ETP x PP must divide the world
            for (bool distributed : {true, false}) {
              const Strategy s = megatron(tp, pp, ep, dp, distributed);
              const double expected = formula_bytes(shape, tp, pp, ep, dp, distributed);
              CAPTURE(tp);
              CAPTURE(pp);
              CAPTURE(ep);
              CAPTURE(dp);
              CAPTURE(distributed);
              CHECK(on_gpu(model, s) == test::approx(expected).epsilon(1e-12));
              ++points;
            }
          }
        }
      }
    }
  }
  CHECK(points >= 50);
}

TEST_CASE("FSDP holds 4 + 4 + 8 bytes per parameter (fp32 params, grads, Adam m and v), sharded by stage") {
  // Llama-2-7B, P = 6,738,415,616, 8-way shard group. verl loads the trained model in fp32
  // (model_dtype), so the sharded parameter is the master copy: the ZeRO paper's 16 B/param
  // (Rajbhandari et al. 2020 §3.1) as 4 (params) + 4 (grads) + 8 (Adam), not 2 + 2 + 12.
  const ModelSpec m = test::llama2_7b();
  const double p = 6738415616.0;
  Strategy s;
  s.backend = Backend::fsdp;
  s.dp = 8;
  auto bytes = [&](ZeroStage stage) {
    s.zero = stage;
    return model_state_bytes(m, s, PipelineStage::first, OffloadMode::training, nullptr);
  };
  const ModelStateBytes z0 = bytes(ZeroStage::none);
  CHECK(z0.weights + z0.gradients + z0.optimizer == 16 * p);
  const ModelStateBytes z1 = bytes(ZeroStage::zero1);
  CHECK(z1.weights + z1.gradients + z1.optimizer == 4 * p + 4 * p + 8 * p / 8);
  const ModelStateBytes z2 = bytes(ZeroStage::zero2);
  CHECK(z2.weights + z2.gradients + z2.optimizer == 4 * p + (4 * p + 8 * p) / 8);
  const ModelStateBytes z3 = bytes(ZeroStage::zero3);
  CHECK(z3.weights == 4 * p / 8);
  CHECK(z3.gradients == 4 * p / 8);
  CHECK(z3.optimizer == 8 * p / 8);
  // ZeRO-3 gathers the root unit (embedding + LM head) and two decoder layers in bf16:
  // 2 x (262,144,000 + 2 x 202,383,360) = 1,333,821,440.
  CHECK(z3.gathered == 1333821440.0);
  // Hybrid shard over groups of 4 of the 8 ranks: 16P/4.
  s.fsdp_shard_size = 4;
  const ModelStateBytes hybrid = bytes(ZeroStage::zero3);
  CHECK(hybrid.weights + hybrid.gradients + hybrid.optimizer == 16 * p / 4);
}

TEST_CASE("Offload: Megatron optimizer_offload_fraction, FSDP params and grads to host") {
  const ModelSpec m = test::llama2_7b();
  Strategy s = megatron(1, 1, 1, 8, true);
  s.offload.optimizer = true;
  s.offload.optimizer_fraction = 0.5;
  const ModelStateBytes b = model_state_bytes(m, s, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.optimizer == 10107623424.0 / 2);
  CHECK(b.host_offloaded == 10107623424.0 / 2);
  // verl loads offloaded states back for the phase that uses them.
  CHECK(model_state_bytes(m, s, PipelineStage::first, OffloadMode::own_phase, nullptr).optimizer ==
        10107623424.0);

  Strategy f;
  f.backend = Backend::fsdp;
  f.dp = 8;
  f.zero = ZeroStage::zero3;
  f.offload.params = true;
  f.offload.grads = true;
  const ModelStateBytes o = model_state_bytes(m, f, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(o.weights == 0);
  CHECK(o.gradients == 0);
  CHECK(o.host_offloaded == (4 + 4) * 6738415616.0 / 8);  // fp32 params and grads
}

TEST_CASE("LoRA: r x (d_in + d_out) per adapted linear, frozen base keeps only its 16-bit weights") {
  // Llama-2-7B, r = 8, all-linear: q,k,v,o 4 x 8 x 8192 = 262,144; gate, up, down
  // 3 x 8 x 15,104 = 362,496 -> 624,640 per layer x 32 = 19,988,480 (PEFT's count).
  Lora lora;
  lora.rank = 8;
  lora.target_modules = {"all-linear"};
  CHECK(lora_params_total(test::llama2_7b(), lora) == 19988480.0);
  lora.target_modules = {"q_proj", "v_proj"};
  CHECK(lora_params_total(test::llama2_7b(), lora) == 32.0 * 2 * 8 * 8192);

  Strategy s;
  s.backend = Backend::fsdp;
  s.dp = 8;
  s.zero = ZeroStage::zero3;
  s.lora.rank = 8;
  const ModelStateBytes b =
      model_state_bytes(test::llama2_7b(), s, PipelineStage::first, OffloadMode::training, nullptr);
  CHECK(b.weights == 2 * 6738415616.0 / 8);
  CHECK(b.gradients == 0);
  CHECK(b.optimizer == 0);
  CHECK(b.lora_adapters == 16 * 19988480.0 / 8);
}

}  // namespace
}  // namespace meshplan
