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
};

using RlCalibrationSet = CalibrationRows<RlCalibrationRun>;

/// Parses the RL-runs JSON. Rows without a measured step, rows that are not colocated and
/// synchronous, rows whose rollout engine is neither vLLM nor SGLang, and rows that leave the
/// model, the GPUs, the layout or the lengths unstated are listed in `skipped` with the reason.
Result<RlCalibrationSet> read_rl_calibration_runs(std::string_view json_text, const std::string& file_name,
                                                  const EfficiencyConstants& constants);

}  // namespace meshplan
