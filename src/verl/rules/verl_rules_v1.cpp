// main_ppo's V1 trainer (verl 0.9.0 on, trainer.use_v1=True, the default): the mode must be a
// registered trainer, DAPO group filtering needs its metric at sampling time, the sync mode's
// prompts come in whole gen_batch_size fetches, and the separate-async mode's
// SeparateAsyncTrainer.__init__ asserts
// (verl/trainer/ppo/v1/trainer_separate_async.py, lines 50-63 at main@1dda039b). The engines run on
// actor_rollout_ref.rollout.nnodes x n_gpus_per_node GPUs of their own and get the weights through
// the checkpoint engine; the trainer is built after validate_config, before any worker.
#include <fmt/format.h>

#include <array>
#include <string_view>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kSeparateAsync = "SeparateAsyncTrainer.__init__ asserts it at start-up (AssertionError)";

// Only a launch that certainly runs the separate-async trainer: use_v1 and the mode both known.
bool separate_async(const ConfigView& v) {
  return v.boolean("trainer.use_v1").value_or(false) &&
         v.text("trainer.v1.trainer_mode") == std::optional<std::string>("separate_async");
}

// One step trains parameter_sync_step mini-batches of the step's prompts between two syncs.
std::optional<RuleHit> sync_step_batch(const ConfigView& v) {
  if (!separate_async(v)) return std::nullopt;
  const auto train = v.integer("data.train_batch_size");
  const auto mini = v.integer(A("ppo_mini_batch_size"));
  const auto steps = v.integer("trainer.v1.separate_async.parameter_sync_step");
  if (!train || !mini || !steps || *train == *steps * *mini) return std::nullopt;
  RuleHit hit{std::to_string(*train),
              fmt::format("train_batch_size must equal parameter_sync_step * ppo_mini_batch_size in separate async "
                          "training, but got train_batch_size={}, parameter_sync_step={}, ppo_mini_batch_size={}; {}",
                          *train, *steps, *mini, kSeparateAsync),
              {}};
  if (*mini > 0 && *train % *mini == 0) {
    hit.fix = {fmt::format("trainer.v1.separate_async.parameter_sync_step={}", *train / *mini)};
  } else {
    hit.fix = {fmt::format("data.train_batch_size={}", *steps * *mini)};
  }
  return hit;
}

// The standalone engines' GPUs: both sizes must be positive.
std::optional<RuleHit> rollout_pool(const ConfigView& v) {
  if (!separate_async(v)) return std::nullopt;
  for (const char* key : {"nnodes", "n_gpus_per_node"}) {
    const auto value = v.integer(R(key));
    if (!value || *value > 0) continue;
    return RuleHit{std::to_string(*value),
                   fmt::format("{} must be > 0 in separate async training ({} is {}): the engines run on "
                               "actor_rollout_ref.rollout.nnodes x n_gpus_per_node GPUs of their own; {}",
                               key, R(key), *value, kSeparateAsync),
                   {R(key) + "=" + (std::string(key) == "nnodes" ? "1" : "8")}};
  }
  return std::nullopt;
}

// The weights cross to engines of their own: the in-place "naive" backend cannot.
std::optional<RuleHit> checkpoint_backend(const ConfigView& v) {
  if (!separate_async(v)) return std::nullopt;
  if (v.text(R("checkpoint_engine.backend")) != std::optional<std::string>("naive")) return std::nullopt;
  return RuleHit{"naive",
                 fmt::format("please use nccl/nixl/mooncake, etc. backend for separate async training; {}",
                             kSeparateAsync),
                 {R("checkpoint_engine.backend") + "=nccl"}};
}

// PPOTrainer._build_replay_buffer -> _resolve_filter_groups_metric (trainer/ppo/v1/trainer_base.py
// at 0.9.0 and main@1dda039b), in the trainer's constructor, when the built-in replay buffer
// samples (no trainer.v1.sampler.custom_sampler path and name) and DAPO group filtering is on: the
// groups are filtered at sampling time by a metric of the reward's extra info.
bool v1_group_filtering(const ConfigView& v) {
  if (!v.v1_trainer() || !v.boolean("algorithm.filter_groups.enable").value_or(false)) return false;
  const bool custom_sampler = v.text("trainer.v1.sampler.custom_sampler.path").value_or("") != "" &&
                              v.text("trainer.v1.sampler.custom_sampler.name").value_or("") != "";
  return !custom_sampler;
}

std::optional<RuleHit> filter_groups_metric(const ConfigView& v) {
  if (!v1_group_filtering(v) || v.text("algorithm.filter_groups.metric").value_or("") != "") return std::nullopt;
  // Which metric exists depends on the reward function (a key of its extra info: verl's DAPO math
  // reward returns acc), so no value is offered as a fix.
  return RuleHit{"null",
                 "algorithm.filter_groups.metric must be set when group filtering is enabled: the V1 trainer "
                 "filters groups at sampling time by a key of the reward's extra info (verl's DAPO math reward: "
                 "acc); PPOTrainer._build_replay_buffer raises it at start-up (ValueError)",
                 {}};
}

// The same function, next: a reward model sharing the trainer's GPUs scores only after the
// replay buffer sampled, too late for the filter.
std::optional<RuleHit> filter_groups_reward(const ConfigView& v) {
  if (!v1_group_filtering(v) || v.text("algorithm.filter_groups.metric").value_or("") == "") return std::nullopt;
  if (!v.boolean("reward.reward_model.enable").value_or(false)) return std::nullopt;
  if (v.boolean("reward.reward_model.enable_resource_pool").value_or(false)) return std::nullopt;
  // enable_resource_pool=True also needs the pool's reward.reward_model.nnodes and n_gpus_per_node
  // (PPOTrainer._init_resource_pool_mgr raises otherwise), sizes only the user knows: no fix.
  return RuleHit{"True",
                 "algorithm.filter_groups requires the reward metric at sampling time: use rule-based reward or "
                 "reward.reward_model.enable_resource_pool=True (with reward.reward_model.nnodes and "
                 "n_gpus_per_node). A colocated reward model computes rewards only after replay-buffer sampling; "
                 "PPOTrainer._build_replay_buffer asserts it at start-up (AssertionError)",
                 {}};
}

// TaskRunnerV1.run: get_trainer_cls(trainer.v1.trainer_mode), "Unknown trainer '...'", before
// any worker starts.
std::optional<RuleHit> trainer_mode(const ConfigView& v) {
  if (!v.v1_trainer()) return std::nullopt;
  return registered_name(v, "trainer.v1.trainer_mode", "v1_trainer", "Unknown trainer",
                         "TaskRunnerV1.run fails at start-up (get_trainer_cls)");
}

// The sync mode's prompts come in whole dataloader batches of data.gen_batch_size (default the
// train batch): PPOTrainer._next_train_batch raises unless the step's train_batch_size prompts are a
// multiple of it. The other modes, DAPO's group filtering and the sampler's refill set it to 1
// themselves (PPOTrainer's dataloader set-up).
std::optional<RuleHit> gen_batch_size(const ConfigView& v) {
  if (!v.v1_trainer() || v.text("trainer.v1.trainer_mode").value_or("sync") != "sync" ||
      v.boolean("algorithm.filter_groups.enable").value_or(false) ||
      v.boolean("trainer.v1.sampler.sync_refill_failed_groups").value_or(false)) {
    return std::nullopt;
  }
  const auto gen = v.integer("data.gen_batch_size");
  const auto train = v.integer("data.train_batch_size");
  if (!gen || !train || *gen <= 0 || (*train > 0 && *train % *gen == 0)) return std::nullopt;
  return RuleHit{std::to_string(*gen),
                 fmt::format("num_prompts ({}) must be a positive multiple of gen_batch_size ({}); it is submitted in "
                             "whole gen_batch_size dataloader fetches: would fail when the first step fetches its "
                             "prompts (PPOTrainer._next_train_batch)",
                             *train, *gen),
                 {"data.gen_batch_size=null"}};
}

// A reward model on the trainer's GPUs would need the standalone engines to pause, which they never do.
std::optional<RuleHit> separate_async_reward_pool(const ConfigView& v) {
  if (!separate_async(v) || !v.boolean("reward.reward_model.enable").value_or(false) ||
      v.boolean("reward.reward_model.enable_resource_pool").value_or(false)) {
    return std::nullopt;
  }
  return RuleHit{"false",
                 fmt::format("Colocate reward model (reward.reward_model.enable_resource_pool=False) is not supported "
                             "in separate async mode, because the standalone rollout never pauses to free GPU memory; "
                             "{}",
                             kSeparateAsync),
                 {"reward.reward_model.enable_resource_pool=True"}};
}

// PPOTrainer builds its replay buffer at start-up (trainer_base.py _build_replay_buffer,
// replay_buffer.py ReplayBuffer.__init__): the staleness bound must be a positive integer and its
// strategy drop or wait; with DAPO's group filtering on the built-in buffer, at most
// max_inflight_gen_batches (positive) generation batches run at once.
std::optional<RuleHit> replay_buffer(const ConfigView& v) {
  if (!v.v1_trainer()) return std::nullopt;
  const std::string sampler = "trainer.v1.sampler.";
  constexpr const char* kAtBuild = "would fail at start-up, when PPOTrainer builds its replay buffer";
  const auto threshold = v.integer(sampler + "max_off_policy_threshold");
  if (threshold && *threshold <= 0) {
    return RuleHit{std::to_string(*threshold),
                   fmt::format("Invalid max off policy threshold: {}, must be an integer greater than 0; {}",
                               *threshold, kAtBuild),
                   {sampler + "max_off_policy_threshold=8"}};
  }
  static constexpr std::array<std::string_view, 2> kStrategies = {"drop", "wait"};
  if (auto hit = one_of(v, sampler + "max_off_policy_strategy", kStrategies, "Invalid max off policy strategy",
                        kAtBuild)) {
    return hit;
  }
  const bool custom_sampler = v.text(sampler + "custom_sampler.path").value_or("") != "" &&
                              v.text(sampler + "custom_sampler.name").value_or("") != "";
  if (custom_sampler || !v.boolean("algorithm.filter_groups.enable").value_or(false)) return std::nullopt;
  const auto inflight = v.integer("algorithm.filter_groups.max_inflight_gen_batches");
  if (!inflight || *inflight > 0) return std::nullopt;
  return RuleHit{std::to_string(*inflight),
                 fmt::format("max_inflight_gen_batches must be a positive integer (group filtering on the built-in "
                             "replay buffer); {}",
                             kAtBuild),
                 {"algorithm.filter_groups.max_inflight_gen_batches=1"}};
}

}  // namespace

const std::vector<VerlRule>& v1_trainer_rules() {
  static const std::vector<VerlRule> rules = {
      {"v1.trainer-mode",
       Severity::error,
       {"trainer.v1.trainer_mode", "trainer.use_v1"},
       trainer_mode,
       false,
       "verl/trainer/ppo/v1/trainer_base.py:get_trainer_cls"},
      {"v1.separate-async-batch",
       Severity::error,
       {"data.train_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size",
        "trainer.v1.separate_async.parameter_sync_step", "trainer.v1.trainer_mode"},
       sync_step_batch,
       false,
       "verl/trainer/ppo/v1/trainer_separate_async.py:SeparateAsyncTrainer.__init__"},
      {"v1.separate-async-pool",
       Severity::error,
       {"actor_rollout_ref.rollout.nnodes", "actor_rollout_ref.rollout.n_gpus_per_node", "trainer.v1.trainer_mode"},
       rollout_pool,
       false,
       "verl/trainer/ppo/v1/trainer_separate_async.py:SeparateAsyncTrainer.__init__"},
      {"v1.separate-async-backend",
       Severity::error,
       {"actor_rollout_ref.rollout.checkpoint_engine.backend", "trainer.v1.trainer_mode"},
       checkpoint_backend,
       false,
       "verl/trainer/ppo/v1/trainer_separate_async.py:SeparateAsyncTrainer.__init__"},
      {"v1.filter-groups-metric",
       Severity::error,
       {"algorithm.filter_groups.metric", "algorithm.filter_groups.enable"},
       filter_groups_metric,
       false,
       "verl/trainer/ppo/v1/trainer_base.py:PPOTrainer._resolve_filter_groups_metric"},
      {"v1.filter-groups-reward",
       Severity::error,
       {"reward.reward_model.enable", "reward.reward_model.enable_resource_pool", "algorithm.filter_groups.enable"},
       filter_groups_reward,
       false,
       "verl/trainer/ppo/v1/trainer_base.py:PPOTrainer._resolve_filter_groups_metric"},
      {"v1.separate-async-reward-pool",
       Severity::error,
       {"reward.reward_model.enable_resource_pool", "reward.reward_model.enable", "trainer.v1.trainer_mode"},
       separate_async_reward_pool,
       false,
       "verl/trainer/ppo/v1/trainer_separate_async.py:SeparateAsyncTrainer.__init__"},
      {"v1.replay-buffer",
       Severity::error,
       {"trainer.v1.sampler.max_off_policy_threshold", "trainer.v1.sampler.max_off_policy_strategy",
        "algorithm.filter_groups.max_inflight_gen_batches"},
       replay_buffer,
       false,
       "verl/trainer/ppo/v1/replay_buffer.py:ReplayBuffer.__init__"},
      {"v1.gen-batch-size",
       Severity::error,
       {"data.gen_batch_size", "data.train_batch_size", "trainer.v1.trainer_mode"},
       gen_batch_size,
       false,
       "verl/trainer/ppo/v1/trainer_base.py:PPOTrainer._next_train_batch"},
  };
  return rules;
}

}  // namespace meshplan
