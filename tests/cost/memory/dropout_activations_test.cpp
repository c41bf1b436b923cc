// Dropout read from config.json and counted as Korthikanti et al. 2022 Table 2 counts it: the
// per-GPU activations of GPT-3 175B (their Table 3 configuration: h 12288, a 96, L 96, s 2048,
// b 1, t 8, p 8) for no recompute, selective and full, with and without sequence parallelism,
// and with the interleaved schedule's in-flight factor, worked by hand below.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/activations.hpp"
#include "model/config_reader.hpp"

namespace meshplan {
namespace {

// GPT-3 175B as a GPT-2 style config.json with its dropout rates (attn_pdrop, resid_pdrop,
// embd_pdrop = 0.1 as in GPT-2/GPT-3).
ModelSpec gpt3_175b(double dropout) {
  const std::string rate = std::to_string(dropout);
  const std::string json = R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 12288,
    "n_head": 96, "n_layer": 96, "n_positions": 2048, "vocab_size": 51200, "attn_pdrop": )" +
                           rate + R"(, "resid_pdrop": )" + rate + R"(, "embd_pdrop": )" + rate + "}";
  Result<ModelSpec> model = parse_model_config(json, "gpt3-175b");
  REQUIRE(model.ok());
  return *model;
}

Strategy paper_strategy(bool sp, Recompute recompute, int vpp) {
  Strategy s;
  s.tp = 8;
  s.pp = 8;
  s.vpp = vpp;
  s.dp = 1;
  s.sequence_parallel = sp;
  s.recompute = recompute;
  s.recompute_num_layers = 1;
  return s;
}

double first_stage(const ModelSpec& model, bool sp, Recompute recompute, int vpp = 1) {
  MemoryOptions options;
  options.flash_attention = false;  // Table 2 stores the attention scores
  MicroBatchShape mb;
  mb.seq_tokens = 2048;
  mb.kv_tokens = 2048;
  mb.sequences = 1;
  mb.microbatches = 64;
  return stage_activation_bytes(model, paper_strategy(sp, recompute, vpp), PipelineStage::first, mb, options,
                                nullptr);
}

// sbh = 2048 x 12288 = 25,165,824; 5as/(ht) = 5 x 96 x 2048 / (12288 x 8) = 10.
// The first stage holds L/p = 12 layers for p = 8 micro-batches in flight = 96 layer passes,
// plus per micro-batch the int64 input ids 8sb = 16,384 and the embedding dropout mask sbh/t
// (3,145,728) with SP or sbh without (Megatron theoretical_memory_usage.py; Korthikanti §4.3).
constexpr double kSbh = 2048.0 * 12288.0;

TEST_CASE("dropout rates are read from config.json (GPT-2 names and Hugging Face names)") {
  const ModelSpec with = gpt3_175b(0.1);
  CHECK(with.attention_dropout == test::approx(0.1));
  CHECK(with.hidden_dropout == test::approx(0.1));
  CHECK(with.embedding_dropout == test::approx(0.1));
  const Result<ModelSpec> bad = parse_model_config(
      R"({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "n_positions": 64, "vocab_size": 100,
          "attn_pdrop": 1.5})",
      "bad");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string().find("attn_pdrop") != std::string::npos);
}

TEST_CASE("Korthikanti Table 2 per GPU with dropout: GPT-3 175B, t = 8, p = 8") {
  const ModelSpec gpt3 = gpt3_175b(0.1);
  const double embedding_sp = 8 * (16384.0 + kSbh / 8);  // p x (ids + mask / t)
  const double embedding = 8 * (16384.0 + kSbh);          // p x (ids + mask)
  // No recompute, SP: sbh(34/t + 5as/(ht)) = 14.25 sbh = 358,612,992 per layer; x 96 =
  // 34,426,847,232; + 25,296,896 = 34,452,144,128 bytes.
  CHECK(first_stage(gpt3, true, Recompute::none) == test::approx(96 * 14.25 * kSbh + embedding_sp));
  CHECK(first_stage(gpt3, true, Recompute::none) == test::approx(34452144128.0));
  // No recompute, no SP: sbh(10 + 24/t + 5as/(ht)) = 23 sbh = 578,813,952; x 96 = 55,566,139,392;
  // + 8 x (16,384 + 25,165,824) = 201,457,664 -> 55,767,597,056.
  CHECK(first_stage(gpt3, false, Recompute::none) == test::approx(55767597056.0));
  CHECK(first_stage(gpt3, false, Recompute::none) == test::approx(96 * 23 * kSbh + embedding));
  // Selective, SP: 34/t sbh = 4.25 sbh = 106,954,752; x 96 = 10,267,656,192; + 25,296,896.
  CHECK(first_stage(gpt3, true, Recompute::selective) == test::approx(10292953088.0));
  // Selective, no SP: (10 + 24/t) sbh = 13 sbh; x 96 + 201,457,664.
  CHECK(first_stage(gpt3, false, Recompute::selective) == test::approx(96 * 13 * kSbh + embedding));
  // Full (uniform, 1 layer per chunk), SP: 2sbh/t = 6,291,456 per layer; x 96 = 603,979,776;
  // + 25,296,896 embedding + the backward's one recomputed layer (14.25 sbh = 358,612,992,
  // Megatron recomputes a chunk at a time) = 987,889,664.
  CHECK(first_stage(gpt3, true, Recompute::full) == test::approx(987889664.0));
  // Full, no SP: 2sbh per layer x 96 + 201,457,664 + one layer of 23 sbh.
  CHECK(first_stage(gpt3, false, Recompute::full) == test::approx(96 * 2 * kSbh + embedding + 23 * kSbh));
  // Interleaved, v = 2: in flight p(1 + (p-1)/(pv)) = 8 x (1 + 7/16) = 11.5; 12 layers x 11.5 =
  // 138 layer passes x 358,612,992 = 49,488,592,896; + 11.5 x 3,162,112 = 36,364,288 ->
  // 49,524,957,184.
  CHECK(first_stage(gpt3, true, Recompute::none, 2) == test::approx(49524957184.0));
}

TEST_CASE("without dropout in config.json the masks are not counted (Table 2 less 3as/h and 2 sbh/t)") {
  const ModelSpec gpt3 = gpt3_175b(0.0);
  // SP, no recompute: (32/t + 2as/(ht)) sbh = (4 + 4) sbh per layer; x 96 + 8 x 16,384 ids.
  CHECK(first_stage(gpt3, true, Recompute::none) == test::approx(96 * 8 * kSbh + 8 * 16384.0));
}

}  // namespace
}  // namespace meshplan
