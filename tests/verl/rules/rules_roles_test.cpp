// Critic and reward-model rules (verl_rules_roles.cpp), over the FSDP baseline of
// check_support.hpp: 1 node x 8 GPUs, train 64, actor mini 16, rollout.n 4.
#include <doctest/doctest.h>

#include "rule_cases.hpp"

namespace meshplan::test {

// clang-format off
const std::vector<RuleCase>& role_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // R15: the legacy RM (use_reward_loop=False) with neither micro batch.
      {"reward.micro-exclusive", false,
       {"reward_model.enable=True", "reward_model.use_reward_loop=False", "reward_model.micro_batch_size_per_gpu=4"},
       {"reward_model.enable=True", "reward_model.use_reward_loop=False"}, Severity::error, "reward_model.micro_batch_size",
       "[reward_model] Please set at least one of 'reward_model.micro_batch_size' or 'reward_model.micro_batch_size_per_gpu'",
       "reward_model.micro_batch_size_per_gpu=1"},
      // R17: deprecated critic micro 4 * sp 1 < N 8; 8 * 1 >= 8 passes (and 16 % 8 == 0 keeps R25 quiet).
      {"critic.deprecated-micro-covers-gpus", false,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size=8", "critic.ppo_micro_batch_size_per_gpu=null"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size=4", "critic.ppo_micro_batch_size_per_gpu=null"},
       Severity::error, "critic.ppo_micro_batch_size",
       "critic.ppo_micro_batch_size (4) * ulysses_sequence_parallel_size (1) must be >= n_gpus (8)",
       "critic.ppo_micro_batch_size=null"},
      // R25: critic mini 16 (= actor mini) % 12 != 0; 12 >= 8 keeps R17 quiet.
      {"critic.deprecated-micro-divides-mini", false,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size=16", "critic.ppo_micro_batch_size_per_gpu=null"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size=12", "critic.ppo_micro_batch_size_per_gpu=null"},
       Severity::error, "critic.ppo_micro_batch_size",
       "[critic] ppo_mini_batch_size (16) must be divisible by ppo_micro_batch_size (12)", "critic.ppo_micro_batch_size=null"},
      // R38: reward_model.nnodes defaults to 0.
      {"reward.pool-sizes", false, {"reward_model.enable_resource_pool=True", "reward_model.nnodes=1"},
       {"reward_model.enable_resource_pool=True"}, Severity::error, "reward_model.enable_resource_pool",
       "config.reward_model.nnodes must be greater than 0", "reward_model.nnodes=1"},
      {"reward.pool-sizes", false, {"reward_model.enable_resource_pool=True", "reward_model.nnodes=1"},
       {"reward_model.enable_resource_pool=True", "reward_model.nnodes=1", "reward_model.n_gpus_per_node=0"},
       Severity::error, "reward_model.enable_resource_pool", "config.reward_model.n_gpus_per_node must be greater than 0",
       "reward_model.n_gpus_per_node=8"},
      // The FSDP critic's split (CriticWorker.__init__): 16 x 4 // dp 8 = 8 a rank, micro 3.
      {"batch.fsdp-critic-mini-divisible", false,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=3"}, Severity::error,
       "critic.ppo_mini_batch_size",
       "normalized ppo_mini_batch_size 8 (critic: 16 * 4 // dp 8) should be divisible by ppo_micro_batch_size_per_gpu 3",
       "critic.ppo_micro_batch_size_per_gpu=1"},
      // TaskRunner.add_reward_model_worker picks the worker by strategy (to b178a3cd).
      {"reward.model-strategy", false, {"reward_model.enable=True", "reward_model.strategy=fsdp2"},
       {"reward_model.enable=True", "reward_model.strategy=fsdp3"}, Severity::error, "reward_model.strategy",
       "reward model strategy 'fsdp3' is not one of {fsdp, fsdp2, megatron}; NotImplementedError",
       "reward_model.strategy=fsdp"},
      // From v0.7.1 the pool is reward.reward_model's (main_ppo_v0.py and the V1 trainer at 0.9.0).
      {"reward.pool-sizes", false,
       {"reward.reward_model.enable_resource_pool=True", "reward.reward_model.nnodes=1"},
       {"reward.reward_model.enable_resource_pool=True"}, Severity::error, "reward_model.enable_resource_pool",
       "config.reward.reward_model.nnodes must be greater than 0", "reward.reward_model.nnodes=1", false, false,
       "0.9.0"},
      // From v0.8.0 the critic is an engine TrainingWorker: 3 x 4 = 12 samples over 8 DP ranks.
      {"engine.critic-mini-divisible", false,
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=1", "critic.ppo_mini_batch_size=4"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=1", "critic.ppo_mini_batch_size=3"},
       Severity::error, "critic.ppo_mini_batch_size",
       "Got mini_batch_size=12 and self.engine.get_data_parallel_size()=8", "critic.ppo_mini_batch_size=4", false,
       false, "0.9.0"},
      // 16 x 4 / 8 = 8 samples a rank, micro-batches of 3.
      {"engine.critic-micro-divisible", false, {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=3"}, Severity::error,
       "critic.ppo_micro_batch_size_per_gpu",
       "each critic DP rank's share of a mini-batch is 8 (ppo_mini_batch_size 16 * rollout.n 4 / dp 8), not a "
       "multiple of critic.ppo_micro_batch_size_per_gpu 3", "critic.ppo_micro_batch_size_per_gpu=2", false, false,
       "0.9.0"},
      // verl 0.7.1's own ppo_veomni_trainer.yaml keeps use_legacy_worker_impl=auto: the legacy path raises.
      {"trainer.legacy-worker-strategy", false,
       {"actor_rollout_ref.actor.strategy=veomni", "trainer.use_legacy_worker_impl=disable"},
       {"actor_rollout_ref.actor.strategy=veomni"}, Severity::error, "actor_rollout_ref.actor.strategy",
       "veomni does not support legacy worker implementation: trainer.use_legacy_worker_impl is auto",
       "trainer.use_legacy_worker_impl=disable", false, false, "0.7.1"},
      // dp_actor.py _optimizer_step asserts grad_clip (the legacy workers: verl 0.5.0 has only those).
      {"fsdp.grad-clip-set", false, {"actor_rollout_ref.actor.grad_clip=0.5"},
       {"actor_rollout_ref.actor.grad_clip=null"},
       Severity::error, "actor_rollout_ref.actor.grad_clip",
       "assert self.config.grad_clip is not None: actor_rollout_ref.actor.grad_clip is null; would fail at the first "
       "actor update (dp_actor.py _optimizer_step)", "actor_rollout_ref.actor.grad_clip=1.0", false, false, "0.5.0"},
      // From v0.8.0 the critic is an engine TrainingWorker: the FSDP engine asserts optim.clip_grad.
      {"fsdp.grad-clip-set", false, {"algorithm.adv_estimator=gae", "critic.optim.clip_grad=0.5"},
       {"algorithm.adv_estimator=gae", "critic.optim.clip_grad=null"}, Severity::error,
       "actor_rollout_ref.actor.grad_clip",
       "assert self.optimizer_config.clip_grad is not None: critic.optim.clip_grad is null; would fail at the first "
       "critic update (engine/fsdp/transformer_impl.py optimizer_step)", "critic.optim.clip_grad=1.0", false, false,
       "0.9.0"},
  };
  return cases;
}
// clang-format on

TEST_CASE("verl role rules: critic and reward model") {
  for (const RuleCase& c : role_rule_cases()) check_rule_case(c);
}

TEST_CASE("R24: the deprecated critic micro batch alone also sets the per-GPU one") {
  // critic.ppo_micro_batch_size_per_gpu: ${oc.select:.ppo_micro_batch_size,null} resolves to 8,
  // so verl sees both set (verl-rules.md R24).
  check_rule_case({"batch.critic-micro-exclusive",
                   false,
                   {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2"},
                   {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size=8"},
                   Severity::error,
                   "critic.ppo_micro_batch_size",
                   "[critic] You have set both 'critic.ppo_micro_batch_size' AND",
                   "critic.ppo_micro_batch_size=null"});
}

}  // namespace meshplan::test
