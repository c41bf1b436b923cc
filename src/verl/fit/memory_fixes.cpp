#include "verl/fit/memory_fixes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "core/units.hpp"
#include "cost/time/step_time.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

using Variant = std::pair<std::vector<std::string>, VerlJob>;  // override lines, the job with them applied

struct Knob {
  const char* id;
  /// The variants to try, least invasive first (a numeric knob: halvings of the current value).
  std::vector<Variant> (*variants)(const VerlJob& job, const ModelSpec& model);
};

bool fsdp(const VerlJob& job) { return job.strategy.backend == Backend::fsdp; }

std::string on(const std::string& key) { return key + "=True"; }

// Halvings of `current` down to `floor` (exclusive of the current value) that `allowed` accepts;
// each key is written per GPU, or (a launch using the deprecated global key) x `global_factor`.
template <class Apply>
std::vector<Variant> halvings(const VerlJob& job, long long current, long long floor,
                              const std::vector<std::string>& keys, long long global_factor, Apply&& apply,
                              bool (*allowed)(const VerlJob&, long long) = nullptr) {
  std::vector<Variant> out;
  for (long long value = current / 2; value >= std::max(floor, 1LL) && value < current; value /= 2) {
    if (allowed != nullptr && !allowed(job, value)) continue;
    VerlJob changed = job;
    apply(changed, value);
    std::vector<std::string> lines;
    for (const std::string& key : keys) lines.push_back(key + "=" + std::to_string(value * global_factor));
    out.emplace_back(std::move(lines), std::move(changed));
  }
  return out;
}

// The actor's data-parallel size (verl divides global batch keys by it; verl-rules.md §0).
long long actor_dp(const VerlJob& job) {
  const Strategy& s = job.strategy;
  return std::max(1, s.backend == Backend::fsdp ? s.dp / std::max(s.ulysses_sp, 1) : s.dp);
}

// verl asserts the mini-batch per GPU (mini x n / DP sequences) is a multiple of the micro-batch.
bool divides_mini_batch(const VerlJob& job, long long micro) {
  const RlSettings& rl = job.workload.rl;
  const long long mini = rl.ppo_mini_batch > 0 ? rl.ppo_mini_batch : job.workload.global_batch;
  const long long local = mini * rl.n / actor_dp(job);
  return micro > 0 && local % micro == 0;
}

std::vector<Variant> one(const VerlJob& job, std::vector<std::string> lines, void (*apply)(VerlJob&)) {
  VerlJob changed = job;
  apply(changed);
  return {{std::move(lines), std::move(changed)}};
}

// The longest sequence a token budget must still hold (verl seqlen_balancing asserts it).
long long longest_sequence(const VerlJob& job) {
  const RlSettings& rl = job.workload.rl;
  const long long split = fsdp(job) ? std::max(job.strategy.ulysses_sp, 1) : std::max(job.strategy.cp, 1);
  return (rl.prompt_len + rl.response_len + split - 1) / split;
}

const Knob kKnobs[] = {
    {"ppo-micro-batch",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.workload.rl.use_dynamic_bsz) return std::vector<Variant>{};
       const bool global = job.global_ppo_micro_batch;
       return halvings(
           job, std::max(job.workload.rl.ppo_micro_batch_per_gpu, job.strategy.micro_batch), 1,
           {A(global ? "ppo_micro_batch_size" : "ppo_micro_batch_size_per_gpu")}, global ? actor_dp(job) : 1,
           [](VerlJob& j, long long v) {
             j.workload.rl.ppo_micro_batch_per_gpu = int(v);
             j.strategy.micro_batch = int(v);
           },
           divides_mini_batch);
     }},
    {"ppo-token-budget",
     [](const VerlJob& job, const ModelSpec&) {
       if (!job.workload.rl.use_dynamic_bsz) return std::vector<Variant>{};
       return halvings(job, job.workload.rl.ppo_max_token_len_per_gpu, longest_sequence(job),
                       {A("ppo_max_token_len_per_gpu")}, 1,
                       [](VerlJob& j, long long v) { j.workload.rl.ppo_max_token_len_per_gpu = v; });
     }},
    {"log-prob-micro-batch",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.workload.rl.use_dynamic_bsz) return std::vector<Variant>{};
       const int current = job.workload.rl.log_prob_micro_batch_per_gpu > 0 ? job.workload.rl.log_prob_micro_batch_per_gpu
                                                                             : job.strategy.micro_batch;
       const bool global = job.global_log_prob_micro_batch;
       const std::string key = global ? "log_prob_micro_batch_size" : "log_prob_micro_batch_size_per_gpu";
       return halvings(job, current, 1, {R(key), REF(key)}, global ? actor_dp(job) : 1,
                       [](VerlJob& j, long long v) { j.workload.rl.log_prob_micro_batch_per_gpu = int(v); });
     }},
    {"log-prob-token-budget",
     [](const VerlJob& job, const ModelSpec&) {
       const RlSettings& rl = job.workload.rl;
       if (!rl.use_dynamic_bsz) return std::vector<Variant>{};
       const long long current = rl.log_prob_max_token_len_per_gpu > 0 ? rl.log_prob_max_token_len_per_gpu
                                                                        : rl.ppo_max_token_len_per_gpu;
       return halvings(job, current, longest_sequence(job),
                       {R("log_prob_max_token_len_per_gpu"), REF("log_prob_max_token_len_per_gpu")}, 1,
                       [](VerlJob& j, long long v) { j.workload.rl.log_prob_max_token_len_per_gpu = v; });
     }},
    {"gradient-checkpointing",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.strategy.recompute == Recompute::full) return std::vector<Variant>{};
       if (fsdp(job)) {
         return one(job, {on("actor_rollout_ref.model.enable_gradient_checkpointing")},
                    [](VerlJob& j) { j.strategy.recompute = Recompute::full; });
       }
       const std::string o = A("megatron.override_transformer_config.");
       return one(job, {o + "recompute_granularity=full", o + "recompute_method=uniform", o + "recompute_num_layers=1"},
                  [](VerlJob& j) {
                    j.strategy.recompute = Recompute::full;
                    j.strategy.recompute_method = RecomputeMethod::uniform;
                    j.strategy.recompute_num_layers = 1;
                  });
     }},
    {"entropy-chunking",
     [](const VerlJob& job, const ModelSpec&) {
       if (!fsdp(job) || job.workload.rl.entropy_chunking || job.workload.rl.use_fused_kernels) {
         return std::vector<Variant>{};
       }
       return one(job, {on(A("entropy_from_logits_with_chunking"))},
                  [](VerlJob& j) { j.workload.rl.entropy_chunking = true; });
     }},
    {"remove-padding",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.workload.rl.use_remove_padding) return std::vector<Variant>{};
       return one(job, {on("actor_rollout_ref.model.use_remove_padding")},
                  [](VerlJob& j) { j.workload.rl.use_remove_padding = true; });
     }},
    {"ref-offload",
     [](const VerlJob& job, const ModelSpec&) {
       const RlSettings& rl = job.workload.rl;
       if (!rl.use_reference || rl.ref_param_offload || job.strategy.lora.rank > 0) return std::vector<Variant>{};
       return one(job, {on(REF(fsdp(job) ? "fsdp_config.param_offload" : "megatron.param_offload"))},
                  [](VerlJob& j) { j.workload.rl.ref_param_offload = true; });
     }},
    {"actor-param-offload",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.strategy.offload.params) return std::vector<Variant>{};
       return one(job, {on(A(fsdp(job) ? "fsdp_config.param_offload" : "megatron.param_offload"))},
                  [](VerlJob& j) { j.strategy.offload.params = true; });
     }},
    {"actor-optimizer-offload",
     [](const VerlJob& job, const ModelSpec&) {
       if (job.strategy.offload.optimizer) return std::vector<Variant>{};
       return one(job, {on(A(fsdp(job) ? "fsdp_config.optimizer_offload" : "megatron.optimizer_offload"))},
                  [](VerlJob& j) { j.strategy.offload.optimizer = true; });
     }},
    {"actor-grad-offload",
     [](const VerlJob& job, const ModelSpec&) {
       if (fsdp(job) || job.strategy.offload.grads) return std::vector<Variant>{};
       return one(job, {on(A("megatron.grad_offload"))}, [](VerlJob& j) { j.strategy.offload.grads = true; });
     }},
    {"gpu-memory-utilization",
     [](const VerlJob& job, const ModelSpec&) {
       // Steps of 0.05 down (a smaller KV cache) and up (room for one max_model_len sequence).
       std::vector<Variant> out;
       const double current = job.workload.rl.gpu_memory_utilization;
       for (int step = 1; step <= 18; ++step) {
         for (double value : {current - 0.05 * step, current + 0.05 * step}) {
           const double rounded = std::round(value * 100.0) / 100.0;
           if (rounded < 0.05 || rounded > 0.95) continue;
           VerlJob changed = job;
           changed.workload.rl.gpu_memory_utilization = rounded;
           out.emplace_back(std::vector<std::string>{fmt::format("{}={:.2f}", R("gpu_memory_utilization"), rounded)},
                            std::move(changed));
         }
       }
       return out;
     }},
    {"rollout-tp",
     [](const VerlJob& job, const ModelSpec& model) {
       std::vector<Variant> out;
       const RlSettings& rl = job.workload.rl;
       const int gpus = job.nnodes * job.gpus_per_node;
       const int dp = std::max(rl.rollout_dp, 1);
       for (int tp = rl.rollout_tp * 2; tp * dp <= gpus && tp <= 64; tp *= 2) {
         if (gpus % (tp * dp) != 0 || model.attention.num_heads % tp != 0) continue;  // vLLM: heads % TP == 0
         VerlJob changed = job;
         changed.workload.rl.rollout_tp = tp;
         std::vector<std::string> lines = {R("tensor_model_parallel_size") + "=" + std::to_string(tp)};
         if (rl.rollout_ep > 1) {  // verl RolloutConfig: expert_parallel_size == TP x DP
           changed.workload.rl.rollout_ep = tp * dp;
           lines.push_back(R("expert_parallel_size") + "=" + std::to_string(tp * dp));
         }
         out.emplace_back(std::move(lines), std::move(changed));
       }
       return out;
     }},
    // A MoE's engines in data parallel with the experts over TP x DP GPUs (vLLM
    // FusedMoEParallelConfig.make): the engine's expert weights per GPU shrink by the DP size.
    {"rollout-dp",
     [](const VerlJob& job, const ModelSpec& model) {
       std::vector<Variant> out;
       if (!model.moe) return out;
       const RlSettings& rl = job.workload.rl;
       const int gpus = job.nnodes * job.gpus_per_node;
       const int tp = std::max(rl.rollout_tp, 1);
       for (int dp = std::max(rl.rollout_dp, 1) * 2; tp * dp <= gpus && tp * dp <= 64; dp *= 2) {
         if (gpus % (tp * dp) != 0) continue;
         VerlJob changed = job;
         changed.workload.rl.rollout_dp = dp;
         changed.workload.rl.rollout_ep = tp * dp;
         out.emplace_back(std::vector<std::string>{R("data_parallel_size") + "=" + std::to_string(dp),
                                                   R("expert_parallel_size") + "=" + std::to_string(tp * dp)},
                          std::move(changed));
       }
       return out;
     }},
};

}  // namespace

TimeEstimate job_time(const VerlJob& job, const ModelSpec& model, const Cluster& cluster) {
  const MemoryEstimate e = estimate_memory(model, cluster, job.strategy, job.workload, MemoryOptions{}, nullptr);
  TimeOptions time;
  time.rollout_concurrent_sequences = e.rollout.concurrent_sequences_per_replica;
  return estimate_time(model, cluster, job.strategy, job.workload, time, nullptr);
}

double job_step_seconds(const VerlJob& job, const ModelSpec& model, const Cluster& cluster) {
  return job_time(job, model, cluster).step_seconds;
}

MemoryFix evaluate_fix(const std::vector<std::string>& lines, const VerlJob& job, const ModelSpec& model,
                       const Cluster& cluster, double capacity_bytes) {
  MemoryFix fix;
  fix.overrides = lines;
  fix.job = job;
  const MemoryEstimate e = estimate_memory(model, cluster, job.strategy, job.workload, MemoryOptions{}, nullptr);
  fix.peak_bytes = e.peak_bytes;
  fix.peak_phase = e.peak().kind;
  fix.fits = e.peak_bytes <= capacity_bytes && !e.kv_cache_exhausted && !e.kv_below_one_sequence;
  fix.step_seconds = job_step_seconds(job, model, cluster);
  return fix;
}

std::vector<MemoryFix> memory_fixes(const VerlJob& job, const ModelSpec& model, const Cluster& cluster,
                                    double capacity_bytes) {
  const MemoryEstimate now = estimate_memory(model, cluster, job.strategy, job.workload, MemoryOptions{}, nullptr);
  const bool engine_fails = now.kv_cache_exhausted || now.kv_below_one_sequence;
  std::vector<MemoryFix> clearing;
  std::vector<MemoryFix> shrinking;
  for (const Knob& knob : kKnobs) {
    std::optional<MemoryFix> best_shrink;
    std::optional<MemoryFix> cleared;
    for (const auto& [lines, changed] : knob.variants(job, model)) {
      MemoryFix fix = evaluate_fix(lines, changed, model, cluster, capacity_bytes);
      if (fix.fits) {
        cleared = std::move(fix);
        break;  // the least invasive value that fits
      }
      const bool engine_starts = !engine_fails;  // a shrink only counts where the engine could start
      if (engine_starts && fix.peak_bytes < now.peak_bytes - kMiB &&
          (!best_shrink || fix.peak_bytes < best_shrink->peak_bytes)) {
        best_shrink = std::move(fix);
      }
    }
    if (cleared) {
      clearing.push_back(std::move(*cleared));
    } else if (best_shrink) {
      shrinking.push_back(std::move(*best_shrink));
    }
  }
  auto by_time = [](const MemoryFix& a, const MemoryFix& b) { return a.step_seconds < b.step_seconds; };
  std::sort(clearing.begin(), clearing.end(), by_time);
  if (!clearing.empty()) return clearing;
  // None clears it: the one that shrinks the shortfall most.
  auto smallest = std::min_element(shrinking.begin(), shrinking.end(),
                                   [](const MemoryFix& a, const MemoryFix& b) { return a.peak_bytes < b.peak_bytes; });
  if (smallest == shrinking.end()) return {};
  return {*smallest};
}

std::string describe_fix(const MemoryFix& fix, double baseline_step_seconds) {
  const double change = baseline_step_seconds > 0 ? fix.step_seconds / baseline_step_seconds - 1.0 : 0.0;
  return fmt::format("{} -> peak {:.1f} GiB in {} ({}), step time {:+.0f}%", fmt::join(fix.overrides, " "),
                     bytes_to_gib(fix.peak_bytes), memory_phase_name(fix.peak_phase),
                     fix.fits ? "fits" : "still short", 100.0 * change);
}

}  // namespace meshplan
