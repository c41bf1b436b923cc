// verl's fully-async trainer (recipe/fully_async_policy in v0.6.1 / v0.7.0, verl/experimental/ from
// v0.7.1): its entry point composes fully_async_ppo_trainer.yaml (ppo_trainer + async_training + a
// top-level `rollout` pool) and runs no validate_config. The rules over check_support.hpp's
// fully_async_baseline(): the FSDP baseline's trainer on 1 x 8 GPUs, a rollout pool of 1 x 8 more,
// hybrid_engine off, data.train_batch_size 0; a step is ppo_mini_batch_size 16 x require_batches 1
// prompts x rollout.n 4 = 64 samples over DP 8.
#include <doctest/doctest.h>

#include "rule_cases.hpp"
#include "verl/check_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan::test {

// clang-format off
const std::vector<RuleCase>& fully_async_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // fully_async_rollouter.py:351-356 at main@1dda039b, each with its message.
      {"async.train-batch-zero", false, {}, {"data.train_batch_size=64"}, Severity::error, "data.train_batch_size",
       "train_batch_size must be zero (data.train_batch_size is 64)", "data.train_batch_size=0", false, true},
      {"async.gen-batch-one", false, {"data.gen_batch_size=1"}, {"data.gen_batch_size=4"}, Severity::error,
       "data.gen_batch_size", "gen_batch_size must be one", "data.gen_batch_size=1", false, true},
      {"async.staleness", false, {"async_training.staleness_threshold=0"}, {"async_training.staleness_threshold=-0.5"},
       Severity::error, "async_training.staleness_threshold", "staleness_threshold must larger than 0",
       "async_training.staleness_threshold=0", false, true},
      {"async.trigger-sync-step", false, {"async_training.trigger_parameter_sync_step=1"},
       {"async_training.trigger_parameter_sync_step=0"}, Severity::error, "async_training.trigger_parameter_sync_step",
       "trigger_parameter_sync_step must larger or equal than 1", "async_training.trigger_parameter_sync_step=1", false,
       true},
      // _validate_config (:733).
      {"async.calculate-log-probs", false, {}, {"actor_rollout_ref.rollout.calculate_log_probs=False"}, Severity::error,
       "actor_rollout_ref.rollout.calculate_log_probs", "must rollout calculate log_probs",
       "actor_rollout_ref.rollout.calculate_log_probs=True", false, true},
      // :842 asserts mode == "async" (a "sync" is refused first by RolloutConfig from v0.7.0).
      {"async.rollout-mode", false, {"actor_rollout_ref.rollout.mode=async"}, {"actor_rollout_ref.rollout.mode=spmd"},
       Severity::error, "actor_rollout_ref.rollout.mode", "asserts rollout.mode == \"async\" (it is \"spmd\")",
       "actor_rollout_ref.rollout.mode=async", false, true},
      // :360-365 (v0.8.0 on): a reward model needs its own resource pool.
      {"async.reward-model-pool", false,
       {"reward.reward_model.enable=True", "reward.reward_model.enable_resource_pool=True"},
       {"reward.reward_model.enable=True"}, Severity::error, "reward.reward_model.enable",
       "requires standalone mode (enable_resource_pool=True)", "reward.reward_model.enable_resource_pool=True", false,
       true, "main@1dda039b"},
      // A critic (GAE) on the fully-async trainer: read as unsupported, not run: a warning.
      {"async.critic", false, {}, {"algorithm.adv_estimator=gae"}, Severity::warning, "algorithm.adv_estimator",
       "calls init_model on a TrainingWorker", "algorithm.adv_estimator=grpo", false, true, "main@1dda039b"},
      // FullyAsyncTrainer.__init__ (:75-76): assert not self.hybrid_engine.
      {"trainer.hybrid-engine", false, {}, {"actor_rollout_ref.hybrid_engine=True"}, Severity::error,
       "actor_rollout_ref.hybrid_engine", "FullyAsyncTrainer.__init__ asserts not hybrid_engine",
       "actor_rollout_ref.hybrid_engine=False", false, true},
      // A step of 16 x 1 prompts x 4 over DP 6: 64 % 6 != 0 at the first step's balance_batch
      // (seqlen_balancing.py); the mini-batch 18 (72 = 12 x 6) splits.
      {"dispatch.balance-batch-partitions", false, {}, {"trainer.n_gpus_per_node=6"}, Severity::error,
       "data.train_batch_size",
       "balance_batch: 64 % 6 != 0 (ppo_mini_batch_size * async_training.require_batches * rollout.n",
       "actor_rollout_ref.actor.ppo_mini_batch_size=18", false, true},
  };
  return cases;
}
// clang-format on

TEST_CASE("fully-async rules: the rollouter's asserts, the hybrid engine off, a step's split") {
  for (const RuleCase& c : fully_async_rule_cases()) check_rule_case(c);
}

TEST_CASE("the fully-async baseline is clean: main_ppo's validate_config does not run") {
  const CheckReport report = check_lines(fully_async_baseline(), "fully_async_ppo_trainer", with_qwen_7b());
  CHECK(report.config_name == "fully_async_ppo_trainer");
  for (const Finding& f : report.findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);
  // The same train_batch_size 0 under the one-step-off trainer (main_ppo's validate_config runs):
  // a batch size must be at least 1, and the mini-batch 16 exceeds it.
  const CheckReport validated =
      check_lines(fully_async_baseline(), "one_step_off_ppo_trainer", with_qwen_7b());
  CHECK(findings_of(validated, "batch.sizes-positive").size() == 1);
  CHECK(findings_of(validated, "batch.mini-le-train").size() == 1);
  // A step's deprecated global micro-batch alone: validate_config would refuse it at start-up; the
  // fully-async trainer's engine workers refuse it in init_model (engine.micro-or-budget).
  const CheckReport global_micro =
      check_lines(with(fully_async_baseline(), {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=null",
                                                "actor_rollout_ref.actor.ppo_micro_batch_size=16"}),
                  "fully_async_ppo_trainer", with_qwen_7b());
  CHECK(findings_of(global_micro, "batch.deprecated-micro").empty());
  CHECK(findings_of(global_micro, "engine.micro-or-budget").size() == 1);
}

TEST_CASE("the fully-async entry points are read, each where its verl has it") {
  const std::string args =
      " actor_rollout_ref.hybrid_engine=False data.train_batch_size=0 trainer.n_gpus_per_node=4"
      " rollout.n_gpus_per_node=4 rollout.nnodes=1 actor_rollout_ref.rollout.tensor_model_parallel_size=2"
      " actor_rollout_ref.rollout.mode=async actor_rollout_ref.rollout.calculate_log_probs=True"
      " actor_rollout_ref.actor.ppo_mini_batch_size=32 async_training.require_batches=2"
      " actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2"
      " actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4\n";
  struct Entry {
    const char* module;
    const char* verl;
    bool composed;
  };
  for (const Entry& e : {Entry{"verl.experimental.fully_async_policy.fully_async_main", "main@1dda039b", true},
                         Entry{"verl.experimental.fully_async_policy.fully_async_main", "0.7.1", true},
                         Entry{"recipe.fully_async_policy.fully_async_main", "0.7.0", true},
                         Entry{"recipe/fully_async_policy/fully_async_main.py", "0.6.1", true},
                         Entry{"recipe.fully_async_policy.fully_async_main", "0.6.0", false}}) {
    CAPTURE(e.module);
    CAPTURE(e.verl);
    // verl 0.6.0 has no fully-async trainer: passed over with a note, never an error.
    const VerlLaunch launch = read_entry_point(e.module, e.verl, args, e.composed);
    if (!e.composed) continue;
    CHECK(launch.config_name == "fully_async_ppo_trainer");
    // The trainer's GPUs from trainer.*, the engines' from the rollout pool; a step of
    // ppo_mini_batch_size x require_batches = 64 prompts.
    const VerlJob job = verl_to_strategy(launch.config);
    CHECK(job.nnodes * job.gpus_per_node == 4);
    CHECK(job.workload.rl.rollout_gpus == 4);
    CHECK(job.workload.global_batch == 64);
  }
}

}  // namespace meshplan::test
