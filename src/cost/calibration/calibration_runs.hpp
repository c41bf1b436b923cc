#pragma once
// Published training runs (../shared/calibration/published_runs.json, copied as facts into
// tests/fixtures/published_runs.json) turned into the inputs of estimate_time, with what each
// row measured and how it counted FLOPs. The calibration test and tools/fit_efficiency share it.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "cost/calibration/calibration_json.hpp"
#include "cost/time/step_time.hpp"

namespace meshplan {

/// What a row reports, and so what the prediction is compared with.
enum class PublishedMetric {
  hardware_tflops_per_gpu,  ///< Narayanan et al. 2021 Eq. 3: FLOPs include the recomputed forward
  model_tflops_per_gpu,     ///< Megatron's num_floating_point_operations: no recomputation
  tokens_per_second_per_gpu,
};

struct CalibrationRun {
  std::string id;
  ModelSpec model;
  Cluster cluster;
  Strategy strategy;
  Workload workload;
  TimeOptions options;  ///< the software of the row's source (fused attention, overlaps)
  PublishedMetric metric = PublishedMetric::model_tflops_per_gpu;
  double published = 0;
  /// A dropless run measured beside a force-balanced one of the same launch: that run's id. The
  /// pair measures what routing imbalance costs (EfficiencyConstants::moe_expert_load_cv is
  /// fit on such pairs); empty for every other row.
  std::string forced_balance_twin;
};

using CalibrationSet = CalibrationRows<CalibrationRun>;

/// Parses the published-runs JSON. `constants` go into every run's TimeOptions.
/// Rows without a model shape or a parallel layout are listed in `skipped` with the reason.
Result<CalibrationSet> read_calibration_runs(std::string_view json_text, const std::string& file_name,
                                             const EfficiencyConstants& constants);

/// The prediction in the row's own metric.
double predicted_metric(const CalibrationRun& run, const TimeEstimate& estimate);

/// A classic GPT (Megatron GPT-2/3 conventions): LayerNorm, 4h GeLU MLP with biases, biased
/// q/k/v/o, learned positions, embeddings tied to the LM head.
ModelSpec gpt_model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t ffn,
                         std::int64_t vocab, std::int64_t seq_len);

/// A Llama-style decoder: RMSNorm, SwiGLU, GQA, rotary positions, no biases, untied LM head.
ModelSpec llama_model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t kv_heads,
                           std::int64_t ffn, std::int64_t vocab);

}  // namespace meshplan
