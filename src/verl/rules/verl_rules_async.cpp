// The fully-async trainer's own start-up checks (verl.experimental.fully_async_policy.fully_async_main
// from v0.7.1, recipe.fully_async_policy in v0.6.1 / v0.7.0; line numbers at main@1dda039b) and the
// main_ppo rules it does not run. Its main() calls run_ppo with FullyAsyncTaskRunner and never
// validate_config (only main_ppo.py and the one-step-off main_ppo.py call it), and
// FullyAsyncTrainer / FullyAsyncRollouter do not call RayPPOTrainer.__init__.
#include <fmt/format.h>

#include <array>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kRollouter =
    "would fail at start-up when the rollouter is created (FullyAsyncRollouter.__init__; from v0.7.1 after the "
    "trainer's workers took their GPUs)";

bool at_or_after(const ConfigView& v, const char* id) {
  const auto first = find_verl_version(id);
  return first && v.version().index >= first->index;
}

// fully_async_rollouter.py:351 `assert self.config.data.train_batch_size == 0`: the rollouter
// feeds the queue one prompt at a time (gen_batch_size) and the trainer takes ppo_mini_batch_size x
// require_batches a step; fully_async_ppo_trainer.yaml leaves ppo_trainer's 1024 in place.
std::optional<RuleHit> train_batch_zero(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto train = v.integer("data.train_batch_size");
  if (!train || *train == 0) return std::nullopt;
  return RuleHit{std::to_string(*train),
                 fmt::format("train_batch_size must be zero (data.train_batch_size is {}): the fully-async trainer takes "
                             "ppo_mini_batch_size x async_training.require_batches prompts a step; {}",
                             *train, kRollouter),
                 {"data.train_batch_size=0"}};
}

// fully_async_rollouter.py:352.
std::optional<RuleHit> gen_batch_one(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto gen = v.integer("data.gen_batch_size");
  if (!gen || *gen == 1) return std::nullopt;
  return RuleHit{std::to_string(*gen), fmt::format("gen_batch_size must be one (data.gen_batch_size is {}); {}", *gen,
                                                   kRollouter),
                 {"data.gen_batch_size=1"}};
}

// fully_async_rollouter.py:353.
std::optional<RuleHit> staleness(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto threshold = v.number("async_training.staleness_threshold");
  if (!threshold || *threshold >= 0) return std::nullopt;
  return RuleHit{fmt::format("{:g}", *threshold),
                 fmt::format("staleness_threshold must larger than 0 (async_training.staleness_threshold is {:g}); {}",
                             *threshold, kRollouter),
                 {"async_training.staleness_threshold=0"}};
}

// fully_async_rollouter.py:354-356.
std::optional<RuleHit> trigger_sync_step(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto step = v.integer("async_training.trigger_parameter_sync_step");
  if (!step || *step >= 1) return std::nullopt;
  return RuleHit{std::to_string(*step),
                 fmt::format("trigger_parameter_sync_step must larger or equal than 1 "
                             "(async_training.trigger_parameter_sync_step is {}); {}",
                             *step, kRollouter),
                 {"async_training.trigger_parameter_sync_step=1"}};
}

// fully_async_rollouter.py:733 (_validate_config): the trainer's off-policy correction reads the
// rollout's log-probs (v0.6.1 / v0.7.0's rollout.yaml defaults it to False).
std::optional<RuleHit> calculate_log_probs(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto calculate = v.boolean(R("calculate_log_probs"));
  if (!calculate || *calculate) return std::nullopt;
  return RuleHit{"false", fmt::format("must rollout calculate log_probs; {}", kRollouter),
                 {std::string(R("calculate_log_probs")) + "=True"}};
}

// fully_async_rollouter.py:842 (v0.6.1: :283) `assert ...rollout.mode == "async"`; from v0.7.0
// RolloutConfig refuses "sync" first (rule rollout.mode-sync-removed).
std::optional<RuleHit> rollout_mode(const ConfigView& v) {
  if (!v.fully_async()) return std::nullopt;
  const auto mode = v.text(R("mode"));
  if (!mode || *mode == "async" || (*mode == "sync" && at_or_after(v, "0.7.0"))) return std::nullopt;
  return RuleHit{*mode,
                 fmt::format("the fully-async rollouter asserts rollout.mode == \"async\" (it is \"{}\"); would fail at "
                             "start-up when the rollouter builds its servers",
                             *mode),
                 {std::string(R("mode")) + "=async"}};
}

// fully_async_rollouter.py:360-365 (v0.8.0 on): a generative or discriminative reward model runs
// on a pool of its own, since async rollout never pauses.
std::optional<RuleHit> reward_model_pool(const ConfigView& v) {
  if (!v.fully_async() || !at_or_after(v, "0.8.0") || !v.boolean("reward.reward_model.enable").value_or(false)) {
    return std::nullopt;
  }
  if (v.boolean("reward.reward_model.enable_resource_pool").value_or(false)) return std::nullopt;
  return RuleHit{"false",
                 fmt::format("GenRM/DisRM in fully async mode requires standalone mode (enable_resource_pool=True). "
                             "Colocate mode is not supported because async rollout never pauses; {}",
                             kRollouter),
                 {"reward.reward_model.enable_resource_pool=True"}};
}

// FullyAsyncTrainer builds a critic (GAE or critic.enable) as a TrainingWorker and calls its
// init_model (fully_async_trainer.py:476-477), which TrainingWorker does not define at
// main@1dda039b (engine_workers.py:76-450): read, not run, so a warning; verl's own fully-async
// launches all run GRPO / DAPO without a critic.
std::optional<RuleHit> critic(const ConfigView& v) {
  if (!v.fully_async() || !at_or_after(v, "0.7.1") || !v.uses_critic()) return std::nullopt;
  return RuleHit{v.text("algorithm.adv_estimator").value_or("gae"),
                 "the fully-async trainer's critic path calls init_model on a TrainingWorker, which does not define it "
                 "(fully_async_trainer.py:476-477 at main@1dda039b, read, not run): a critic (adv_estimator=gae or "
                 "critic.enable) is likely to stop at start-up; verl's fully-async launches run GRPO / DAPO without one",
                 {"algorithm.adv_estimator=grpo"}};
}

// The one-step-off and fully-async trainers build their critic in SeparateRayPPOTrainer
//._create_critic_class (verl/experimental/separation/ray_trainer.py): as an engine TrainingWorker
// from an FSDP config only, any other critic strategy raising NotImplementedError when the workers
// are created (from 0.8.0; at 0.7.1 on that path only with use_legacy_worker_impl=disable).
std::optional<RuleHit> separation_critic_strategy(const ConfigView& v) {
  if (!v.separate_rollout_pool() || v.v1_separate_async() || !v.uses_critic()) return std::nullopt;
  if (!at_or_after(v, "0.8.0") &&
      !(at_or_after(v, "0.7.1") && v.text("trainer.use_legacy_worker_impl").value_or("auto") == "disable")) {
    return std::nullopt;
  }
  const std::string strategy = v.text("critic.strategy").value_or("fsdp");
  if (strategy == "fsdp") return std::nullopt;
  return RuleHit{strategy,
                 fmt::format("Unknown strategy self.orig_critic_cfg.strategy='{}': the one-step-off and fully-async "
                             "trainers build their critic from an FSDP config only; would fail when the workers are "
                             "created (SeparateRayPPOTrainer._create_critic_class)",
                             strategy),
                 {"critic.strategy=fsdp"}};
}

}  // namespace

const std::vector<VerlRule>& fully_async_rules() {
  static const std::vector<VerlRule> rules = {
      {"async.train-batch-zero", Severity::error, {"data.train_batch_size"}, train_batch_zero},
      {"async.gen-batch-one", Severity::error, {"data.gen_batch_size"}, gen_batch_one},
      {"async.staleness", Severity::error, {"async_training.staleness_threshold"}, staleness},
      {"async.trigger-sync-step", Severity::error, {"async_training.trigger_parameter_sync_step"}, trigger_sync_step},
      {"async.calculate-log-probs", Severity::error, {"actor_rollout_ref.rollout.calculate_log_probs"},
       calculate_log_probs},
      {"async.rollout-mode", Severity::error, {"actor_rollout_ref.rollout.mode"}, rollout_mode},
      {"async.reward-model-pool", Severity::error,
       {"reward.reward_model.enable", "reward.reward_model.enable_resource_pool"}, reward_model_pool},
      {"async.critic", Severity::warning, {"algorithm.adv_estimator", "critic.enable"}, critic},
      {"async.critic-strategy", Severity::error, {"critic.strategy", "algorithm.adv_estimator"},
       separation_critic_strategy, false, "verl/experimental/separation/ray_trainer.py:SeparateRayPPOTrainer"},
  };
  return rules;
}

bool not_run_by_fully_async(std::string_view rule_id) {
  // validate_config (verl/utils/config.py:74-202): batch sizes, the deprecated global micro-batches
  // and their exclusivity, critic.validate (FSDPCriticConfig.validate), the validation temperature
  // and the legacy reward-model worker's micro-batches.
  static constexpr std::array<std::string_view, 11> kValidateConfig = {
      "batch.sizes-positive",       "batch.train-divisible",
      "batch.mini-le-train",        "batch.critic-mini-le-train",
      "batch.deprecated-micro",     "batch.rollout-log-prob-micro-exclusive",
      "batch.ref-log-prob-micro-exclusive", "batch.critic-micro-exclusive",
      "rollout.val-temperature",    "reward.micro-exclusive",
      "critic.deprecated-micro-covers-gpus"};
  for (std::string_view id : kValidateConfig) {
    if (id == rule_id) return true;
  }
  return false;
}

}  // namespace meshplan
