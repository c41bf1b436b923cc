// Fits the global constants of the time model (cost/efficiency.hpp) on the published runs and
// prints them with the per-row error table. Build and run: tools/fit_efficiency.sh.
// The fit minimises the mean squared log error of the predicted metric over every row, by
// coordinate descent over a log-spaced grid of each constant in turn (a few thousand estimates).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "cost/calibration_runs.hpp"

namespace {

using meshplan::CalibrationRun;
using meshplan::EfficiencyConstants;

std::vector<double> relative_errors(std::vector<CalibrationRun>& runs, const EfficiencyConstants& constants) {
  std::vector<double> errors;
  for (CalibrationRun& run : runs) {
    run.options.constants = constants;
    const meshplan::TimeEstimate estimate =
        meshplan::estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    errors.push_back(meshplan::predicted_metric(run, estimate) / run.published - 1.0);
  }
  return errors;
}

double loss(std::vector<CalibrationRun>& runs, const EfficiencyConstants& constants) {
  // Mean squared log error, plus a penalty on rows beyond 18% so that no row is sacrificed.
  double sum = 0;
  for (double error : relative_errors(runs, constants)) {
    const double log_error = std::fabs(std::log1p(error));
    sum += log_error * log_error + 4.0 * std::pow(std::max(0.0, log_error - 0.18), 2);
  }
  return sum / static_cast<double>(runs.size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "tests/fixtures/published_runs.json";
  std::ifstream file(path);
  if (!file) {
    std::cerr << "fit_efficiency: cannot read " << path << "\n";
    return 2;
  }
  std::stringstream text;
  text << file.rdbuf();
  EfficiencyConstants constants = meshplan::fitted_efficiency_constants();
  auto set = meshplan::read_calibration_runs(text.str(), path, constants);
  if (!set) {
    std::cerr << "fit_efficiency: " << set.error().to_string() << "\n";
    return 2;
  }
  std::vector<CalibrationRun>& runs = set->runs;
  // The fitted constants; nvlink_efficiency and fp8_relative_efficiency are measured (gpus.md).
  struct Knob {
    const char* name;
    double EfficiencyConstants::*field;
    double low, high;
  };
  const Knob knobs[] = {
      {"gemm_peak_fraction_ampere", &EfficiencyConstants::gemm_peak_fraction_ampere, 0.4, 0.95},
      {"gemm_peak_fraction_hopper", &EfficiencyConstants::gemm_peak_fraction_hopper, 0.4, 0.95},
      {"gemm_half_size", &EfficiencyConstants::gemm_half_size, 4, 1024},
      {"attention_relative_efficiency", &EfficiencyConstants::attention_relative_efficiency, 0.2, 1.0},
      {"elementwise_passes", &EfficiencyConstants::elementwise_passes, 4, 200},
      {"nic_efficiency", &EfficiencyConstants::nic_efficiency, 0.2, 1.0},
      {"tp_overlap_hidden", &EfficiencyConstants::tp_overlap_hidden, 0.0, 1.0},
      {"overlap_efficiency", &EfficiencyConstants::overlap_efficiency, 0.0, 1.0},
      {"fp8_relative_efficiency", &EfficiencyConstants::fp8_relative_efficiency, 0.4, 1.0},
  };
  double best = loss(runs, constants);
  for (int sweep = 0; sweep < 6; ++sweep) {
    for (const Knob& knob : knobs) {
      for (int i = 0; i <= 60; ++i) {
        EfficiencyConstants trial = constants;
        trial.*knob.field = knob.low + (knob.high - knob.low) * i / 60.0;
        const double value = loss(runs, trial);
        if (value < best) {
          best = value;
          constants = trial;
        }
      }
    }
  }
  std::cout << "fitted constants (rms log error " << std::sqrt(best) << "):\n";
  for (const Knob& knob : knobs) std::cout << "  " << knob.name << " = " << constants.*knob.field << "\n";
  const std::vector<double> errors = relative_errors(runs, constants);
  std::cout << "\n| run | published | predicted | error |\n|---|---|---|---|\n";
  std::vector<double> absolute;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const double published = runs[i].published;
    std::cout << "| " << runs[i].id << " | " << published << " | " << published * (1 + errors[i]) << " | "
              << std::round(errors[i] * 1000) / 10 << "% |\n";
    absolute.push_back(std::fabs(errors[i]));
  }
  std::sort(absolute.begin(), absolute.end());
  std::cout << "\nmedian |error| " << absolute[absolute.size() / 2] * 100 << "%, max " << absolute.back() * 100
            << "%, rows " << runs.size() << ", skipped " << set->skipped.size() << "\n";
  for (const auto& skipped : set->skipped) std::cout << "  skipped " << skipped.id << ": " << skipped.reason << "\n";
  return 0;
}
