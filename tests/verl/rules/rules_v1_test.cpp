// The V1 trainer's rules (verl_rules_v1.cpp: separate-async mode, DAPO group filtering) over the FSDP baseline of
// check_support.hpp (train batch 64, mini-batch 16) at verl main@1dda039b, where trainer.use_v1
// is on by default and parameter_sync_step defaults to 4: 64 = 4 x 16.
#include <doctest/doctest.h>

#include "rule_cases.hpp"
#include "verl/check_support.hpp"

namespace meshplan::test {

namespace {
constexpr const char* kMode = "trainer.v1.trainer_mode=separate_async";
constexpr const char* kPool = "actor_rollout_ref.rollout.nnodes=1";
constexpr const char* kNccl = "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl";
constexpr const char* kVerl = "main@1dda039b";
}  // namespace

// clang-format off
const std::vector<RuleCase>& v1_rule_cases() {
  static const std::vector<RuleCase> cases = {
      {"v1.trainer-mode", false, {"trainer.v1.trainer_mode=colocate_async"}, {"trainer.v1.trainer_mode=async"},
       Severity::error, "trainer.v1.trainer_mode",
       "Unknown trainer 'async' is not one of verl main@1dda039b's {colocate_async, separate_async, sync}",
       "trainer.v1.trainer_mode=sync", false, false, kVerl},
      {"v1.separate-async-batch", false, {kMode, kPool, kNccl},
       {kMode, kPool, kNccl, "trainer.v1.separate_async.parameter_sync_step=2"}, Severity::error,
       "data.train_batch_size",
       "train_batch_size must equal parameter_sync_step * ppo_mini_batch_size in separate async training, but got "
       "train_batch_size=64, parameter_sync_step=2, ppo_mini_batch_size=16",
       "trainer.v1.separate_async.parameter_sync_step=4", false, false, kVerl},
      // rollout.nnodes defaults to 0: the mode needs a pool of its own.
      {"v1.separate-async-pool", false, {kMode, kPool, kNccl}, {kMode, kNccl}, Severity::error,
       "actor_rollout_ref.rollout.nnodes", "nnodes must be > 0 in separate async training",
       "actor_rollout_ref.rollout.nnodes=1", false, false, kVerl},
      // The checkpoint engine's default backend is naive.
      {"v1.separate-async-backend", false, {kMode, kPool, kNccl}, {kMode, kPool}, Severity::error,
       "actor_rollout_ref.rollout.checkpoint_engine.backend",
       "please use nccl/nixl/mooncake, etc. backend for separate async training",
       "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl", false, false, kVerl},
      // DAPO group filtering in the V1 trainer (sync mode, the default): its metric is a key of the
      // reward's extra info, which only the reward function knows: no fix is offered.
      {"v1.filter-groups-metric", false, {"algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=acc"},
       {"algorithm.filter_groups.enable=True"}, Severity::error, "algorithm.filter_groups.metric",
       "algorithm.filter_groups.metric must be set when group filtering is enabled", "", false, false, kVerl},
      // A reward model on the trainer's GPUs scores after sampling: the filter has no metric yet.
      {"v1.filter-groups-reward", false,
       {"algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=acc", "reward.reward_model.enable=True",
        "reward.reward_model.enable_resource_pool=True"},
       {"algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=acc", "reward.reward_model.enable=True"},
       Severity::error, "reward.reward_model.enable",
       "algorithm.filter_groups requires the reward metric at sampling time", "", false, false, kVerl},
      // The standalone engines never pause: a reward model needs a pool of its own (its nnodes 1).
      {"v1.separate-async-reward-pool", false,
       {kMode, kPool, kNccl, "reward.reward_model.enable=True", "reward.reward_model.enable_resource_pool=True",
        "reward.reward_model.nnodes=1"},
       {kMode, kPool, kNccl, "reward.reward_model.enable=True"}, Severity::error,
       "reward.reward_model.enable_resource_pool",
       "Colocate reward model (reward.reward_model.enable_resource_pool=False) is not supported in separate async mode",
       "reward.reward_model.enable_resource_pool=True", false, false, kVerl},
      {"v1.replay-buffer", false, {"trainer.v1.sampler.max_off_policy_strategy=wait"},
       {"trainer.v1.sampler.max_off_policy_strategy=block"}, Severity::error,
       "trainer.v1.sampler.max_off_policy_threshold",
       "Invalid max off policy strategy 'block' is not one of {drop, wait}", "", false, false, kVerl},
      // The sync mode fetches the step's 64 prompts in batches of gen_batch_size: 48 does not divide 64.
      {"v1.gen-batch-size", false, {"data.gen_batch_size=32"}, {"data.gen_batch_size=48"}, Severity::error,
       "data.gen_batch_size",
       "num_prompts (64) must be a positive multiple of gen_batch_size (48); it is submitted in whole "
       "gen_batch_size dataloader fetches", "data.gen_batch_size=null", false, false, kVerl},
  };
  return cases;
}
// clang-format on

TEST_CASE("the V1 trainer's replay buffer: a positive staleness bound, and group filtering's in-flight batches") {
  CheckOptions options;
  options.read.verl_version = kVerl;
  const auto findings = [&options](const std::vector<std::string>& extra) {
    return findings_of(check_lines(with(fsdp_baseline(), extra), "ppo_trainer", options), "v1.replay-buffer");
  };
  const auto zero = findings({"trainer.v1.sampler.max_off_policy_threshold=0"});
  REQUIRE(zero.size() == 1);
  CHECK(zero[0].message.find("Invalid max off policy threshold: 0, must be an integer greater than 0") == 0);
  const std::vector<std::string> dapo = {"algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=acc",
                                         "algorithm.filter_groups.max_inflight_gen_batches=0"};
  CHECK(findings(dapo).size() == 1);
  CHECK(findings(with(dapo, {"trainer.v1.sampler.custom_sampler.path=my.py",
                             "trainer.v1.sampler.custom_sampler.name=MySampler"}))
            .empty());
  CHECK(findings({"trainer.v1.sampler.max_off_policy_threshold=0", "trainer.use_v1=False"}).empty());
}

// DAPO's group filtering, the sampler's refill and the async modes fetch one prompt at a time
// (gen_batch_size forced to 1), so their gen_batch_size is never checked.
TEST_CASE("the V1 trainer's gen_batch_size only matters to the sync mode's whole fetches") {
  CheckOptions options;
  options.read.verl_version = kVerl;
  const auto count = [&options](const std::vector<std::string>& extra) {
    return findings_of(check_lines(with(fsdp_baseline(), extra), "ppo_trainer", options), "v1.gen-batch-size").size();
  };
  CHECK(count({"data.gen_batch_size=48"}) == 1);
  CHECK(count({"data.gen_batch_size=48", "trainer.v1.trainer_mode=colocate_async"}) == 0);
  CHECK(count({"data.gen_batch_size=48", "algorithm.filter_groups.enable=True",
               "algorithm.filter_groups.metric=acc"}) == 0);
  CHECK(count({"data.gen_batch_size=48", "trainer.use_v1=False"}) == 0);
  CHECK(count({"data.gen_batch_size=128"}) == 1);  // 64 prompts are no multiple of 128 either
}

TEST_CASE("V1 rules: the batch per sync, the engines' own pool, a weight-sync backend, DAPO group filtering") {
  for (const RuleCase& c : v1_rule_cases()) check_rule_case(c);
}

TEST_CASE("V1 separate-async rules stay quiet for the other modes, the legacy trainer and verl before 0.9.0") {
  const std::vector<std::string> broken = with(fsdp_baseline(), {"trainer.v1.separate_async.parameter_sync_step=2"});
  CheckOptions options;
  options.read.verl_version = kVerl;
  // trainer_mode defaults to sync.
  CHECK(findings_of(check_lines(broken, "ppo_trainer", options), "v1.separate-async-batch").empty());
  std::vector<std::string> legacy = with(broken, {kMode, "trainer.use_v1=False"});
  CHECK(findings_of(check_lines(legacy, "ppo_trainer", options), "v1.separate-async-batch").empty());
  CHECK(findings_of(check_lines(with(broken, {kMode}), "ppo_trainer", options), "v1.separate-async-batch").size() == 1);
  // The legacy trainer filters groups its own way (ray_trainer.py): no V1 finding there.
  const std::vector<std::string> filtering = with(fsdp_baseline(), {"algorithm.filter_groups.enable=True"});
  CHECK(findings_of(check_lines(with(filtering, {"trainer.use_v1=False"}), "ppo_trainer", options),
                    "v1.filter-groups-metric")
            .empty());
  // verl 0.8.0 has no V1 trainer (its config has no trainer.v1: the keys are unknown there).
  options.read.verl_version = "0.8.0";
  CHECK(findings_of(check_lines(with(broken, {"+trainer.v1.trainer_mode=separate_async"}), "ppo_trainer", options),
                    "v1.separate-async-batch")
            .empty());
}

TEST_CASE("V1 separate-async: the engines on actor_rollout_ref.rollout's pool, no hybrid-engine assert") {
  CheckOptions options = with_qwen_7b();
  options.read.verl_version = kVerl;
  // A pool of 1 x 6 GPUs holds one TP 4 replica: 2 idle, named by the V1 pool's keys.
  const std::vector<std::string> six = with(fsdp_baseline(), {kMode, kPool, kNccl,
                                                              "actor_rollout_ref.rollout.n_gpus_per_node=6",
                                                              "actor_rollout_ref.rollout.tensor_model_parallel_size=4"});
  const std::vector<Finding> idle = findings_of(check_lines(six, "ppo_trainer", options), "rollout.pool-whole-replicas");
  REQUIRE(idle.size() == 1);
  CHECK(idle[0].message.find("the rollout pool's 6 GPUs (actor_rollout_ref.rollout.nnodes x "
                             "actor_rollout_ref.rollout.n_gpus_per_node) are not a whole number of 4-GPU replicas") !=
        std::string::npos);
  // --cluster holds the trainer's 8 GPUs and the pool's 8.
  std::vector<std::string> eight = with(fsdp_baseline(), {kMode, kPool, kNccl});
  options.cluster_gpus = 16;
  CHECK(findings_of(check_lines(eight, "ppo_trainer", options), "memory.cluster-mismatch").empty());
  options.cluster_gpus = 8;
  CHECK(findings_of(check_lines(eight, "ppo_trainer", options), "memory.cluster-mismatch").size() == 1);
  options.cluster_gpus = 0;
  // RayPPOTrainer's "only support hybrid engine" runs only in the legacy trainer (use_v1=False).
  const std::vector<std::string> no_hybrid = with(fsdp_baseline(), {"actor_rollout_ref.hybrid_engine=False"});
  CHECK(findings_of(check_lines(no_hybrid, "ppo_trainer", options), "trainer.hybrid-engine").empty());
  CHECK(findings_of(check_lines(with(no_hybrid, {"trainer.use_v1=False"}), "ppo_trainer", options),
                    "trainer.hybrid-engine")
            .size() == 1);
  // verl 0.8.0's main_ppo is RayPPOTrainer's.
  options.read.verl_version = "0.8.0";
  CHECK(findings_of(check_lines(no_hybrid, "ppo_trainer", options), "trainer.hybrid-engine").size() == 1);
}

}  // namespace meshplan::test
