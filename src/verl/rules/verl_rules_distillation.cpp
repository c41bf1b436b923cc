// On-policy distillation (verl 0.8.0 on, distillation.enabled): the teacher pool main_ppo builds
// (init_resource_pool_mgr, also the V1 trainer's), and what DistillationConfig.__post_init__
// (verl/workers/config/distillation.py) checks when the trainer builds the teachers: the teachers'
// replicas must fill the pool, the teacher's context must hold the student's prompt and response,
// and the loss must be one the registry has (verl/trainer/distillation/losses.py).
#include <fmt/format.h>

#include <algorithm>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kD = "distillation.";
constexpr const char* kDefaultTeacher = "distillation.teacher_models.teacher_model.";
constexpr const char* kAtTeachers =
    "would fail when the trainer builds the teachers (DistillationConfig.__post_init__, after the workers' pools)";

// main_ppo's trainers (RayPPOTrainer, the V1 trainer): the one-step-off and fully-async trainers build
// their pools elsewhere (verl/experimental/separation/utils.py, fully_async_rollouter.py).
bool distilling(const ConfigView& v) {
  if (v.fully_async() || (v.separate_rollout_pool() && !v.v1_separate_async())) return false;
  return v.boolean("distillation.enabled").value_or(false);
}

// main_ppo.py / main_ppo_v0.py init_resource_pool_mgr and the V1 trainer's (trainer_base.py): the
// teacher pool is n_gpus_per_node x nnodes, and nnodes defaults to 0.
std::optional<RuleHit> pool_sizes(const ConfigView& v) {
  if (!distilling(v)) return std::nullopt;
  for (const char* key : {"n_gpus_per_node", "nnodes"}) {
    const auto value = v.integer(std::string(kD) + key);
    if (!value || *value > 0) continue;
    return RuleHit{std::to_string(*value),
                   fmt::format("config.distillation.{} must be greater than 0 when distillation is enabled: the "
                               "teachers run on a pool of their own; would fail at start-up (init_resource_pool_mgr)",
                               key),
                   {fmt::format("{}{}={}", kD, key, std::string(key) == "nnodes" ? 1 : 8)}};
  }
  return std::nullopt;
}

// GPUs of one replica of a teacher: its inference TP x DP x PP (RolloutConfig's default 1 for a size
// the section does not list).
std::optional<long long> replica_gpus(const ConfigView& v, const std::string& teacher) {
  long long gpus = 1;
  for (const char* key : {"tensor_model_parallel_size", "data_parallel_size", "pipeline_model_parallel_size"}) {
    const std::string full = teacher + "inference." + key;
    const auto size = v.node(full) == nullptr ? std::optional<long long>(1) : v.integer(full);
    if (!size || *size <= 0) return std::nullopt;
    gpus *= *size;
  }
  return gpus;
}

// _resolve_teacher_models: one teacher (the default entry alone) takes pool / replica GPUs replicas,
// which must divide; several (the default entry is dropped) must fill the pool exactly.
std::optional<RuleHit> teacher_world(const ConfigView& v) {
  if (!distilling(v)) return std::nullopt;
  const auto per_node = v.integer("distillation.n_gpus_per_node");
  const auto nodes = v.integer("distillation.nnodes");
  const ConfigNode* teachers = v.node("distillation.teacher_models");
  if (!per_node || !nodes || *per_node <= 0 || *nodes <= 0 || teachers == nullptr || !teachers->is_map()) {
    return std::nullopt;
  }
  const long long pool = *per_node * *nodes;
  if (teachers->entries.size() == 1) {
    const auto per_replica = replica_gpus(v, kDefaultTeacher);
    if (!per_replica || pool % *per_replica == 0) return std::nullopt;
    RuleHit hit{std::to_string(*per_replica),
                fmt::format("Single teacher's per_replica_world_size ({}) must divide the distillation resource "
                            "pool size (n_gpus_per_node {} * nnodes {} = {}); {}",
                            *per_replica, *per_node, *nodes, pool, kAtTeachers),
                {}};
    // The largest smaller teacher TP whose replica divides the pool, keeping its DP and PP.
    const std::string tp_key = std::string(kDefaultTeacher) + "inference.tensor_model_parallel_size";
    const long long tp = v.integer(tp_key).value_or(1);
    const long long others = *per_replica / std::max(tp, 1LL);
    for (long long smaller = tp - 1; smaller >= 1; --smaller) {
      if (tp % smaller == 0 && pool % (smaller * others) == 0) {
        hit.fix.push_back(fmt::format("{}={}", tp_key, smaller));
        break;
      }
    }
    return hit;
  }
  long long sum = 0;
  for (const auto& [name, teacher] : teachers->entries) {
    if (name == "teacher_model") continue;
    const std::string prefix = "distillation.teacher_models." + name + ".";
    const auto replicas = v.integer(prefix + "num_replicas");
    const auto per_replica = replica_gpus(v, prefix);
    if (!replicas || !per_replica) return std::nullopt;
    sum += *replicas * *per_replica;
  }
  if (sum == pool) return std::nullopt;
  return RuleHit{std::to_string(sum),
                 fmt::format("Sum of teacher (num_replicas * per_replica_world_size) ({}) must match the "
                             "distillation resource pool size (n_gpus_per_node {} * nnodes {} = {}); {}",
                             sum, *per_node, *nodes, pool, kAtTeachers),
                 {}};
}

// validate_and_prepare_for_distillation: the teacher scores the student's prompt and whole response
// and generates one token, within its max_model_len when one is set.
std::optional<RuleHit> teacher_context(const ConfigView& v) {
  if (!distilling(v)) return std::nullopt;
  const ConfigNode* teachers = v.node("distillation.teacher_models");
  if (teachers == nullptr || !teachers->is_map()) return std::nullopt;
  for (const auto& [name, teacher] : teachers->entries) {
    if (name == "teacher_model" && teachers->entries.size() > 1) continue;
    const std::string inference = "distillation.teacher_models." + name + ".inference.";
    const auto max_len = v.integer(inference + "max_model_len");
    const auto prompt = v.integer(inference + "prompt_length");
    const auto response = v.integer(inference + "response_length");
    if (!max_len || !prompt || !response || *prompt + *response + 1 <= *max_len) continue;
    return RuleHit{std::to_string(*max_len),
                   fmt::format("Distillation teacher inference requires room for the student prompt, the full "
                               "student response, and one generated token: {} + {} + 1 > max_model_len {} ({}); {}",
                               *prompt, *response, *max_len, name, kAtTeachers),
                   {fmt::format("{}max_model_len={}", inference, *prompt + *response + 1)}};
  }
  return std::nullopt;
}

// DistillationLossConfig.__post_init__ and _validate_topk_logprobs: a registered loss, the vanilla
// policy loss, k1 only as a reward (its gradient does not see the teacher), and for the top-k losses
// a topk the vLLM teacher returns (engine_kwargs.vllm.max_logprobs, when set).
std::optional<RuleHit> distillation_loss(const ConfigView& v) {
  if (!distilling(v)) return std::nullopt;
  const std::string loss = "distillation.distillation_loss.";
  if (auto hit = registered_name(v, loss + "loss_mode", "distillation_loss", "Unsupported loss mode:", kAtTeachers)) {
    return hit;
  }
  const std::string policy_loss = v.text(loss + "policy_loss_mode").value_or("vanilla");
  if (policy_loss != "vanilla") {
    return RuleHit{policy_loss,
                   fmt::format("Only vanilla policy loss is currently supported when use_policy_gradient is True, "
                               "but got {}; {}",
                               policy_loss, kAtTeachers),
                   {loss + "policy_loss_mode=vanilla"}};
  }
  const std::string mode = v.text(loss + "loss_mode").value_or("k3");
  if (mode == "k1" && v.node(loss + "use_policy_gradient") != nullptr &&
      !v.boolean(loss + "use_policy_gradient").value_or(true)) {
    return RuleHit{"k1",
                   fmt::format("Directly backpropagating k1 loss is incorrect since gradient of k1 loss wrt model "
                               "weights does not depend on teacher log probabilities; {}",
                               kAtTeachers),
                   {loss + "use_policy_gradient=True"}};
  }
  const std::vector<std::string>& topk_losses = v.registry("distillation_topk_loss");
  if (!std::ranges::binary_search(topk_losses, mode)) return std::nullopt;
  const auto topk = v.integer(loss + "topk");
  if (!topk) {
    if (!v.is_null(loss + "topk")) return std::nullopt;
    return RuleHit{"null", fmt::format("topk must be specified when use_topk is True ({}); {}", mode, kAtTeachers),
                   {loss + "topk=32"}};
  }
  const ConfigNode* teachers = v.node("distillation.teacher_models");
  if (teachers == nullptr || !teachers->is_map()) return std::nullopt;
  for (const auto& [name, teacher] : teachers->entries) {
    const std::string inference = "distillation.teacher_models." + name + ".inference.";
    if (v.text(inference + "name").value_or("vllm") != "vllm") continue;
    const auto max_logprobs = v.integer(inference + "engine_kwargs.vllm.max_logprobs");
    if (!max_logprobs || *max_logprobs >= *topk) continue;
    return RuleHit{std::to_string(*max_logprobs),
                   fmt::format("VLLM max_logprobs ({}) must be >= distillation_loss topk ({}) to enable distillation "
                               "loss computation ({}); {}",
                               *max_logprobs, *topk, name, kAtTeachers),
                   {fmt::format("{}engine_kwargs.vllm.max_logprobs={}", inference, *topk)}};
  }
  return std::nullopt;
}

}  // namespace

const std::vector<VerlRule>& distillation_rules() {
  static const std::vector<VerlRule> rules = {
      {"distillation.pool-sizes",
       Severity::error,
       {"distillation.nnodes", "distillation.n_gpus_per_node", "distillation.enabled"},
       pool_sizes,
       false,
       "verl/workers/config/distillation.py:DistillationConfig"},
      {"distillation.teacher-world",
       Severity::error,
       {"distillation.teacher_models", "distillation.nnodes", "distillation.n_gpus_per_node"},
       teacher_world,
       false,
       "verl/workers/config/distillation.py:DistillationConfig._resolve_teacher_models"},
      {"distillation.teacher-context",
       Severity::error,
       {"distillation.teacher_models", "data.max_prompt_length", "data.max_response_length"},
       teacher_context,
       false,
       "verl/workers/config/distillation.py:DistillationTeacherModelConfig.validate_and_prepare_for_distillation"},
      {"distillation.loss",
       Severity::error,
       {"distillation.distillation_loss.loss_mode", "distillation.distillation_loss.topk",
        "distillation.distillation_loss.policy_loss_mode"},
       distillation_loss,
       false,
       "verl/workers/config/distillation.py:DistillationLossConfig.__post_init__"},
  };
  return rules;
}

}  // namespace meshplan
