// main_ppo's V1 trainer (verl 0.9.0 on, trainer.use_v1=True, the default): the mode must be a
// registered trainer, and the separate-async mode's SeparateAsyncTrainer.__init__ asserts
// (verl/trainer/ppo/v1/trainer_separate_async.py, lines 50-63 at main@1dda039b). The engines run on
// actor_rollout_ref.rollout.nnodes x n_gpus_per_node GPUs of their own and get the weights through
// the checkpoint engine; the trainer is built after validate_config, before any worker.
#include <fmt/format.h>

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

// TaskRunnerV1.run: get_trainer_cls(trainer.v1.trainer_mode), "Unknown trainer '...'", before
// any worker starts.
std::optional<RuleHit> trainer_mode(const ConfigView& v) {
  if (!v.v1_trainer()) return std::nullopt;
  return registered_name(v, "trainer.v1.trainer_mode", "v1_trainer", "Unknown trainer",
                         "TaskRunnerV1.run fails at start-up (get_trainer_cls)");
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
  };
  return rules;
}

}  // namespace meshplan
