#include "diagnose/model_derivations.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/rollout_memory.hpp"

namespace meshplan {

namespace {

/// Ulysses SP (verl/models/transformers/monkey_patch.py, rules R60): heads % sp == 0 and
/// (kv_heads % sp == 0 or sp % kv_heads == 0). Megatron TP: heads % tp == 0 and kv_heads % tp == 0.
bool valid_size(std::int64_t size, std::int64_t heads, std::int64_t kv_heads, bool ulysses) {
  if (size < 1 || heads % size != 0) return false;
  return kv_heads % size == 0 || (ulysses && size % kv_heads == 0);
}

/// The largest valid size not above `limit`, for the model's attention heads.
std::optional<std::string> size_fit(const FixContext& context, std::optional<double> limit, bool ulysses) {
  if (!context.model || !limit) return std::nullopt;
  const std::int64_t heads = context.model->attention.num_heads;
  const std::int64_t kv_heads = context.model->attention.num_kv_heads;
  if (heads < 1 || kv_heads < 1) return std::nullopt;
  for (auto size = static_cast<std::int64_t>(*limit); size > 1; --size) {
    if (valid_size(size, heads, kv_heads, ulysses)) return std::to_string(size);
  }
  return "1";
}

/// The micro-batch key of the pass that ran out of memory.
std::string_view micro_batch_key(std::string_view phase) {
  if (phase == "compute_log_prob") return "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu";
  if (phase == "compute_ref_log_prob") return "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu";
  return "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu";
}

/// The memory model's phase for a diagnosed phase, and the micro-batch that phase runs with.
struct PhaseKnob {
  MemoryPhaseKind kind;
  int* micro_batch;
};

PhaseKnob phase_knob(std::string_view phase, Strategy& strategy, Workload& workload) {
  RlSettings& rl = workload.rl;
  // RlSettings: 0 means "take Strategy::micro_batch".
  const auto micro = [&strategy](int& per_gpu) { return per_gpu > 0 ? &per_gpu : &strategy.micro_batch; };
  if (phase == "compute_log_prob") return {MemoryPhaseKind::old_log_prob, micro(rl.log_prob_micro_batch_per_gpu)};
  if (phase == "compute_ref_log_prob") return {MemoryPhaseKind::ref_log_prob, micro(rl.log_prob_micro_batch_per_gpu)};
  if (workload.kind != WorkloadKind::rl) return {MemoryPhaseKind::train, &strategy.micro_batch};
  return {MemoryPhaseKind::update_actor, micro(rl.ppo_micro_batch_per_gpu)};
}

double phase_peak(const MemoryEstimate& estimate, MemoryPhaseKind kind) {
  for (int i = 0; i < estimate.phase_count; ++i) {
    if (estimate.phases[static_cast<std::size_t>(i)].kind == kind) return estimate.phases[static_cast<std::size_t>(i)].peak_bytes();
  }
  return estimate.peak_bytes;
}

/// "update_actor peak 84.1 GiB -> 61.3 GiB with micro-batch 8 (GPU: 79.1 GiB)".
std::optional<std::string> predicted_peak(std::string_view phase, const FixContext& context) {
  if (!context.model || !context.job) return std::nullopt;
  FixContext::Job job = *context.job;
  const PhaseKnob before_knob = phase_knob(phase, job.strategy, job.workload);
  const int micro = *before_knob.micro_batch;
  if (micro < 2) return std::nullopt;
  const MemoryOptions options;
  const MemoryEstimate before = estimate_memory(*context.model, job.cluster, job.strategy, job.workload, options, nullptr);
  *before_knob.micro_batch = micro / 2;
  const MemoryEstimate after = estimate_memory(*context.model, job.cluster, job.strategy, job.workload, options, nullptr);
  return fmt::format("{} peak {:.1f} GiB -> {:.1f} GiB with micro-batch {} (usable {:.1f} GiB)",
                     memory_phase_name(before_knob.kind), phase_peak(before, before_knob.kind) / kGiB,
                     phase_peak(after, before_knob.kind) / kGiB, micro / 2, after.capacity_bytes / kGiB);
}

}  // namespace

std::optional<std::string> derive_from_model(std::string_view name, const Numbers& numbers, std::string_view phase,
                                             const FixContext& context) {
  if (name == "predicted_peak") return predicted_peak(phase, context);
  if (name == "sp_fit") return size_fit(context, number_in(numbers, "ulysses_sp_size"), true);
  if (name == "tp_fit") return size_fit(context, number_in(numbers, "tensor_parallel_size"), false);
  if (name == "kv_heads") {
    if (!context.model) return std::nullopt;
    return std::to_string(context.model->attention.num_kv_heads);
  }
  if (name == "rollout_weight_share") {
    // The engine's weights per GPU (cost/memory/rollout_memory.hpp) against the GPU's memory: the
    // budget gpu_memory_utilization x memory must exceed this share to leave any KV cache.
    const auto tp = config_number(context, "actor_rollout_ref.rollout.tensor_model_parallel_size");
    double capacity = context.gpu_memory_bytes;
    if (capacity <= 0) capacity = number_in(numbers, "total_gib").value_or(0.0) * kGiB;
    if (!context.model || !tp || *tp < 1 || capacity <= 0) return std::nullopt;
    RlSettings rollout;
    rollout.rollout_tp = static_cast<int>(*tp);
    const auto dp = config_number(context, "actor_rollout_ref.rollout.data_parallel_size");
    if (dp && *dp >= 1) rollout.rollout_dp = static_cast<int>(*dp);
    const double weights = rollout_weight_bytes(*context.model, rollout);
    return fmt::format("{:.1f} GiB, {:.2f} of the GPU's {:.1f} GiB", weights / kGiB, weights / capacity,
                       capacity / kGiB);
  }
  if (name == "logits_gib") {
    // verl computes log-probs and entropy from fp32 logits [tokens, vocab]: one micro-batch of
    // micro x (prompt + response) tokens holds micro x tokens x vocab x 4 bytes (an upper bound
    // with padding removed).
    const auto micro = config_number(context, micro_batch_key(phase));
    const auto prompt = config_number(context, "data.max_prompt_length");
    const auto response = config_number(context, "data.max_response_length");
    if (!context.model || !micro || !prompt || !response) return std::nullopt;
    const double bytes = *micro * (*prompt + *response) * static_cast<double>(context.model->vocab_size) * 4.0;
    return fmt::format("{:.1f}", bytes / kGiB);
  }
  return std::nullopt;
}

}  // namespace meshplan
