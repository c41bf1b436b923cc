#pragma once
// The time section of `meshplan estimate`: text, JSON (under "time") and --explain terms, and the
// predicted-vs-measured table of `--measured` (verl console metrics). Pure: returns values.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "cost/time/host_cpu_sensitivity.hpp"
#include "cost/time/time_estimate.hpp"
#include "cost/trace.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "cost/calibration/verl_metrics.hpp"

namespace meshplan {

/// Phases, breakdown (seconds and share of the step) and throughput lines.
std::string render_time_text(const TimeEstimate& estimate);

/// {"step_seconds", "phases": [{"name", "seconds"}], "breakdown": {...}, "tokens_per_second_per_gpu",
///  "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "comm_fraction"}.
nlohmann::json time_to_json(const TimeEstimate& estimate);

/// How far times of this kind were from measured runs no constant was fit on, or that no such runs
/// cover it (one line).
std::string render_time_accuracy(const TimeAccuracyMatch& accuracy);

/// {"group", "scope", "runs", "median_abs_error", "max_abs_error", "evidence"}, or
/// {"group": null, "unchecked": why}.
nlohmann::json time_accuracy_json(const TimeAccuracyMatch& accuracy);

/// The MoE routing the time assumes, for a MoE model with EP > 1: every EP rank given the mean
/// tokens (force-balanced benchmarks) or the most loaded rank of a trained router
/// (--moe-dropless-imbalance), with that rank's factor either way, since a config does not say how
/// balanced its router keeps the tokens. Empty otherwise.
std::string render_moe_routing(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options);

/// {"dropless_imbalance", "most_loaded_rank_factor"} for a MoE model with EP > 1, else null.
nlohmann::json moe_routing_json(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options);

/// What the attention time assumes where the installed software decides it: gpt-oss's sinks
/// (learnable softmax offsets) are costed on a fused kernel, which Transformer Engine takes only
/// with a recent cuDNN and FlashAttention-2 not at all. Empty for a model without sinks or for
/// unfused attention (already costed so). One line, no newline.
std::string attention_caveat(const ModelSpec& model, const TimeOptions& options);

/// The step at the host's measured per-op time, for a part whose catalog entry has one and a MoE
/// run whose layers launch from the host (host_cpu_sensitivity.hpp), with how the held-out runs of
/// such launches fell: one line, no newline; empty without.
std::string render_host_cpu_sensitivity(const GpuSpec& gpu, const std::optional<HostCpuSensitivity>& host,
                                        double step_seconds);

/// {"host_op_time_ratio", "step_seconds", "moe_host_wait_seconds", "held_out_runs", "between",
/// "slower"}, or null.
nlohmann::json host_cpu_sensitivity_json(const std::optional<HostCpuSensitivity>& host);

/// Every "time/..." term of the trace: value, formula, inputs, source.
std::string render_time_explain(const Trace& trace);

/// Predicted next to measured for the verl metrics both sides have; `predicted_peak_gib` is the
/// memory model's peak (perf/max_memory_allocated_gb) when known.
std::string render_measured_comparison(const TimeEstimate& estimate, const VerlMetrics& measured,
                                       std::optional<double> predicted_peak_gib);

}  // namespace meshplan
