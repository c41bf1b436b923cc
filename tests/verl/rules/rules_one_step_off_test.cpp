// verl's one-step-off trainer (recipe/one_step_off_policy from v0.5.0, verl/experimental/ from
// main@b178a3cd): its entry point composes one_step_off_ppo_trainer.yaml (ppo_trainer + a
// top-level `rollout` pool) and runs the engines on rollout.nnodes x rollout.n_gpus_per_node GPUs of
// their own. The rules over check_support.hpp's one_step_off_baseline(): the FSDP baseline's
// trainer on 1 x 8 GPUs, a rollout pool of 1 x 8 more, hybrid_engine off.
#include <doctest/doctest.h>

#include "rule_cases.hpp"
#include "verl/check_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan::test {

// clang-format off
const std::vector<RuleCase>& one_step_off_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // A pool of 6 GPUs holds one 4-GPU replica (TP 4), 2 GPUs left over; 8 GPUs hold two.
      {"rollout.pool-whole-replicas", false, {"actor_rollout_ref.rollout.tensor_model_parallel_size=4"},
       {"actor_rollout_ref.rollout.tensor_model_parallel_size=4", "rollout.n_gpus_per_node=6"}, Severity::warning,
       "actor_rollout_ref.rollout.tensor_model_parallel_size",
       "the rollout pool's 6 GPUs (rollout.nnodes x rollout.n_gpus_per_node) are not a whole number of 4-GPU replicas "
       "(rollout TP*DP*PP): 2 GPU(s) stay idle", "", true},
      // SeparateRayPPOTrainer._create_critic_class: an FSDP critic only (0.8.0 on).
      {"async.critic-strategy", false,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=1", "critic.strategy=fsdp"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=1", "critic.strategy=fsdp2"},
       Severity::error, "critic.strategy", "Unknown strategy self.orig_critic_cfg.strategy='fsdp2'",
       "critic.strategy=fsdp", true, false, "0.9.0"},
      // OneStepOffRayTrainer.__init__: assert not self.hybrid_engine (the inverse of main_ppo's).
      {"trainer.hybrid-engine", false, {}, {"actor_rollout_ref.hybrid_engine=True"}, Severity::error,
       "actor_rollout_ref.hybrid_engine", "OneStepOffRayTrainer.__init__ asserts not hybrid_engine",
       "actor_rollout_ref.hybrid_engine=False", true},
      // create_resource_pool_manager: "config.rollout.n_gpus_per_node must be greater than 0".
      {"trainer.gpu-count", false, {"rollout.n_gpus_per_node=1"}, {"rollout.n_gpus_per_node=0"}, Severity::error,
       "trainer.nnodes", "rollout.n_gpus_per_node is 0", "rollout.n_gpus_per_node=1", true},
      // CheckpointEngineWorker.__init__ (verl 0.9.0 on): delta_sharded applies through SGLang only.
      {"rollout.delta-sharded-sglang", false,
       {"actor_rollout_ref.rollout.checkpoint_engine.backend=delta_sharded", "actor_rollout_ref.rollout.name=sglang"},
       {"actor_rollout_ref.rollout.checkpoint_engine.backend=delta_sharded"}, Severity::error,
       "actor_rollout_ref.rollout.checkpoint_engine.backend",
       "currently supports only the sglang rollout (got rollout.name='vllm')",
       "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl", true, false, "main@1dda039b"},
      // "hccl" was a registered name until verl 0.7.1 (the Ascend engine registers as "nccl" since).
      {"rollout.checkpoint-engine-backend", false, {"actor_rollout_ref.rollout.checkpoint_engine.backend=nixl"},
       {"actor_rollout_ref.rollout.checkpoint_engine.backend=hccl"}, Severity::error,
       "actor_rollout_ref.rollout.checkpoint_engine.backend",
       "Checkpoint engine 'hccl' is not one of verl main@1dda039b's {delta_sharded, kimi_ckpt_engine, mooncake, naive, "
       "nccl, nixl}; CheckpointEngineManager fails at start-up: not registered; 'hccl' exists in verl main@b178a3cd",
       "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl", true, false, "main@1dda039b"},
  };
  return cases;
}
// clang-format on

TEST_CASE("one-step-off rules: the rollout pool, the hybrid engine off, the pool's sizes") {
  for (const RuleCase& c : one_step_off_rule_cases()) check_rule_case(c);
}

TEST_CASE("the one-step-off baseline is clean and composes the trainer's own config") {
  const CheckReport report = check_lines(one_step_off_baseline(), "one_step_off_ppo_trainer", with_qwen_7b());
  CHECK(report.config_name == "one_step_off_ppo_trainer");
  for (const Finding& f : report.findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);
  // The same lines under main_ppo: rollout.* is not a key of ppo_trainer and hybrid_engine must be on.
  const CheckReport as_main_ppo = check_lines(one_step_off_baseline(), "ppo_trainer", with_qwen_7b());
  CHECK(findings_of(as_main_ppo, "hydra.unknown-key").size() == 2);
  CHECK(findings_of(as_main_ppo, "trainer.hybrid-engine").size() == 1);
}

TEST_CASE("the one-step-off entry points are read, each where its verl has it") {
  const std::string args =
      " actor_rollout_ref.hybrid_engine=False trainer.n_gpus_per_node=6 rollout.n_gpus_per_node=2"
      " actor_rollout_ref.rollout.tensor_model_parallel_size=2 data.train_batch_size=48"
      " actor_rollout_ref.actor.ppo_mini_batch_size=12 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2"
      " actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4\n";
  struct Entry {
    const char* module;
    const char* verl;
    bool composed;
  };
  for (const Entry& e : {Entry{"verl.experimental.one_step_off_policy.main_ppo", "main@1dda039b", true},
                         Entry{"recipe.one_step_off_policy.main_ppo", "0.6.1", true},
                         Entry{"recipe/one_step_off_policy/main_ppo.py", "0.5.0", true},
                         Entry{"recipe.one_step_off_policy.main_ppo", "0.4.1", false}}) {
    CAPTURE(e.module);
    // verl 0.4.1 has no one-step-off trainer: passed over with a note, never an error.
    const VerlLaunch launch = read_entry_point(e.module, e.verl, args, e.composed);
    if (!e.composed) continue;
    CHECK(launch.config_name == "one_step_off_ppo_trainer");
    // The trainer's GPUs from trainer.*, the engines' from the rollout pool, one batch in flight.
    const VerlJob job = verl_to_strategy(launch.config);
    CHECK(job.nnodes * job.gpus_per_node == 6);
    CHECK(job.workload.rl.rollout_gpus == 2);
    CHECK(job.workload.rl.off_policy_steps == 1);
    // The overlay turns the engine's sleep off (weights stay for the NCCL sync), from v0.7.0 on.
    if (std::string(e.verl) == "main@1dda039b") CHECK_FALSE(job.workload.rl.free_cache_engine);
  }
}

TEST_CASE("the entry point decides the trainer, not the keys a launch adds") {
  // A main_ppo launch that adds a top-level rollout pool (+rollout.n_gpus_per_node, as a research
  // fork's script does) still runs RayPPOTrainer, which asserts hybrid_engine: no one-step-off
  // rule, no pool in the memory fit.
  const std::string launch =
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=64 "
      "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.ppo_mini_batch_size=16 "
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
      "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 +rollout.nnodes=1 +rollout.n_gpus_per_node=8\n";
  VerlReadOptions options;
  options.verl_version = "main@1dda039b";
  auto read = read_verl_launch(launch, "run.sh", options);
  REQUIRE(read.ok());
  CHECK(read->trainer == VerlTrainer::main_ppo);
  CHECK(verl_to_strategy(read->config, read->trainer).workload.rl.rollout_gpus == 0);
  CheckOptions check_options;
  check_options.read.verl_version = "main@1dda039b";
  const auto report = check_launch({InputText{"run.sh", launch}}, check_options);
  REQUIRE(report.ok());
  CHECK(findings_of(*report, "trainer.hybrid-engine").empty());
  CHECK(findings_of(*report, "trainer.gpu-count").empty());
}

TEST_CASE("--cluster counts the rollout pool beside the trainer's GPUs") {
  CheckOptions options = with_qwen_7b();
  options.cluster_gpus = 8;  // the baseline needs 8 + 8
  const CheckReport report = check_lines(one_step_off_baseline(), "one_step_off_ppo_trainer", options);
  const std::vector<Finding> hits = findings_of(report, "memory.cluster-mismatch");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("asks for 8 and the rollout pool (its nnodes x n_gpus_per_node) for 8 more") !=
        std::string::npos);
  options.cluster_gpus = 16;
  CHECK(findings_of(check_lines(one_step_off_baseline(), "one_step_off_ppo_trainer", options),
                    "memory.cluster-mismatch")
            .empty());
}

}  // namespace meshplan::test
