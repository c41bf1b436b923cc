#include "report/time_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>

#include "cost/time/compute_time.hpp"
#include "report/table.hpp"

namespace meshplan {
namespace {

struct BreakdownPart {
  const char* name;
  double TimeBreakdown::*field;
};

// The JSON keys of `time.breakdown`, in display order (issue 4's names, plus rollout for RL).
constexpr BreakdownPart kParts[] = {
    {"compute", &TimeBreakdown::compute},         {"moe_host_wait", &TimeBreakdown::moe_host_wait},
    {"tp_comm", &TimeBreakdown::tp_comm},
    {"pp_bubble", &TimeBreakdown::pp_bubble},     {"pp_comm", &TimeBreakdown::pp_comm},
    {"dp_comm_exposed", &TimeBreakdown::dp_comm_exposed}, {"cp_comm", &TimeBreakdown::cp_comm},
    {"ep_comm", &TimeBreakdown::ep_comm},         {"offload", &TimeBreakdown::offload},
    {"rollout", &TimeBreakdown::rollout},
};

std::string seconds_cell(double seconds) {
  if (seconds >= 100) return fmt::format("{:.1f}", seconds);
  if (seconds >= 1) return fmt::format("{:.2f}", seconds);
  return fmt::format("{:.4f}", seconds);
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

// A part of an accuracy group's runs (a model family, a GPU type, the host-bound runs: each has
// runs, median_abs_error, max_abs_error and median_time_error), as a line under the group's.
template <class Subset>
std::string subset_line(const Subset& subset, const std::string& which) {
  return fmt::format("  {} of them {}: off by a median {} (at most {}), the predicted time {} than measured by a median {}\n",
                     subset.runs, which, percent(subset.median_abs_error), percent(subset.max_abs_error),
                     subset.median_time_error < 0 ? "shorter" : "longer", percent(std::fabs(subset.median_time_error)));
}

// The same in JSON, with the key that says which part it is; null where the estimate has none.
template <class Subset, class Key>
nlohmann::json subset_json(const std::optional<Subset>& subset, const char* key_name, Key key) {
  if (!subset) return nullptr;
  return {{key_name, key},
          {"runs", subset->runs},
          {"median_abs_error", subset->median_abs_error},
          {"max_abs_error", subset->max_abs_error},
          {"median_time_error", subset->median_time_error}};
}

// The other sources' runs of the group, each with its id and evidence; empty where there are none.
nlohmann::json other_sources_json(const std::vector<TimeAccuracySecondSource>& sources) {
  nlohmann::json list = nlohmann::json::array();
  for (const TimeAccuracySecondSource& source : sources) {
    nlohmann::json entry = subset_json(std::optional<TimeAccuracySecondSource>(source), "source", source.source);
    entry["evidence"] = source.evidence;
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

std::string render_time_text(const TimeEstimate& estimate) {
  std::vector<std::vector<std::string>> phases;
  for (int i = 0; i < estimate.num_phases; ++i) {
    const TimePhase& phase = estimate.phases[static_cast<std::size_t>(i)];
    phases.push_back({phase.name, seconds_cell(phase.seconds)});
  }
  phases.push_back({"step", seconds_cell(estimate.step_seconds)});
  std::vector<std::vector<std::string>> parts;
  for (const BreakdownPart& part : kParts) {
    const double seconds = estimate.breakdown.*part.field;
    if (seconds <= 0) continue;
    parts.push_back({part.name, seconds_cell(seconds),
                     percent(estimate.step_seconds > 0 ? seconds / estimate.step_seconds : 0.0)});
  }
  std::string text = "Step time (predicted)\n";
  text += render_table({{"phase", Align::left}, {"seconds", Align::right}}, phases);
  text += "\n";
  text += render_table({{"where the time goes", Align::left}, {"seconds", Align::right}, {"share", Align::right}}, parts);
  if (estimate.breakdown.moe_host_wait > 0) {
    text +=
        "moe_host_wait: the GPU idles while the host launches MoE layers (Megatron-core's token dispatcher syncs "
        "with the device in every MoE layer; the model's least certain term, docs/accuracy-held-out-training.md); "
        "CUDA graphs of the router and preprocessing, fewer local experts or larger micro-batches shorten it "
        "(Megatron-core moe/README.md \"CPU Overhead Bottleneck\")\n";
  }
  if (estimate.weight_sync_per_tensor_bound) {
    text +=
        "weight sync (inside timing_s/gen): costed as bytes over the framework's measured rate; colocated updates "
        "of MoE models whose expert matrices are a few MB vary most: verl + vLLM 0.8-2.2x the rate's time "
        "(Qwen3-30B-A3B), an SGLang engine that loads each expert tensor on its own up to 17x (verl PR #2418, "
        "slime #132), NeMo RL before its 2025-07 fixes 29x (PR #449; docs/accuracy.md)\n";
  }
  text += fmt::format(
      "\nThroughput: {:.0f} tokens/s/GPU; model {:.1f} TFLOP/s/GPU (whole-step MFU {}), hardware {:.1f} TFLOP/s/GPU "
      "(with recomputation); exposed communication {} of the step\n",
      estimate.tokens_per_second_per_gpu, estimate.model_tflops_per_gpu, percent(estimate.mfu),
      estimate.hardware_tflops_per_gpu, percent(estimate.comm_fraction));
  if (estimate.actor_update_mfu > 0) {
    text += fmt::format("Actor update MFU (verl perf/mfu/actor): {}\n", percent(estimate.actor_update_mfu));
  }
  return text;
}

nlohmann::json time_to_json(const TimeEstimate& estimate) {
  nlohmann::json phases = nlohmann::json::array();
  for (int i = 0; i < estimate.num_phases; ++i) {
    const TimePhase& phase = estimate.phases[static_cast<std::size_t>(i)];
    phases.push_back({{"name", phase.name}, {"seconds", phase.seconds}});
  }
  nlohmann::json breakdown = nlohmann::json::object();
  for (const BreakdownPart& part : kParts) breakdown[part.name] = estimate.breakdown.*part.field;
  nlohmann::json time = {{"step_seconds", estimate.step_seconds},
                         {"phases", phases},
                         {"breakdown", breakdown},
                         {"tokens_per_second_per_gpu", estimate.tokens_per_second_per_gpu},
                         {"model_tflops_per_gpu", estimate.model_tflops_per_gpu},
                         {"hardware_tflops_per_gpu", estimate.hardware_tflops_per_gpu},
                         {"mfu", estimate.mfu},
                         {"comm_fraction", estimate.comm_fraction}};
  if (estimate.actor_update_mfu > 0) time["actor_update_mfu"] = estimate.actor_update_mfu;
  if (estimate.weight_sync_per_tensor_bound) time["weight_sync_per_tensor_bound"] = true;
  return time;
}

std::string render_time_accuracy(const TimeAccuracyMatch& accuracy) {
  if (!accuracy.group) return fmt::format("Accuracy of the step time: unchecked: {} (docs/accuracy.md)\n", accuracy.unchecked);
  const TimeAccuracy& group = *accuracy.group;
  std::string text = fmt::format(
      "Accuracy of the step time: off by a median {} (at most {}) on {} measured runs that no constant was fit on: "
      "{} ({})\n",
      percent(group.median_abs_error), percent(group.max_abs_error), group.runs, group.scope, group.evidence);
  if (accuracy.family) {
    text += subset_line(*accuracy.family, fmt::format("are of this model's family ({})", accuracy.family->model_type));
  }
  if (accuracy.gpu_type) {
    text += subset_line(*accuracy.gpu_type, fmt::format("ran on this GPU type ({})", accuracy.gpu_type->gpu_id));
  }
  if (accuracy.host_bound) {
    text += subset_line(*accuracy.host_bound,
                        fmt::format("were host-bound in the model (moe_host_wait over {} of the step), as this estimate is",
                                    percent(accuracy.host_bound->min_share)));
  }
  if (accuracy.precision) {
    text += subset_line(*accuracy.precision,
                        fmt::format("trained in {}, as this estimate does", accuracy.precision->compute_dtype == "fp4"
                                                                                ? std::string_view("NVFP4 (--dtype fp4)")
                                                                                : accuracy.precision->compute_dtype));
  }
  for (const TimeAccuracySecondSource& other : accuracy.other_sources) {
    text += fmt::format(
        "  measured by another source, {} runs of {}: off by a median {} (at most {}), the predicted time {} than "
        "measured by a median {} ({})\n",
        other.runs, other.runs_described, percent(other.median_abs_error), percent(other.max_abs_error),
        other.median_time_error < 0 ? "shorter" : "longer", percent(std::fabs(other.median_time_error)), other.evidence);
  }
  return text;
}

nlohmann::json time_accuracy_json(const TimeAccuracyMatch& accuracy) {
  if (!accuracy.group) return {{"group", nullptr}, {"unchecked", accuracy.unchecked}};
  const TimeAccuracy& group = *accuracy.group;
  return {{"group", group.id},
          {"scope", group.scope},
          {"runs", group.runs},
          {"median_abs_error", group.median_abs_error},
          {"max_abs_error", group.max_abs_error},
          {"evidence", group.evidence},
          {"family", subset_json(accuracy.family, "model_type",
                                 accuracy.family ? accuracy.family->model_type : std::string_view())},
          {"gpu_type", subset_json(accuracy.gpu_type, "gpu", accuracy.gpu_type ? accuracy.gpu_type->gpu_id : std::string_view())},
          {"host_bound", subset_json(accuracy.host_bound, "min_moe_host_wait_share",
                                     accuracy.host_bound ? accuracy.host_bound->min_share : 0.0)},
          {"precision", subset_json(accuracy.precision, "compute_dtype",
                                    accuracy.precision ? accuracy.precision->compute_dtype : std::string_view())},
          {"other_sources", other_sources_json(accuracy.other_sources)}};
}

namespace {

/// The most loaded EP rank's factor under a trained router's dropless routing.
double dropless_factor(const ModelSpec& model, const Strategy& strategy, TimeOptions options) {
  options.moe_dropless_imbalance = true;
  return moe_load_factor(model, strategy, options);
}

}  // namespace

std::string render_moe_routing(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options) {
  if (!model.moe || strategy.ep <= 1) return "";
  const double factor = dropless_factor(model, strategy, options);
  if (options.moe_dropless_imbalance) {
    return fmt::format(
        "MoE routing: dropless with a trained router's imbalance: each MoE layer waits for its most loaded EP rank, "
        "{:.2f}x the mean routed tokens (EP {}, {} experts a rank; docs/accuracy-held-out-training.md)\n",
        factor, strategy.ep, model.moe->num_experts / strategy.ep);
  }
  return fmt::format(
      "MoE routing: every EP rank given the mean routed tokens, as force-balanced benchmarks run; dropless with a "
      "router as uneven as Qwen3's the most loaded rank carries about {:.2f}x (EP {}, {} experts a rank), which "
      "--moe-dropless-imbalance costs\n",
      factor, strategy.ep, model.moe->num_experts / strategy.ep);
}

nlohmann::json moe_routing_json(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options) {
  if (!model.moe || strategy.ep <= 1) return nullptr;
  return {{"dropless_imbalance", options.moe_dropless_imbalance},
          {"most_loaded_rank_factor", dropless_factor(model, strategy, options)}};
}

std::string attention_caveat(const ModelSpec& model, const TimeOptions& options) {
  if (!model.attention.sinks || !options.flash_attention) return "";
  // Transformer Engine's get_attention_backend disables FlashAttention for softmax_type != vanilla
  // and takes FusedAttention only with a cuDNN that has sinks: NVIDIA-NeMo/RL#1685 found it fused
  // with cuDNN 9.13.1 and unfused with 9.10.2; packed (THD) sequences need a newer one still
  // (TransformerEngine#2483, verl-project/verl#5224).
  return "Attention: the sinks (learnable softmax offsets) costed on a fused kernel; Transformer Engine runs them "
         "fused only with a recent cuDNN (9.13.1 did, 9.10.2 fell back to unfused attention: NVIDIA-NeMo/RL#1685; "
         "packed sequences need newer still: TransformerEngine#2483) and FlashAttention-2 has no kernel for them: "
         "unfused, attention is slower than this and holds the s x s scores";
}

std::string render_host_cpu_sensitivity(const GpuSpec& gpu, const std::optional<HostCpuSensitivity>& host,
                                        double step_seconds) {
  if (!host || !(step_seconds > 0)) return "";
  const TimeAccuracyHostCpu held_out = time_accuracy_host_cpu();
  return fmt::format(
      "Host CPU: {} launches from a host whose per-op time is {:.2f}x the x86 hosts' the MoE host time was fit on "
      "(the catalog's host_op_time_ratio); at that ratio moe_host_wait would be {} s and the step {} s ({:+.1f}%). "
      "Of {} held-out GB200 / GB300 MoE runs launched from the host, {} measured between the two estimates, {} "
      "slower than both (docs/accuracy-held-out-training.md)",
      gpu.id, host->host_op_time_ratio, seconds_cell(host->moe_host_wait_seconds), seconds_cell(host->step_seconds),
      (host->step_seconds / step_seconds - 1.0) * 100.0, held_out.runs, held_out.between, held_out.slower);
}

nlohmann::json host_cpu_sensitivity_json(const std::optional<HostCpuSensitivity>& host) {
  if (!host) return nullptr;
  const TimeAccuracyHostCpu held_out = time_accuracy_host_cpu();
  return {{"host_op_time_ratio", host->host_op_time_ratio},
          {"step_seconds", host->step_seconds},
          {"moe_host_wait_seconds", host->moe_host_wait_seconds},
          {"held_out_runs", held_out.runs},
          {"between", held_out.between},
          {"slower", held_out.slower}};
}

std::string render_time_explain(const Trace& trace) {
  std::string text = "Time terms (formula; inputs; source):\n";
  for (const TraceTerm& term : trace) {
    if (term.name.rfind("time/", 0) != 0) continue;
    text += fmt::format("  {} = {:.6g} {}\n      {}\n", term.name, term.value, term.unit, term.formula);
    if (!term.inputs.empty()) text += fmt::format("      inputs: {}\n", term.inputs);
    if (!term.source.empty()) text += fmt::format("      source: {}\n", term.source);
  }
  return text;
}

std::string render_measured_comparison(const TimeEstimate& estimate, const VerlMetrics& measured,
                                       std::optional<double> predicted_peak_gib) {
  std::vector<std::vector<std::string>> rows;
  const auto add = [&](const std::string& key, std::optional<double> predicted, bool is_fraction) {
    const auto it = measured.mean.find(key);
    if (it == measured.mean.end() && !predicted) return;
    const auto cell = [&](double value) { return is_fraction ? percent(value) : fmt::format("{:.3g}", value); };
    const std::string measured_cell = it == measured.mean.end() ? "-" : cell(it->second);
    const std::string predicted_cell = predicted ? cell(*predicted) : "-";
    std::string ratio = "-";
    if (predicted && it != measured.mean.end() && it->second > 0) ratio = fmt::format("{:+.0f}%", 100.0 * (*predicted / it->second - 1.0));
    rows.push_back({key, predicted_cell, measured_cell, ratio});
  };
  for (int i = 0; i < estimate.num_phases; ++i) {
    const TimePhase& phase = estimate.phases[static_cast<std::size_t>(i)];
    add(phase.name, phase.seconds, false);
  }
  add("timing_s/step", estimate.step_seconds, false);
  add("perf/mfu/actor", estimate.actor_update_mfu > 0 ? std::optional<double>(estimate.actor_update_mfu) : std::nullopt,
      true);
  add("perf/max_memory_allocated_gb", predicted_peak_gib, false);
  std::string text = fmt::format("Predicted vs measured (mean of {} of {} logged steps; the first is warm-up)\n",
                                 measured.steps_used, measured.steps);
  text += render_table({{"metric", Align::left}, {"predicted", Align::right}, {"measured", Align::right},
                        {"predicted/measured", Align::right}},
                       rows);
  return text;
}

}  // namespace meshplan
