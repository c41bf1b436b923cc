#pragma once
// Measured RL runs (../shared/calibration/rl_runs.json, copied as facts into
// tests/fixtures/rl_runs.json) turned into the inputs of estimate_time: the colocated,
// synchronous rows whose model, GPUs, parallel layout and lengths are stated. The RL accuracy
// test and tools/fit_efficiency share it (docs/accuracy.md).
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "cost/calibration/calibration_runs.hpp"

namespace meshplan {

struct RlCalibrationRun {
  std::string id;
  std::string source;  ///< the publication the row comes from (one fold of the cross-validation)
  ModelSpec model;
  Cluster cluster;
  Strategy strategy;
  Workload workload;
  TimeOptions options;  ///< constants, and the rollout concurrency the memory model's KV budget allows
  double measured_step_s = 0;
  /// Per-phase measured times where the source gives them (0: not given): generation with the
  /// weight update into the engine (verl timing_s/gen; NeMo RL generation + refit), the log-prob
  /// passes (old + reference), the actor update.
  double measured_gen_s = 0;
  double measured_log_prob_s = 0;
  double measured_update_s = 0;
};

using RlCalibrationSet = CalibrationRows<RlCalibrationRun>;

/// A predicted RL step grouped as the sources time it: generation with the weight sync
/// (timing_s/gen), the forward passes (old and reference log-probs, values), the updates.
struct RlPhaseSeconds {
  double gen = 0;
  double log_prob = 0;
  double update = 0;
};
RlPhaseSeconds rl_phase_seconds(const TimeEstimate& estimate);

/// One RL-runs JSON file: its text and the name errors give.
struct CalibrationFile {
  std::string text;
  std::string name;
};

/// The measured RL runs of every file (tests/fixtures/rl_runs.json, a copy of
/// ../shared/calibration/rl_runs.json, and tests/fixtures/rl_runs_public.json, the runs this
/// project found). Rows without a measured step, rows that are not colocated and synchronous,
/// rows whose rollout engine is neither vLLM nor SGLang, and rows that leave the model, the GPUs,
/// the layout or the lengths unstated are listed in `skipped` with the reason.
Result<RlCalibrationSet> read_rl_calibration_runs(const std::vector<CalibrationFile>& files,
                                                  const EfficiencyConstants& constants);

}  // namespace meshplan
