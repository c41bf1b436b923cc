// Data-dispatch and engine-worker rules (verl_rules_dispatch.cpp), over the baselines of
// check_support.hpp: FSDP 8 GPUs (dp 8) / Megatron TP 2 (dp 4), train 64, mini 16, rollout.n 4.
#include <doctest/doctest.h>

#include "rule_cases.hpp"
#include "verl/check_support.hpp"

namespace meshplan::test {

namespace {
constexpr const char* kEngine = "trainer.use_legacy_worker_impl=disable";
}  // namespace

// clang-format off
const std::vector<RuleCase>& dispatch_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // 63 x 4 = 252 samples over 8 ranks; fix: 63 up to a multiple of 8 / gcd(8, 4) = 2: 64.
      {"dispatch.equal-chunks", false, {kDynamicBsz, "trainer.balance_batch=False"},
       {kDynamicBsz, "trainer.balance_batch=False", "data.train_batch_size=63"}, Severity::error, "data.train_batch_size",
       "only support equal chunk. Got size of DataProto 252 and chunk 8", "data.train_batch_size=64"},
      // 61 x 4 = 244 samples: the fix is 61 up to a multiple of 8 / gcd(8, 4) = 2: 62 (248 = 31 x 8),
      // not 64 as a step of 8 would give.
      {"dispatch.equal-chunks", false, {kDynamicBsz, "trainer.balance_batch=False"},
       {kDynamicBsz, "trainer.balance_batch=False", "data.train_batch_size=61"}, Severity::error, "data.train_batch_size",
       "only support equal chunk. Got size of DataProto 244 and chunk 8", "data.train_batch_size=62"},
      {"dispatch.balance-batch-partitions", false, {kDynamicBsz}, {kDynamicBsz, "data.train_batch_size=63"}, Severity::error,
       "data.train_batch_size", "balance_batch: 252 % 8 != 0", "data.train_batch_size=64"},
      // 62 prompts x 4 = 248 samples split over 8 ranks (R8 holds), but 62 uid groups do not.
      {"dispatch.balance-batch-partitions", false, {"actor_rollout_ref.actor.use_prefix_grouper=True"},
       {"actor_rollout_ref.actor.use_prefix_grouper=True", "data.train_batch_size=62"}, Severity::error,
       "data.train_batch_size", "PrefixGrouper with balance_batch requires num_uid_groups (62) % dp_size (8) == 0",
       "data.train_batch_size=64"},
      // Megatron dp 4: each rank holds 64 x 4 / 4 = 64 samples; mini 24 x 4 // 4 = 24; 64 % 24 != 0.
      {"dispatch.megatron-mini-iterator", true, {"actor_rollout_ref.actor.ppo_mini_batch_size=32"},
       {"actor_rollout_ref.actor.ppo_mini_batch_size=24"}, Severity::error, "data.train_batch_size",
       "64 % 24 != 0: each DP rank's 64 samples (= 64 * 4 / dp 4) do not split into mini batches of 24",
       "actor_rollout_ref.actor.ppo_mini_batch_size=64"},
      // Megatron GAE critic on 8 GPUs, critic TP 1: dp 8; each rank 64 x 4 / 8 = 32 samples; critic
      // mini 24 x 4 // 8 = 12; 32 % 12 != 0 (the actor's 16 x 4 // 4 = 16 divides 64).
      {"dispatch.megatron-mini-iterator", true,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2", "critic.ppo_mini_batch_size=32"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2", "critic.ppo_mini_batch_size=24"},
       Severity::error, "data.train_batch_size",
       "32 % 12 != 0: each DP rank's 32 samples (= 64 * 4 / dp 8) do not split into mini batches of 12 (= "
       "critic.ppo_mini_batch_size 24 * 4 // dp 8)",
       "critic.ppo_mini_batch_size=64"},
      {"engine.log-prob-dynamic-agrees", false, {kEngine},
       {kEngine, "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True"}, Severity::error,
       "actor_rollout_ref.actor.use_dynamic_bsz",
       "the engine asserts actor.use_dynamic_bsz (false) == rollout.log_prob_use_dynamic_bsz (true)",
       "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False"},
      {"engine.micro-or-budget", false, {kEngine},
       {kEngine, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=null",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size=32"},
       Severity::error, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
       "the engine needs actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu (use_dynamic_bsz=False)",
       // the global 32 over dp 8, and the global goes (verl refuses both set)
       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4"},
      // mini 3 x 4 = 12 over dp 8; fix: 3 up to a multiple of 8 / gcd(8, 4) = 2: 4.
      {"engine.mini-divisible", false, {kEngine}, {kEngine, "actor_rollout_ref.actor.ppo_mini_batch_size=3"},
       Severity::error, "actor_rollout_ref.actor.ppo_mini_batch_size",
       "Got mini_batch_size=12 and self.engine.get_data_parallel_size()=8",
       "actor_rollout_ref.actor.ppo_mini_batch_size=4"},
      // verl 0.9.0 has only the engine workers (the legacy ones left in 0.8.0): the engine's checks
      // apply whatever use_legacy_worker_impl says.
      {"engine.mini-divisible", false, {}, {"actor_rollout_ref.actor.ppo_mini_batch_size=3"},
       Severity::error, "actor_rollout_ref.actor.ppo_mini_batch_size",
       "Got mini_batch_size=12 and self.engine.get_data_parallel_size()=8",
       "actor_rollout_ref.actor.ppo_mini_batch_size=4", false, false, "0.9.0"},
      // mini 16 x n 4 / dp 8 = 8 sequences a rank, cut into micro-batches of 3: prepare_micro_batches
      // asserts; the largest micro-batch that divides 8 and is at most 3 is 2. Dynamic batch sizes
      // cut by tokens instead.
      {"engine.micro-divisible", false,
       {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3", "actor_rollout_ref.actor.use_dynamic_bsz=True"},
       {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3"}, Severity::error,
       "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
       "each DP rank's share of a mini-batch is 8 (ppo_mini_batch_size 16 * rollout.n 4 / dp 8), not a multiple of "
       "ppo_micro_batch_size_per_gpu 3",
       "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2", false, false, "0.9.0"},
      // RayPPOTrainer on 0.8.0's engine workers: 64 x 4 / 8 = 32 samples a rank for the old log-probs,
      // in micro-batches of 3 (baseline's log-prob micro-batch 4 divides it).
      {"engine.log-prob-micro-divisible", false, {"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8"},
       {"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=3"}, Severity::error,
       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
       "each DP rank's share of the step is 32 (train prompts 64 * rollout.n 4 / dp 8), not a multiple of "
       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu 3",
       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2", false, false, "0.8.0"},
  };
  return cases;
}
// clang-format on

TEST_CASE("verl data-dispatch and engine rules") {
  for (const RuleCase& c : dispatch_rule_cases()) check_rule_case(c);
}

TEST_CASE("before verl 0.8.0 the engine's checks need use_legacy_worker_impl=disable") {
  // b178a3cd still builds the legacy fsdp_workers by default: mini 3 x 4 = 12 over dp 8 is then
  // the legacy normalisation's business (3 x 4 // 8 = 1, divisible by micro 1), not the engine's.
  const CheckReport legacy = check_lines(with(fsdp_baseline(), {"actor_rollout_ref.actor.ppo_mini_batch_size=3",
                                                                "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"}),
                                         "ppo_trainer", with_qwen_7b());
  CHECK(findings_of(legacy, "engine.mini-divisible").empty());
}

TEST_CASE("verl 0.9.0 on: the V1 trainer pads the step's batch, so uneven splits fail only in the legacy trainer") {
  // 63 prompts x 4 = 252 samples over 8 ranks: the legacy trainer's balance_batch fails; the V1
  // trainer (use_v1, the default) pads to lcm(8, 16 x 4) = 64 multiples first.
  CheckOptions options = with_qwen_7b();
  options.read.verl_version = "main@1dda039b";
  const std::vector<std::string> uneven = with(fsdp_baseline(), {kDynamicBsz, "data.train_batch_size=63"});
  CHECK(findings_of(check_lines(uneven, "ppo_trainer", options), "dispatch.balance-batch-partitions").empty());
  CHECK(findings_of(check_lines(with(uneven, {"trainer.balance_batch=False"}), "ppo_trainer", options),
                    "dispatch.equal-chunks")
            .empty());
  CHECK(findings_of(check_lines(with(uneven, {"trainer.use_v1=False"}), "ppo_trainer", options),
                    "dispatch.balance-batch-partitions")
            .size() == 1);
  // The legacy Megatron actor's mini-batch iterator is gone from verl 0.8.0 (megatron_actor.py).
  const std::vector<std::string> mini24 = with(megatron_baseline(), {"actor_rollout_ref.actor.ppo_mini_batch_size=24"});
  options.read.verl_version = "0.8.0";
  CHECK(findings_of(check_lines(mini24, "ppo_megatron_trainer", options), "dispatch.megatron-mini-iterator").empty());
  options.read.verl_version = "0.7.1";
  CHECK(findings_of(check_lines(mini24, "ppo_megatron_trainer", options), "dispatch.megatron-mini-iterator").size() ==
        1);
}

}  // namespace meshplan::test
