#include "verl/fit/model_fit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "core/units.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "hardware/cluster_spec.hpp"
#include "verl/fit/memory_fixes.hpp"
#include "verl/fit/vllm_budget.hpp"
#include "verl/rules/rule_support.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "strategy/validate.hpp"

namespace meshplan {
namespace {

// strategy/validate rule ids that depend on the model's shape -> the verl keys they concern.
struct ShapeRule {
  std::string_view id;
  std::array<std::string_view, 2> keys;
  /// The first Megatron-core release with the field the rule refuses; empty when every release
  /// refuses. An older one ignores the key (verl sets it on the model provider, which takes any
  /// name), so the refusal is a warning naming the release.
  std::string_view field_since = "";
  /// When the workers stop on it.
  std::string_view fails = "when the workers build the model";
};
// Megatron-core's refusals of EP all-to-all overlap (TransformerConfig.__post_init__) stop the
// workers when they build the model, as the shape rules do.
constexpr std::string_view kA2aOverlap =
    "actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm";

// TEGroupedMLP asserts the op fuser's support when it builds the experts (moe/experts.py).
constexpr std::string_view kOpFuser =
    "actor_rollout_ref.actor.megatron.override_transformer_config.use_transformer_engine_op_fuser";
// TransformerConfig.__post_init__ refuses fp8_output_proj under another recipe than mxfp8; Transformer
// Engine refuses a block-scaled recipe the GPU cannot run when the first layer quantizes.
constexpr std::string_view kFp8Recipe = "actor_rollout_ref.actor.megatron.override_transformer_config.fp8_recipe";

constexpr std::array<ShapeRule, 14> kShapeRules = {{
    {"tp.divides-heads", {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size", ""}},
    {"tp.divides-kv-heads", {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size", ""}},
    {"pp.divides-layers",
     {"actor_rollout_ref.actor.megatron.pipeline_model_parallel_size",
      "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size"}},
    {"pp.layout",
     {"actor_rollout_ref.actor.megatron.override_transformer_config.pipeline_model_parallel_layout",
      "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size"}},
    {"ep.requires-moe", {"actor_rollout_ref.actor.megatron.expert_model_parallel_size", ""}},
    {"ep.divides-experts", {"actor_rollout_ref.actor.megatron.expert_model_parallel_size", ""}},
    {"ulysses.divides-heads", {"actor_rollout_ref.actor.ulysses_sequence_parallel_size", ""}},
    {"moe.a2a-overlap-ep", {kA2aOverlap, "actor_rollout_ref.actor.megatron.expert_model_parallel_size"}},
    {"moe.a2a-overlap-vpp", {kA2aOverlap, "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size"}},
    {"moe.a2a-overlap-recompute",
     {kA2aOverlap, "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity"}},
    {"moe.a2a-overlap-dtype", {kA2aOverlap, "actor_rollout_ref.actor.megatron.dtype"}},
    {"moe.a2a-overlap-mtp", {kA2aOverlap, "actor_rollout_ref.model.mtp.enable_train"}},
    // Both fields are in TransformerConfig from Megatron-core 0.18.2 (the passthrough's field table).
    {"moe.op-fuser-etp", {kOpFuser, "actor_rollout_ref.actor.megatron.expert_tensor_parallel_size"}, "0.18.2"},
    {"fp8.output-proj-mxfp8",
     {"actor_rollout_ref.actor.megatron.override_transformer_config.fp8_output_proj", kFp8Recipe},
     "0.18.2"},
}};

// strategy/validate rule ids that depend on the GPU (--gpu / --cluster) -> the verl keys they concern.
// Transformer Engine asserts the recipe's support when its FP8 autocast is entered and picks the
// attention backend at the first attention call: the actor's first forward.
constexpr std::string_view kFirstForward = "at the actor's first forward";
constexpr std::array<ShapeRule, 4> kGpuRules = {{
    {"fp8.mxfp8-blackwell", {kFp8Recipe, "actor_rollout_ref.actor.megatron.override_transformer_config.fp8"}, "",
     kFirstForward},
    {"fp8.attention-sinks-blackwell",
     {"actor_rollout_ref.actor.megatron.override_transformer_config.fp8_dot_product_attention",
      "actor_rollout_ref.actor.megatron.override_transformer_config.fp8"},
     "", kFirstForward},
    {"fp4.nvfp4-blackwell", {"actor_rollout_ref.actor.megatron.override_transformer_config.fp4", ""}, "",
     kFirstForward},
    // The flex dispatcher is the launch's own choice (verl's default is alltoall), so its line is set.
    {"moe.flex-sms-gpu",
     {"actor_rollout_ref.actor.megatron.override_transformer_config.moe_token_dispatcher_type",
      "actor_rollout_ref.actor.megatron.override_transformer_config.moe_flex_dispatcher_num_sms"},
     "", "at the first MoE layer's token dispatch"},
}};

// The violations of `rules` as errors named `prefix` + the rule id, at the first key's line; `subject`
// (the model) in parentheses when the rule's message does not name it.
template <std::size_t N>
std::vector<Finding> rule_findings(const VerlLaunch& launch, const std::vector<Violation>& violations,
                                   const std::array<ShapeRule, N>& rules, std::string_view prefix,
                                   const std::string& subject) {
  std::vector<Finding> out;
  for (const Violation& violation : violations) {
    for (const ShapeRule& rule : rules) {
      if (violation.rule != rule.id) continue;
      Finding finding;
      finding.severity = rule.field_since.empty() ? Severity::error : Severity::warning;
      finding.rule = std::string(prefix) + violation.rule;
      for (std::string_view key : rule.keys) {
        if (!key.empty()) finding.keys.emplace_back(key);
      }
      finding.message = violation.message + (subject.empty() ? "" : " (" + subject + ")") +
                        (rule.field_since.empty()
                             ? fmt::format("; would fail {}", rule.fails)
                             : fmt::format("; would fail {} with Megatron-core {} or later, which has the field (an "
                                           "older one ignores the key)",
                                           rule.fails, rule.field_since));
      if (!violation.valid.empty()) finding.message += "; valid: " + violation.valid;
      finding.location = where_set(launch, rule.keys[0]);
      out.push_back(std::move(finding));
    }
  }
  return out;
}

// "fixes, re-estimated (cheapest step time first): ..." and the override lines of every fix.
void attach_fixes(Finding& finding, const VerlJob& job, const ModelSpec& model, const Cluster& cluster,
                  double capacity) {
  const std::vector<MemoryFix> fixes = memory_fixes(job, model, cluster, capacity);
  if (fixes.empty()) {
    finding.message += "; no single verl setting fixes it (re-estimated): more GPUs or a larger rollout/actor split";
    return;
  }
  const double baseline = job_step_seconds(job, model, cluster);
  std::vector<std::string> described;
  for (const MemoryFix& fix : fixes) {
    described.push_back(describe_fix(fix, baseline));
    for (const std::string& line : fix.overrides) finding.fix.push_back(line);
  }
  finding.message += fmt::format("; re-estimated fixes, cheapest first: {}", fmt::join(described, "; "));
}

std::string lengths_note(const RlSettings& rl) {
  return fmt::format("at the expected lengths (prompt {}, response {} tokens; --mean-prompt-len / "
                     "--mean-response-len)",
                     rl.mean_prompt_len, rl.mean_response_len);
}


}  // namespace

Cluster job_cluster(const VerlJob& job, const GpuSpec& gpu) {
  Cluster cluster;
  cluster.groups.push_back(make_node_group(job.nnodes, job.gpus_per_node, gpu));
  return cluster;
}

std::optional<ModelSpec> model_from_path(const std::string& model_path) {
  const std::optional<PresetForPath> preset = model_preset_for_path(model_path);
  if (!preset) return std::nullopt;
  const auto text = find_model_preset_config(preset->preset);
  if (!text) return std::nullopt;
  auto model = parse_model_config(*text, preset->preset);
  if (!model.ok()) return std::nullopt;
  if (preset->dated) model->max_position_embeddings = 0;  // not known: the context rules skip it
  return model.value();
}

std::vector<Finding> check_model_shape(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model) {
  const Cluster cluster = job_cluster(job, GpuSpec{});
  // verl leaves expert_tensor_parallel_size null, which Megatron-core reads as TP for MoE layers;
  // a dense model has no expert layers, so ETP is 1 for it.
  Strategy strategy = job.strategy;
  if (!model.is_moe() && strategy.ep == 1 && strategy.etp == strategy.tp) strategy.etp = 1;
  return rule_findings(launch, validate_strategy(strategy, model, cluster, job.workload), kShapeRules, "model.",
                       model.name);
}

std::vector<Finding> check_gpu_support(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                       const GpuSpec& gpu) {
  // The rules' messages name the GPU.
  std::vector<Finding> out = rule_findings(
      launch, validate_strategy(job.strategy, model, job_cluster(job, gpu), job.workload), kGpuRules, "gpu.", "");
  // DeepEP's cooperative launch fails for certain; HybridEP's refusal is a C++ assert, which a
  // build with NDEBUG compiles out (its kernels then over-subscribe the SMs): likely, not certain.
  const std::string t = "actor_rollout_ref.actor.megatron.override_transformer_config.";
  const ConfigNode* backend = find_path(launch.config, t + "moe_flex_dispatcher_backend");
  const bool hybridep = (backend != nullptr && backend->kind == NodeKind::string && backend->text == "hybridep") ||
                        find_path(launch.config, t + "moe_hybridep_num_sms") != nullptr;
  for (Finding& finding : out) {
    if (finding.rule != "gpu.moe.flex-sms-gpu" || !hybridep) continue;
    finding.severity = Severity::warning;
    finding.message += " (the launch runs HybridEP, whose refusal is an assert: certain unless its build defines NDEBUG)";
  }
  return out;
}


std::vector<Finding> check_memory_fit(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                      const GpuSpec& gpu) {
  if (!job.too_large_key.empty()) {
    Finding skipped;
    skipped.severity = Severity::info;
    skipped.rule = "memory.not-evaluated";
    skipped.keys = {job.too_large_key};
    skipped.message = fmt::format("memory fit skipped: {} is beyond what meshplan evaluates ({})", job.too_large_key,
                                  kLargestEvaluatedInteger);
    skipped.location = where_set(launch, job.too_large_key);
    return {skipped};
  }
  if (!job.unknown_key.empty()) {
    // A verdict on verl's default for a value the launch sets to something unknown would not be
    // the launch's: the fit waits for the value (--env for the variable, --set for the key).
    Finding skipped;
    skipped.severity = Severity::info;
    skipped.rule = "memory.not-evaluated";
    skipped.keys = {job.unknown_key};
    skipped.message = fmt::format("memory fit skipped: {} is not known statically ({}); give it with --env VAR=value "
                                  "or --set {}=VALUE",
                                  job.unknown_key, job.unknown_reason, job.unknown_key);
    skipped.location = where_set(launch, job.unknown_key);
    return {skipped};
  }
  const Cluster cluster = job_cluster(job, gpu);
  const double capacity = double(gpu.memory_bytes);
  const MemoryTiers tiers = memory_tiers(model, cluster, job.strategy, job.workload, MemoryOptions{}, capacity);
  const MemoryEstimate& expected = tiers.expected;
  const RlSettings& rl = job.workload.rl;
  std::vector<Finding> out;
  const SourceLocation where = where_set(launch, "trainer.n_gpus_per_node");
  const std::vector<std::string> keys = {"trainer.n_gpus_per_node", "actor_rollout_ref.rollout.gpu_memory_utilization",
                                         "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"};
  if (expected.kv_cache_exhausted || expected.kv_below_one_sequence) {
    const RolloutCapacity& c = expected.rollout;
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = expected.kv_cache_exhausted ? "memory.no-kv-cache" : "memory.kv-below-max-model-len";
    finding.keys = {"actor_rollout_ref.rollout.gpu_memory_utilization", "actor_rollout_ref.rollout.max_model_len"};
    finding.value = fmt::format("{}", rl.gpu_memory_utilization);
    finding.message =
        expected.kv_cache_exhausted
            ? "the rollout engine's budget (gpu_memory_utilization x GPU memory) leaves no room for a KV cache after "
              "its weights: vLLM stops at start-up (\"No available memory for the cache blocks\")"
            : fmt::format(
                  "the rollout engine's KV cache holds {} tokens per replica, less than one max_model_len sequence "
                  "({} tokens, {:.2f} GiB of KV): vLLM refuses to start (vllm/v1/core/kv_cache_utils.py "
                  "check_enough_kv_cache_memory: the KV cache needed for max seq len is larger than the available "
                  "KV cache memory); gpu_memory_utilization >= {:.2f} holds one",
                  c.kv_tokens_per_replica, c.max_model_len,
                  bytes_to_gib(double(c.max_model_len) * c.kv_bytes_per_token),
                  c.gpu_memory_utilization_for_one_sequence);
    attach_fixes(finding, job, model, cluster, capacity);
    finding.location = where_set(launch, "actor_rollout_ref.rollout.gpu_memory_utilization");
    out.push_back(std::move(finding));
  }
  // Error tier: the phases that do not fit at the expected lengths, reported once at the peak.
  std::vector<std::string> over;
  for (int i = 0; i < expected.phase_count; ++i) {
    const PhaseMemory& phase = expected.phases[i];
    if (phase.peak_bytes() > capacity && i != expected.peak_phase) {
      over.push_back(fmt::format("{} {:.1f} GiB", memory_phase_name(phase.kind), bytes_to_gib(phase.peak_bytes())));
    }
  }
  if (expected.peak_bytes > capacity) {
    const char* phase = memory_phase_name(expected.peak().kind);
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "memory.phase-oom";
    finding.keys = keys;
    finding.value = fmt::format("{:.1f} GiB", bytes_to_gib(expected.peak_bytes));
    finding.message = fmt::format(
        "the {} phase needs {:.1f} GiB per GPU of {}'s {:.1f} GiB {}{}: would OOM in the {} phase{}", phase,
        bytes_to_gib(expected.peak_bytes), gpu.id, bytes_to_gib(capacity), lengths_note(rl),
        rl.use_dynamic_bsz ? " and the dynamic-bsz token budgets" : "", phase,
        over.empty() ? "" : fmt::format(" (also over: {})", fmt::join(over, ", ")));
    // Over only in the rollout, by memory the engine's budget may hold: certain only with the vLLM
    // releases that budget from their start-up snapshot.
    const std::optional<DeviceWideBudget> device_wide =
        rl.engine == RolloutEngine::vllm && over.empty() && expected.peak().kind == MemoryPhaseKind::rollout
            ? device_wide_vllm_budget(launch)
            : std::nullopt;
    const double shrunk = device_wide ? rollout_peak_with_device_wide_budget(expected.peak()) : 0.0;
    if (device_wide && shrunk <= capacity) {
      const std::string source =
          launch.vllm_pin ? "the script's pin" : "verl " + launch.verl_version.id + "'s setup.py";
      finding.severity = Severity::warning;
      finding.message = device_wide->every_release
          ? fmt::format(
                "the rollout phase fits at {:.1f} GiB per GPU of {}'s {:.1f} GiB only while the trainer holds no "
                "more than when the engine started: {} ({}) counts the memory already on the GPU inside "
                "gpu_memory_utilization x GPU memory (v1/worker/gpu_worker.py determine_available_memory, "
                "vllm#19312) and sizes its KV cache from what is left; what the trainer allocates later (optimizer "
                "states at the first update, unless offloaded) comes on top, up to {:.1f} GiB {}",
                bytes_to_gib(shrunk), gpu.id, bytes_to_gib(capacity), device_wide->releases, source,
                bytes_to_gib(expected.peak_bytes), lengths_note(rl))
          : finding.message + fmt::format(
                " with vLLM 0.9.2 or later; the launch may run {} ({}), and vLLM 0.9.1 and older count the memory "
                "already on the GPU (the trainer's states) inside gpu_memory_utilization x GPU memory "
                "(v1/worker/gpu_worker.py determine_available_memory, vllm#19312): the KV cache then shrinks and "
                "the phase peaks at {:.1f} GiB, which fits",
                device_wide->releases, source, bytes_to_gib(shrunk));
    }
    attach_fixes(finding, job, model, cluster, capacity);
    finding.location = where;
    out.push_back(std::move(finding));
    return out;
  }
  if (tiers.tier == MemoryTier::fits_expected) {
    const char* phase = memory_phase_name(tiers.worst.peak().kind);
    Finding finding;
    finding.severity = Severity::warning;
    finding.rule = "memory.oom-at-max-length";
    finding.keys = {"data.max_response_length", "data.max_prompt_length"};
    finding.value = fmt::format("{:.1f} GiB", bytes_to_gib(tiers.worst.peak_bytes));
    finding.message = fmt::format(
        "fits {} (peak {:.1f} GiB in {}), but the {} phase needs {:.1f} GiB of {:.1f} GiB when every sequence "
        "reaches its maximum length; {}",
        lengths_note(rl), bytes_to_gib(expected.peak_bytes), memory_phase_name(expected.peak().kind), phase,
        bytes_to_gib(tiers.worst.peak_bytes), bytes_to_gib(capacity),
        tiers.tipping_mean_response_len > 0
            ? fmt::format("it tips over at a mean response length of {} tokens", tiers.tipping_mean_response_len)
            : std::string("only the longest prompts tip it over"));
    VerlJob worst = job;
    worst.workload.rl.mean_prompt_len = 0;
    worst.workload.rl.mean_response_len = 0;
    attach_fixes(finding, worst, model, cluster, capacity);
    finding.location = where;
    out.push_back(std::move(finding));
  } else if (capacity - expected.peak_bytes < kLowHeadroomShare * capacity) {
    Finding finding;
    finding.severity = Severity::warning;
    finding.rule = "memory.low-headroom";
    finding.keys = keys;
    finding.value = fmt::format("{:.1f} GiB", bytes_to_gib(expected.peak_bytes));
    finding.message = fmt::format(
        "the {} phase needs {:.1f} GiB per GPU of {}'s {:.1f} GiB {}: only {:.1f}% headroom; fragmentation or a "
        "long batch may push it over",
        memory_phase_name(expected.peak().kind), bytes_to_gib(expected.peak_bytes), gpu.id, bytes_to_gib(capacity),
        lengths_note(rl), 100.0 * (capacity - expected.peak_bytes) / capacity);
    finding.location = where;
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace meshplan
