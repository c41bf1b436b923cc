#include <doctest/doctest.h>

#include "diagnose/fix_renderer.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

namespace {
NumberValue num(double value) { return NumberValue{value, "", false}; }
NumberValue txt(std::string text) { return NumberValue{0, std::move(text), true}; }
FixContext with_config(std::map<std::string, std::string, std::less<>> config) {
  FixContext context;
  context.config = std::move(config);
  return context;
}
}  // namespace

TEST_CASE("format_number: integers plain, others with at most two decimals") {
  CHECK(format_number(8) == "8");
  CHECK(format_number(9.28) == "9.28");
  CHECK(format_number(0.5) == "0.5");
  CHECK(format_number(600000) == "600000");
}

TEST_CASE("placeholders: config values, halves, numbers, phase") {
  const FixContext context = with_config({{"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", "16"}});
  const Numbers numbers = {{"free_gib", num(3.02)}, {"op_type", txt("ALLGATHER")}};
  CHECK(fill_placeholders("micro={half:actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}  # was "
                          "{cfg:actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}",
                          numbers, "", context) == "micro=8  # was 16");
  CHECK(fill_placeholders("{n:free_gib} GiB, {n:op_type} in {phase}", numbers, "update_actor", context) ==
        "3.02 GiB, ALLGATHER in update_actor");
  CHECK_FALSE(fill_placeholders("{n:missing}", numbers, "", context).has_value());
  CHECK(fill_placeholders("{'GPU': 1.0}", numbers, "", context) == "{'GPU': 1.0}");  // not a placeholder
}

TEST_CASE("derived numbers, each worked by hand") {
  const FixContext none;
  // vLLM free-memory check: 15.32 / 22.04 = 0.6951 -> 69.51 - 2 points of margin = 67.51 -> 0.67.
  CHECK(fill_placeholders("{d:gmu_fit}", {{"free_gib", num(15.32)}, {"total_gib", num(22.04)}}, "", none) == "0.67");
  // real_train_batch_size 500 = 100 x n=5; minimal 8: the step is 8 / gcd(8, 5) = 8, so 100 -> 104.
  const FixContext n5 = with_config({{"actor_rollout_ref.rollout.n", "5"}});
  CHECK(fill_placeholders("{d:train_batch_fit}", {{"real_train_batch_size", num(500)}, {"minimal_batch_size", num(8)}},
                          "", n5) == "104");
  // Normalized mini-batch 12 with micro 8: the largest divisor of 12 not above 8 is 6.
  CHECK(fill_placeholders("{d:micro_fit}", {{"normalized_mini_batch", num(12)}, {"micro_batch_per_gpu", num(8)}}, "",
                          none) == "6");
  // 40 heads (Qwen2.5-14B, 8 KV heads) with SP 16: powers of two dividing 40 are 1, 2, 4, 8 -> 8
  // (10 would divide 40 but not the 8 KV heads).
  CHECK(fill_placeholders("{d:power_of_two_divisor}", {{"heads", num(40)}, {"ulysses_sp_size", num(16)}}, "", none) ==
        "8");
  CHECK(fill_placeholders("{d:divisors_of_world}", {{"world_size", num(12)}}, "", none) == "1, 2, 3, 4, 6, 12");
  // verl perf_tuning.rst: the token budget should be >= 2 x the sequence: 2 x 9216 = 18432.
  CHECK(fill_placeholders("{d:token_budget_fit}", {{"max_seq_len", num(9216)}}, "", none) == "18432");
  CHECK(fill_placeholders("{d:timeout_double_s}", {{"timeout_ms", num(600000)}}, "", none) == "1200");
  const FixContext gmu = with_config({{"actor_rollout_ref.rollout.gpu_memory_utilization", "0.7"}});
  CHECK(fill_placeholders("{d:gmu_lower} {d:gmu_raise}", {}, "", gmu) == "0.6 0.8");
  const FixContext lengths = with_config({{"data.max_prompt_length", "2048"}, {"data.max_response_length", "4096"}});
  CHECK(fill_placeholders("{d:prompt_plus_response}", {}, "", lengths) == "6144");
  // V1 separate async: 64 prompts in mini-batches of 16 take 4 syncs' worth; 60 / 16 is no whole count.
  CHECK(fill_placeholders("{d:sync_step_fit}", {{"train_batch_size", num(64)}, {"ppo_mini_batch_size", num(16)}}, "",
                          none) == "4");
  CHECK_FALSE(fill_placeholders("{d:sync_step_fit}", {{"train_batch_size", num(60)}, {"ppo_mini_batch_size", num(16)}},
                                "", none)
                  .has_value());
  // Qwen3.5's embedding, 248320 x 5120 bf16: 2,542,796,800 bytes = 2425 MiB; the next power of two
  // MiB that holds it whole is 4096 (verl's default bucket, 2048, does not).
  const NumberValue shape{0, "248320, 5120", true};
  const NumberValue bf16{0, "bfloat16", true};
  CHECK(fill_placeholders("{d:weight_mib} {d:bucket_fit_mb}", {{"weight_shape", shape}, {"weight_dtype", bf16}}, "",
                          none) == "2425 4096");
  const NumberValue unknown_dtype{0, "qint4", true};
  CHECK_FALSE(
      fill_placeholders("{d:bucket_fit_mb}", {{"weight_shape", shape}, {"weight_dtype", unknown_dtype}}, "", none)
          .has_value());
}

TEST_CASE("render_fix: phase filter, unless, only_if and the generic fallback") {
  const FixTemplate micro{FixKind::override_line, "micro={half:micro}", "micro=<half>", "update_actor"};
  CHECK(render_fix(micro, {}, "generate_sequences", {}) == std::nullopt);    // other phase
  CHECK(render_fix(micro, {}, "update_actor", {})->text == "micro=<half>");  // no config: the knob
  CHECK(render_fix(micro, {}, "", with_config({{"micro", "16"}}))->text == "micro=8");  // unknown phase: shown
  const FixTemplate offload{FixKind::override_line, "offload=True", "", "", "offload=True"};
  CHECK(render_fix(offload, {}, "", with_config({{"offload", "true"}})) == std::nullopt);
  CHECK(render_fix(offload, {}, "", {})->text == "offload=True");
  const FixTemplate undo{FixKind::override_line, "offload=False", "offload=False  # if on", "", "", "offload=True"};
  CHECK(render_fix(undo, {}, "", with_config({{"offload", "False"}})) == std::nullopt);
  CHECK(render_fix(undo, {}, "", with_config({{"offload", "True"}}))->text == "offload=False");
  CHECK(render_fix(undo, {}, "", {})->text == "offload=False  # if on");
}

TEST_CASE("model derivations: Megatron TP for the heads, the rollout weights' share of the GPU") {
  FixContext context;
  ModelSpec model;
  model.attention.num_heads = 28;  // Qwen2.5-7B: 28 heads, 4 KV heads
  model.attention.num_kv_heads = 4;
  context.model = model;
  // TP 8 was asked: 7 divides 28 but not the 4 KV heads; 4 divides both.
  CHECK(fill_placeholders("{d:tp_fit}", {{"tensor_parallel_size", NumberValue{8, "", false}}}, "", context) == "4");
  CHECK_FALSE(fill_placeholders("{d:rollout_weight_share}", {}, "", context).has_value());  // no TP, no GPU
}

}  // namespace meshplan
