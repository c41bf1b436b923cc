// Option-value rules (../shared/docs/verl-rules.md R3, R4, R18, R22, R23, R27, R31, R37, R40,
// R71-R74) and value ranges: names verl looks up in registries, removed options.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/text.hpp"
#include "verl/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kAtStart = "would fail at start-up (validate_config / dataclass __post_init__)";

template <std::size_t N>
std::optional<RuleHit> one_of(const ConfigView& v, const std::string& key, const std::array<std::string_view, N>& allowed,
                              const std::string& what) {
  const ConfigNode* node = v.node(key);
  if (node == nullptr || node->kind == NodeKind::null) return std::nullopt;
  const auto value = v.text(key);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return std::nullopt;
  std::vector<std::string> names(allowed.begin(), allowed.end());
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  RuleHit hit{*value, fmt::format("{} '{}' is not one of {{{}}}; {}", what, *value, list, kAtStart), {}};
  if (auto near = nearest_match(*value, names)) hit.fix = {key + "=" + *near};
  return hit;
}

std::optional<RuleHit> rollout_name(const ConfigView& v) {
  const ConfigNode* node = v.node(R("name"));
  if (node != nullptr && node->kind == NodeKind::missing) {
    return RuleHit{"???",
                   "Missing mandatory value: actor_rollout_ref.rollout.name (OmegaConf MissingMandatoryValue when verl "
                   "reads it at start-up)",
                   {R("name") + "=vllm"}};
  }
  static constexpr std::array<std::string_view, 3> kEngines = {"vllm", "sglang", "trtllm"};
  return one_of(v, R("name"), kEngines, "rollout engine");
}

std::optional<RuleHit> rollout_mode(const ConfigView& v) {
  if (v.text(R("mode")).value_or("async") != "sync") return std::nullopt;
  return RuleHit{"sync",
                 "Rollout mode 'sync' has been removed (ValueError in RolloutConfig.__post_init__ at start-up)",
                 {R("mode") + "=async"}};
}

std::optional<RuleHit> gpu_memory_utilization(const ConfigView& v) {
  const auto value = v.number(R("gpu_memory_utilization"));
  if (!value || (*value > 0 && *value <= 1)) return std::nullopt;
  return RuleHit{fmt::format("{}", *value),
                 "gpu_memory_utilization must be in (0, 1]: it is the fraction of GPU memory the rollout engine may take "
                 "(vLLM rejects other values when the server starts)",
                 {R("gpu_memory_utilization") + "=0.6"}};
}

std::optional<RuleHit> loss_agg_mode(const ConfigView& v) {
  static constexpr std::array<std::string_view, 4> kModes = {"token-mean", "seq-mean-token-sum", "seq-mean-token-mean",
                                                             "seq-mean-token-sum-norm"};
  return one_of(v, A("loss_agg_mode"), kModes, "Invalid loss_agg_mode:");
}

std::optional<RuleHit> adv_estimator(const ConfigView& v) {
  static constexpr std::array<std::string_view, 13> kEstimators = {
      "gae", "grpo", "reinforce_plus_plus", "reinforce_plus_plus_baseline", "remax", "rloo", "opo", "grpo_passk", "gpg",
      "rloo_vectorized", "grpo_vectorized", "optimal_token_baseline", "tir_optimal_token_baseline"};
  return one_of(v, "algorithm.adv_estimator", kEstimators, "Unknown advantage estimator");
}

std::optional<RuleHit> policy_loss(const ConfigView& v) {
  static constexpr std::array<std::string_view, 9> kModes = {"vanilla", "gspo", "sapo", "gpg", "clip_cov", "kl_cov",
                                                             "geo_mean", "cispo", "bypass_mode"};
  return one_of(v, A("policy_loss.loss_mode"), kModes, "Unsupported loss mode:");
}

std::optional<RuleHit> clip_ratio_c(const ConfigView& v) {
  const auto value = v.number(A("clip_ratio_c"));
  if (!value || *value > 1.0) return std::nullopt;
  return RuleHit{fmt::format("{}", *value),
                 fmt::format("The lower bound of the clip_ratio_c for dual-clip PPO should be greater than 1.0, but get the "
                             "value: {}; would fail at the first actor update",
                             *value),
                 {A("clip_ratio_c") + "=3.0"}};
}

std::optional<RuleHit> kl_type(const ConfigView& v, const std::string& key, bool used) {
  if (!used) return std::nullopt;
  auto value = v.text(key);
  if (!value) return std::nullopt;
  std::string base = *value;
  if (!base.empty() && base.back() == '+') base.pop_back();
  static constexpr std::array<std::string_view, 7> kTypes = {"kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3"};
  if (std::find(kTypes.begin(), kTypes.end(), base) != kTypes.end()) return std::nullopt;
  return RuleHit{*value, "KL estimator '" + *value + "' is not implemented (NotImplementedError at the first step)",
                 {key + "=low_var_kl"}};
}

std::optional<RuleHit> kl_loss_type(const ConfigView& v) {
  return kl_type(v, A("kl_loss_type"), v.boolean(A("use_kl_loss")).value_or(false));
}
std::optional<RuleHit> kl_penalty(const ConfigView& v) {
  return kl_type(v, "algorithm.kl_penalty", v.boolean("algorithm.use_kl_in_reward").value_or(false));
}

std::optional<RuleHit> actor_strategy(const ConfigView& v) {
  static constexpr std::array<std::string_view, 3> kStrategies = {"fsdp", "fsdp2", "megatron"};
  return one_of(v, A("strategy"), kStrategies, "actor strategy");
}

std::optional<RuleHit> megatron_dtype(const ConfigView& v) {
  if (!v.megatron()) return std::nullopt;
  static constexpr std::array<std::string_view, 2> kDtypes = {"bfloat16", "float16"};
  return one_of(v, A("megatron.dtype"), kDtypes, "megatron dtype");
}

std::optional<RuleHit> hybrid_engine(const ConfigView& v) {
  if (v.boolean("actor_rollout_ref.hybrid_engine").value_or(true)) return std::nullopt;
  return RuleHit{"false", "Currently, only support hybrid engine (RayPPOTrainer.__init__ at start-up)",
                 {"actor_rollout_ref.hybrid_engine=True"}};
}

std::optional<RuleHit> val_temperature(const ConfigView& v) {
  if (!v.boolean(R("val_kwargs.do_sample")).value_or(false)) return std::nullopt;
  const auto temperature = v.number(R("temperature"));
  if (!temperature || *temperature > 0) return std::nullopt;
  return RuleHit{fmt::format("{}", *temperature),
                 "validation gen temperature should be greater than 0 when enabling do_sample (validate_config checks "
                 "rollout.temperature, not val_kwargs.temperature)",
                 {R("temperature") + "=1.0"}};
}

std::optional<RuleHit> router_replay(const ConfigView& v) {
  static constexpr std::array<std::string_view, 3> kModes = {"disabled", "R2", "R3"};
  return one_of(v, A("router_replay.mode"), kModes, "Invalid router_replay mode:");
}

}  // namespace

const std::vector<VerlRule>& option_rules() {
  static const std::vector<VerlRule> rules = {
      {"rollout.name", Severity::error, {"actor_rollout_ref.rollout.name"}, rollout_name},
      {"rollout.mode-sync-removed", Severity::error, {"actor_rollout_ref.rollout.mode"}, rollout_mode},
      {"rollout.gpu-memory-utilization", Severity::error, {"actor_rollout_ref.rollout.gpu_memory_utilization"},
       gpu_memory_utilization},
      {"actor.loss-agg-mode", Severity::error, {"actor_rollout_ref.actor.loss_agg_mode"}, loss_agg_mode},
      {"algorithm.adv-estimator", Severity::error, {"algorithm.adv_estimator"}, adv_estimator},
      {"actor.policy-loss", Severity::error, {"actor_rollout_ref.actor.policy_loss.loss_mode"}, policy_loss},
      {"actor.clip-ratio-c", Severity::error, {"actor_rollout_ref.actor.clip_ratio_c"}, clip_ratio_c},
      {"actor.kl-loss-type", Severity::error, {"actor_rollout_ref.actor.kl_loss_type"}, kl_loss_type},
      {"algorithm.kl-penalty", Severity::error, {"algorithm.kl_penalty"}, kl_penalty},
      {"actor.strategy", Severity::error, {"actor_rollout_ref.actor.strategy"}, actor_strategy},
      {"megatron.dtype", Severity::error, {"actor_rollout_ref.actor.megatron.dtype"}, megatron_dtype},
      {"trainer.hybrid-engine", Severity::error, {"actor_rollout_ref.hybrid_engine"}, hybrid_engine},
      {"rollout.val-temperature", Severity::error,
       {"actor_rollout_ref.rollout.val_kwargs.do_sample", "actor_rollout_ref.rollout.temperature"}, val_temperature},
      {"actor.router-replay-mode", Severity::error, {"actor_rollout_ref.actor.router_replay.mode"}, router_replay},
  };
  return rules;
}

}  // namespace meshplan
