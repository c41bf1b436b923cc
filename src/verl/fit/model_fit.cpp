#include "verl/fit/model_fit.hpp"

#include <fmt/format.h>

#include <array>

#include "core/units.hpp"
#include "cost/memory_estimate.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "strategy/validate.hpp"

namespace meshplan {
namespace {

// strategy/validate rule ids that depend on the model's shape -> the verl keys they concern.
struct ShapeRule {
  std::string_view id;
  std::array<std::string_view, 2> keys;
};
constexpr std::array<ShapeRule, 6> kShapeRules = {{
    {"tp.divides-heads", {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size", ""}},
    {"tp.divides-kv-heads", {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size", ""}},
    {"pp.divides-layers",
     {"actor_rollout_ref.actor.megatron.pipeline_model_parallel_size",
      "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size"}},
    {"ep.requires-moe", {"actor_rollout_ref.actor.megatron.expert_model_parallel_size", ""}},
    {"ep.divides-experts", {"actor_rollout_ref.actor.megatron.expert_model_parallel_size", ""}},
    {"ulysses.divides-heads", {"actor_rollout_ref.actor.ulysses_sequence_parallel_size", ""}},
}};

// The knob that relieves each phase, as override lines.
std::vector<std::string> knobs_for(MemoryPhaseKind kind, const VerlJob& job) {
  const bool megatron = job.strategy.backend == Backend::megatron;
  switch (kind) {
    case MemoryPhaseKind::rollout:
      return {fmt::format("actor_rollout_ref.rollout.gpu_memory_utilization={:.2f}",
                          std::max(0.1, job.workload.rl.gpu_memory_utilization - 0.1)),
              fmt::format("actor_rollout_ref.rollout.tensor_model_parallel_size={}", job.workload.rl.rollout_tp * 2)};
    case MemoryPhaseKind::old_log_prob:
    case MemoryPhaseKind::ref_log_prob:
      if (megatron) {
        return {"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
                "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1"};
      }
      return {"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
              "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1",
              "actor_rollout_ref.actor.entropy_from_logits_with_chunking=True"};
    case MemoryPhaseKind::update_actor:
    case MemoryPhaseKind::update_critic:
    case MemoryPhaseKind::train:
      if (megatron) {
        return {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
                "actor_rollout_ref.actor.megatron.param_offload=True",
                "actor_rollout_ref.actor.megatron.optimizer_offload=True"};
      }
      return {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
              "actor_rollout_ref.model.enable_gradient_checkpointing=True",
              "actor_rollout_ref.actor.fsdp_config.optimizer_offload=True"};
    default:
      return {fmt::format("actor_rollout_ref.rollout.gpu_memory_utilization={:.2f}",
                          std::max(0.1, job.workload.rl.gpu_memory_utilization - 0.1))};
  }
}

SourceLocation first_set(const VerlLaunch& launch, std::string_view key) {
  const auto it = launch.set_at.find(std::string(key));
  return it == launch.set_at.end() ? launch.location : it->second;
}

}  // namespace

std::optional<ModelSpec> model_from_path(const std::string& model_path) {
  std::string name = model_path;
  while (!name.empty() && name.back() == '/') name.pop_back();
  const std::size_t slash = name.rfind('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (name.empty()) return std::nullopt;
  const auto text = find_model_preset_config(name);
  if (!text) return std::nullopt;
  auto model = parse_model_config(*text, canonical_model_preset_name(name).value_or(name));
  if (!model.ok()) return std::nullopt;
  return model.value();
}

std::vector<Finding> check_model_shape(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model) {
  Cluster cluster;
  NodeGroup group;
  group.nodes = job.nnodes;
  group.gpus_per_node = job.gpus_per_node;
  cluster.groups.push_back(group);
  // verl leaves expert_tensor_parallel_size null, which Megatron-core reads as TP for MoE layers;
  // a dense model has no expert layers, so ETP is 1 for it.
  Strategy strategy = job.strategy;
  if (!model.is_moe() && strategy.ep == 1 && strategy.etp == strategy.tp) strategy.etp = 1;
  std::vector<Finding> out;
  for (const Violation& violation : validate_strategy(strategy, model, cluster, job.workload)) {
    for (const ShapeRule& rule : kShapeRules) {
      if (violation.rule != rule.id) continue;
      Finding finding;
      finding.severity = Severity::error;
      finding.rule = "model." + violation.rule;
      for (std::string_view key : rule.keys) {
        if (!key.empty()) finding.keys.emplace_back(key);
      }
      finding.message = violation.message + " (" + model.name + "); would fail when the workers build the model";
      if (!violation.valid.empty()) finding.message += "; valid: " + violation.valid;
      finding.location = first_set(launch, rule.keys[0]);
      out.push_back(std::move(finding));
    }
  }
  return out;
}

std::vector<Finding> check_memory_fit(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                      const GpuSpec& gpu) {
  Cluster cluster;
  NodeGroup group;
  group.nodes = job.nnodes;
  group.gpus_per_node = job.gpus_per_node;
  group.gpu = gpu;
  cluster.groups.push_back(group);
  const MemoryEstimate estimate = estimate_memory(model, cluster, job.strategy, job.workload, MemoryOptions{}, nullptr);
  std::vector<Finding> out;
  const SourceLocation where = first_set(launch, "trainer.n_gpus_per_node");
  for (int i = 0; i < estimate.phase_count; ++i) {
    const PhaseMemory& phase = estimate.phases[i];
    const double peak = phase.peak_bytes();
    const double headroom = estimate.capacity_bytes - peak;
    if (headroom >= 0.05 * estimate.capacity_bytes) continue;
    Finding finding;
    finding.severity = headroom < 0 ? Severity::error : Severity::warning;
    finding.rule = headroom < 0 ? "memory.phase-oom" : "memory.low-headroom";
    finding.keys = {"trainer.n_gpus_per_node", "actor_rollout_ref.rollout.gpu_memory_utilization",
                    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"};
    finding.value = fmt::format("{:.1f} GiB", bytes_to_gib(peak));
    finding.message = fmt::format(
        "the {} phase needs {:.1f} GiB per GPU of {}'s {:.1f} GiB ({}): {}", memory_phase_name(phase.kind),
        bytes_to_gib(peak), gpu.id, bytes_to_gib(estimate.capacity_bytes),
        headroom < 0 ? fmt::format("{:.1f} GiB short", bytes_to_gib(-headroom))
                     : fmt::format("only {:.1f}% headroom", 100.0 * headroom / estimate.capacity_bytes),
        headroom < 0 ? fmt::format("would OOM in the {} phase", memory_phase_name(phase.kind))
                     : "fragmentation or a long batch may push it over");
    finding.fix = knobs_for(phase.kind, job);
    finding.location = where;
    out.push_back(std::move(finding));
  }
  if (estimate.kv_cache_exhausted) {
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "memory.no-kv-cache";
    finding.keys = {"actor_rollout_ref.rollout.gpu_memory_utilization"};
    finding.value = fmt::format("{}", job.workload.rl.gpu_memory_utilization);
    finding.message = "the rollout engine's budget (gpu_memory_utilization x GPU memory) leaves no room for a KV cache "
                      "after its weights: vLLM stops at start-up (\"No available memory for the cache blocks\")";
    finding.fix = {fmt::format("actor_rollout_ref.rollout.gpu_memory_utilization={:.2f}",
                               std::min(0.9, job.workload.rl.gpu_memory_utilization + 0.1)),
                   fmt::format("actor_rollout_ref.rollout.tensor_model_parallel_size={}", job.workload.rl.rollout_tp * 2)};
    finding.location = first_set(launch, "actor_rollout_ref.rollout.gpu_memory_utilization");
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace meshplan
