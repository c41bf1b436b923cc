// Fits the global constants of the time model (cost/time/efficiency.hpp) and prints them with the
// per-row error tables and the leave-one-source-out cross-validation. Build and run:
// tools/fit_efficiency.sh. Two stages: the training constants on the published training runs,
// then the RL constants on the measured RL runs with the training constants fixed. Each fit
// minimises the mean squared log error by coordinate descent over a grid of each constant.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "cost/calibration/calibration_runs.hpp"
#include "cost/calibration/rl_calibration_runs.hpp"
#include "cost/calibration/time_accuracy.hpp"

namespace {

using meshplan::CalibrationRun;
using meshplan::EfficiencyConstants;
using meshplan::RlCalibrationRun;

struct Knob {
  const char* name;
  double EfficiencyConstants::*field;
  double low, high;
};

// The training constants; nvlink_efficiency is measured (gpus.md), hf_elementwise_factor counted,
// fused attention runs at its kernel's measured rate (cost/time/attention_kernels.hpp).
const Knob kTrainingKnobs[] = {
    {"gemm_peak_fraction_ampere", &EfficiencyConstants::gemm_peak_fraction_ampere, 0.4, 0.95},
    {"gemm_peak_fraction_hopper", &EfficiencyConstants::gemm_peak_fraction_hopper, 0.4, 0.95},
    // Up to DeepGEMM's H800 table's ~1200 (efficiency.hpp); the fit's descent is local: it starts
    // from the shipped value.
    {"gemm_half_size", &EfficiencyConstants::gemm_half_size, 4, 1200},
    {"elementwise_passes", &EfficiencyConstants::elementwise_passes, 4, 200},
    {"nic_efficiency", &EfficiencyConstants::nic_efficiency, 0.2, 1.0},
    {"tp_overlap_hidden", &EfficiencyConstants::tp_overlap_hidden, 0.0, 1.0},
    {"overlap_efficiency", &EfficiencyConstants::overlap_efficiency, 0.0, 1.0},
    {"fp8_relative_efficiency", &EfficiencyConstants::fp8_relative_efficiency, 0.4, 1.0},
};

// The MoE constants, fit on the MoE training rows with the dense constants fixed: the host time
// of a MoE layer's forward (the dispatcher's device sync) and per local expert (TE GroupedLinear
// launches), each within what eager PyTorch + TE launch: up to 3 ms a layer, 0.2 ms an expert.
// expert_gemm_half_rows is counted, not fit: in a host-bound layer the data cannot see it.
const Knob kMoeKnobs[] = {
    {"moe_layer_host_seconds", &EfficiencyConstants::moe_layer_host_seconds, 0, 0.003},
    {"moe_expert_host_seconds", &EfficiencyConstants::moe_expert_host_seconds, 0, 0.0002},
};

// The cost of dropless routing, fit on the ratio of dropless to force-balanced throughput of the
// same launches (the MoE constants fixed): the experts' load spread, from 0 (no imbalance) to 4.
const Knob kLoadKnobs[] = {
    {"moe_expert_load_cv", &EfficiencyConstants::moe_expert_load_cv, 0.0, 4.0},
};

// The RL constants, fit with the training constants fixed, each within its physical range: a
// decode layer under CUDA graphs is a chain of 10-20 kernels of a few microseconds each.
const Knob kRlKnobs[] = {
    {"engine_step_seconds", &EfficiencyConstants::engine_step_seconds, 0.0, 0.01},
    {"decode_layer_seconds", &EfficiencyConstants::decode_layer_seconds, 0.0, 0.0002},
    {"decode_hbm_efficiency", &EfficiencyConstants::decode_hbm_efficiency, 0.5, 0.9},
    {"decode_kv_efficiency", &EfficiencyConstants::decode_kv_efficiency, 0.05, 0.9},
};

/// One row of either kind: its source, its id and a prediction error for given constants.
struct Row {
  std::string id;
  std::string source;
  std::function<double(const EfficiencyConstants&)> error;  ///< predicted / measured - 1
  bool moe = false;  ///< a MoE training row: fits the MoE constants, not the dense ones
  bool load = false;  ///< a dropless / force-balanced pair: fits moe_expert_load_cv only
  /// RL rows whose source times the phases: predicted / measured - 1 of each measured phase
  /// (generation with the weight sync, the log-prob passes, the update), fit beside the step.
  std::function<std::vector<double>(const EfficiencyConstants&)> phase_errors = nullptr;
};

std::vector<Row> training_rows(std::vector<CalibrationRun>& runs) {
  std::vector<Row> rows;
  for (CalibrationRun& run : runs) {
    const std::string source = run.id.substr(0, run.id.find('_', run.id.find('_') + 1));
    rows.push_back({run.id, source.rfind("narayanan", 0) == 0 ? "narayanan2021" : source,
                    [&run](const EfficiencyConstants& constants) {
                      run.options.constants = constants;
                      const meshplan::TimeEstimate estimate = meshplan::estimate_time(
                          run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
                      return meshplan::predicted_metric(run, estimate) / run.published - 1.0;
                    },
                    run.model.moe.has_value()});
  }
  return rows;
}

/// Each dropless run beside its force-balanced twin: error of the predicted throughput ratio.
std::vector<Row> load_rows(std::vector<CalibrationRun>& runs) {
  std::vector<Row> rows;
  const auto find = [&runs](const std::string& id) -> CalibrationRun* {
    for (CalibrationRun& run : runs) {
      if (run.id == id) return &run;
    }
    return nullptr;
  };
  for (CalibrationRun& run : runs) {
    CalibrationRun* twin = run.forced_balance_twin.empty() ? nullptr : find(run.forced_balance_twin);
    if (twin == nullptr) continue;
    const auto throughput = [](CalibrationRun& one, const EfficiencyConstants& constants) {
      one.options.constants = constants;
      return meshplan::estimate_time(one.model, one.cluster, one.strategy, one.workload, one.options, nullptr)
          .tokens_per_second_per_gpu;
    };
    Row row{run.id, "megatron_moe_modelzoo", [&run, twin, throughput](const EfficiencyConstants& constants) {
              const double measured = run.published / twin->published;
              return throughput(run, constants) / throughput(*twin, constants) / measured - 1.0;
            }};
    row.load = true;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Row> rl_rows(std::vector<RlCalibrationRun>& runs) {
  std::vector<Row> rows;
  for (RlCalibrationRun& run : runs) {
    const auto estimate = [&run](const EfficiencyConstants& constants) {
      run.options.constants = constants;
      return meshplan::estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    };
    Row row{run.id, run.source, [estimate, &run](const EfficiencyConstants& constants) {
              return estimate(constants).step_seconds / run.measured_step_s - 1.0;
            }};
    if (run.measured_gen_s > 0 || run.measured_log_prob_s > 0 || run.measured_update_s > 0) {
      row.phase_errors = [estimate, &run](const EfficiencyConstants& constants) {
        const meshplan::RlPhaseSeconds predicted = meshplan::rl_phase_seconds(estimate(constants));
        std::vector<double> errors;
        if (run.measured_gen_s > 0) errors.push_back(predicted.gen / run.measured_gen_s - 1.0);
        if (run.measured_log_prob_s > 0) errors.push_back(predicted.log_prob / run.measured_log_prob_s - 1.0);
        if (run.measured_update_s > 0) errors.push_back(predicted.update / run.measured_update_s - 1.0);
        return errors;
      };
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

double loss(const std::vector<const Row*>& rows, const EfficiencyConstants& constants) {
  // Mean squared log error, plus a penalty on rows beyond 18% so that no row is sacrificed.
  // A row with measured phases adds each phase's error as a term of its own.
  const auto term = [](double error) {
    const double log_error = std::fabs(std::log1p(error));
    return log_error * log_error + 4.0 * std::pow(std::max(0.0, log_error - 0.18), 2);
  };
  double sum = 0;
  std::size_t terms = 0;
  for (const Row* row : rows) {
    sum += term(row->error(constants));
    ++terms;
    if (!row->phase_errors) continue;
    for (double error : row->phase_errors(constants)) {
      sum += term(error);
      ++terms;
    }
  }
  return terms == 0 ? 0.0 : sum / static_cast<double>(terms);
}

// `steps` grid steps across each constant's range: 60 for the shipped fit; the RL folds of the
// cross-validation search 600 (docs/accuracy.md "RL table": on 60 a fold with few rows can stop
// on a coarser optimum whose held-out error is not the fold's best fit's).
template <std::size_t N>
EfficiencyConstants fit(const std::vector<const Row*>& rows, EfficiencyConstants constants, const Knob (&knobs)[N],
                        int steps = 60) {
  double best = loss(rows, constants);
  // Sweep until a sweep moves nothing: a coordinate-wise minimum, so that a fit from its own
  // result returns it (a fixed number of sweeps crawled along a narrow valley: session 55).
  for (bool moved = true; moved;) {
    moved = false;
    for (const Knob& knob : knobs) {
      for (int i = 0; i <= steps; ++i) {
        EfficiencyConstants trial = constants;
        trial.*knob.field = knob.low + (knob.high - knob.low) * i / static_cast<double>(steps);
        const double value = loss(rows, trial);
        if (value < best) {
          best = value;
          constants = trial;
          moved = true;
        }
      }
    }
  }
  return constants;
}

std::string percent(double fraction) {
  std::ostringstream out;
  out << std::round(fraction * 1000) / 10 << "%";
  return out.str();
}

struct Summary {
  double median = 0, max = 0;
};

Summary summarise(std::vector<double> errors) {
  for (double& e : errors) e = std::fabs(e);
  std::sort(errors.begin(), errors.end());
  if (errors.empty()) return {};
  return {errors[errors.size() / 2], errors.back()};
}

/// The error table of `rows` with `constants`; returns the errors.
std::vector<double> print_errors(const std::vector<Row>& rows, const EfficiencyConstants& constants) {
  std::cout << "\n| run | error |\n|---|---|\n";
  std::vector<double> errors;
  for (const Row& row : rows) {
    errors.push_back(row.error(constants));
    std::cout << "| " << row.id << " | " << percent(errors.back()) << " |\n";
  }
  const Summary s = summarise(errors);
  std::cout << "\nmedian |error| " << percent(s.median) << ", max " << percent(s.max) << ", rows " << rows.size()
            << "\n";
  return errors;
}

using Fitter = std::function<EfficiencyConstants(const std::vector<const Row*>&)>;

/// The training constants: the dense ones on the dense rows, then the MoE ones on the MoE rows
/// with the dense ones fixed (so the MoE rows cannot bend the dense fit). Without MoE rows the
/// MoE terms are off: no value of theirs leaks from a fit that saw MoE rows.
EfficiencyConstants fit_training(const std::vector<const Row*>& rows, const EfficiencyConstants& base) {
  std::vector<const Row*> dense;
  std::vector<const Row*> moe;
  std::vector<const Row*> load;
  for (const Row* row : rows) (row->load ? load : row->moe ? moe : dense).push_back(row);
  EfficiencyConstants constants = fit(dense, base, kTrainingKnobs);
  if (!moe.empty()) {
    constants = fit(moe, constants, kMoeKnobs);
  } else {
    for (const Knob& knob : kMoeKnobs) constants.*knob.field = knob.low;
  }
  // Without dropless rows, no imbalance is costed: no value leaks from a fit that saw them.
  if (!load.empty()) return fit(load, constants, kLoadKnobs);
  for (const Knob& knob : kLoadKnobs) constants.*knob.field = knob.low;
  return constants;
}

/// Leave one source out: refit on the other sources, predict the held-out one; prints each
/// held-out row's error and the constants of each fold (`knobs`) to `out`, and returns the error
/// of every row held out with its source.
std::vector<double> cross_validate(const char* title, const std::vector<Row>& rows, const EfficiencyConstants& base,
                       const Fitter& refit, const std::vector<Knob>& knobs, std::ostream& out) {
  std::set<std::string> sources;
  for (const Row& row : rows) sources.insert(row.source);
  out << "\n" << title << ": leave one source out\n\n| held-out source | rows | median abs. error | max abs. error |\n"
            << "|---|---|---|---|\n";
  std::vector<double> held_out;
  std::ostringstream per_row;
  std::ostringstream fold_constants;
  for (const std::string& source : sources) {
    std::vector<const Row*> training;
    std::vector<const Row*> testing;
    for (const Row& row : rows) {
      if (row.source == source) {
        testing.push_back(&row);
      } else {
        training.push_back(&row);
      }
    }
    const EfficiencyConstants constants = training.empty() ? base : refit(training);
    fold_constants << "  without " << source << ":";
    for (const Knob& knob : knobs) fold_constants << " " << knob.name << "=" << constants.*knob.field;
    fold_constants << "\n";
    std::vector<double> errors;
    for (const Row* row : testing) {
      errors.push_back(row->error(constants));
      held_out.push_back(errors.back());
      per_row << "| " << row->id << " | " << percent(errors.back()) << " |\n";
    }
    const Summary s = summarise(errors);
    out << "| " << source << " | " << testing.size() << " | " << percent(s.median) << " | " << percent(s.max)
              << " |\n";
  }
  const Summary all = summarise(held_out);
  out << "| all rows, each held out with its source | " << held_out.size() << " | " << percent(all.median)
            << " | " << percent(all.max) << " |\n\n| run, held out with its source | error |\n|---|---|\n"
            << per_row.str() << "\nconstants of each fold:\n" << fold_constants.str();
  return held_out;
}

std::string read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

/// The colocated RL rows no constant saw (the fit's rows, each held out with its source, and the
/// rows never fit, predicted with the fit's constants) must give the accuracy estimate and plan
/// print for a colocated step (cost/calibration/time_accuracy.cpp "rl-colocated"), to the 0.1
/// point it is printed with.
int check_rl_accuracy(const std::vector<double>& unseen_errors) {
  const Summary unseen = summarise(unseen_errors);
  const auto group = meshplan::time_accuracy_group("rl-colocated");
  if (group && static_cast<std::size_t>(group->runs) == unseen_errors.size() &&
      std::fabs(unseen.median - group->median_abs_error) <= 5.0001e-4 &&
      std::fabs(unseen.max - group->max_abs_error) <= 5.0001e-4) {
    return 0;
  }
  std::cout << "  rl-colocated accuracy: the colocated RL rows unseen by the constants that predict them give "
            << unseen_errors.size() << " rows, median " << percent(unseen.median) << ", max " << percent(unseen.max)
            << "; cost/calibration/time_accuracy.cpp ships other figures\n";
  return 1;
}

// --check: the fit, started from the shipped constants, must end on them (each within 0.1%): a change
// to the model that moves the optimum fails here until the constants are refit and the docs redone.
int check(const EfficiencyConstants& fitted, const EfficiencyConstants& shipped) {
  int moved = 0;
  const auto compare = [&](const Knob& knob) {
    const double a = fitted.*knob.field;
    const double b = shipped.*knob.field;
    if (std::fabs(a - b) <= 1e-3 * std::max(std::fabs(b), 1e-12)) return;
    std::cout << "  " << knob.name << ": the fit gives " << a << ", the model ships " << b << "\n";
    ++moved;
  };
  for (const Knob& knob : kTrainingKnobs) compare(knob);
  for (const Knob& knob : kMoeKnobs) compare(knob);
  for (const Knob& knob : kLoadKnobs) compare(knob);
  for (const Knob& knob : kRlKnobs) compare(knob);
  std::cout << (moved == 0 ? "the fit gives the shipped constants\n"
                           : "refit: tools/fit_efficiency.sh, then cost/time/efficiency.cpp and docs/accuracy.md\n");
  return moved == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const bool checking = argc > 1 && std::string(argv[1]) == "--check";
  if (checking) {
    --argc;
    ++argv;
  }
  const std::string training_path = argc > 1 ? argv[1] : "tests/fixtures/published_runs.json";
  const std::string rl_path = argc > 2 ? argv[2] : "tests/fixtures/rl_runs.json";
  const std::string rl_public_path = argc > 3 ? argv[3] : "tests/fixtures/rl_runs_public.json";
  const std::string rl_async_path = argc > 4 ? argv[4] : "tests/fixtures/rl_runs_async.json";
  const std::string rl_unseen_path = argc > 5 ? argv[5] : "tests/fixtures/rl_runs_unseen.json";
  // Its dropless / force-balanced pairs fit moe_expert_load_cv; its other rows are held out
  // (tests/cost/calibration/modelzoo_rows_test.cpp).
  const std::string load_path = argc > 6 ? argv[6] : "tests/fixtures/published_runs_megatron_moe_modelzoo.json";
  const EfficiencyConstants start = meshplan::fitted_efficiency_constants();
  auto training_set = meshplan::read_calibration_runs(read(training_path), training_path, start);
  auto load_set = meshplan::read_calibration_runs(read(load_path), load_path, start);
  auto rl_set = meshplan::read_rl_calibration_runs({{read(rl_path), rl_path}, {read(rl_public_path), rl_public_path}}, start);
  // Off-policy rows (generation on GPUs of its own): predicted, never fit.
  auto rl_async_set = meshplan::read_rl_calibration_runs({{read(rl_async_path), rl_async_path}}, start);
  // Colocated rows found after the fit (NeMo RL v0.4, v0.5's MoE rows): predicted, never fit.
  auto rl_unseen_set = meshplan::read_rl_calibration_runs({{read(rl_unseen_path), rl_unseen_path}}, start);
  for (const auto* set : {&rl_set, &rl_async_set, &rl_unseen_set}) {
    if (set->ok()) continue;
    std::cerr << "fit_efficiency: " << set->error().to_string() << "\n";
    return 2;
  }
  for (const auto* set : {&training_set, &load_set}) {
    if (set->ok()) continue;
    std::cerr << "fit_efficiency: " << set->error().to_string() << "\n";
    return 2;
  }
  std::vector<Row> training = training_rows(training_set->runs);
  for (Row& row : load_rows(load_set->runs)) training.push_back(std::move(row));
  const std::vector<Row> rl = rl_rows(rl_set->runs);
  const std::vector<Row> rl_unseen = rl_rows(rl_unseen_set->runs);
  std::vector<const Row*> all_training;
  for (const Row& row : training) all_training.push_back(&row);
  std::vector<const Row*> all_rl;
  for (const Row& row : rl) all_rl.push_back(&row);

  const EfficiencyConstants trained = fit_training(all_training, start);
  const EfficiencyConstants constants = fit(all_rl, trained, kRlKnobs);
  const auto refit_rl = [&](const auto& rows) { return fit(rows, trained, kRlKnobs, 600); };
  const std::vector<Knob> rl_knobs(std::begin(kRlKnobs), std::end(kRlKnobs));
  // Every colocated row predicted by constants that did not see it.
  const auto unseen_errors = [&](std::ostream& out) {
    std::vector<double> errors = cross_validate("RL", rl, trained, refit_rl, rl_knobs, out);
    for (const Row& row : rl_unseen) errors.push_back(row.error(constants));
    return errors;
  };
  if (checking) {
    std::ostringstream discarded;
    return check(constants, start) | check_rl_accuracy(unseen_errors(discarded));
  }
  std::cout << "fitted constants:\n";
  for (const Knob& knob : kTrainingKnobs) std::cout << "  " << knob.name << " = " << constants.*knob.field << "\n";
  for (const Knob& knob : kMoeKnobs) std::cout << "  " << knob.name << " = " << constants.*knob.field << "\n";
  for (const Knob& knob : kLoadKnobs) std::cout << "  " << knob.name << " = " << constants.*knob.field << "\n";
  for (const Knob& knob : kRlKnobs) std::cout << "  " << knob.name << " = " << constants.*knob.field << "\n";

  std::cout << "\ntraining rows (" << training_path << ")";
  print_errors(training, constants);
  for (const auto& skipped : training_set->skipped) std::cout << "  skipped " << skipped.id << ": " << skipped.reason << "\n";
  std::cout << "\nRL rows (" << rl_path << ", " << rl_public_path << ")";
  print_errors(rl, constants);
  std::cout << "\nOff-policy RL rows, not fit (" << rl_async_path << ")";
  print_errors(rl_rows(rl_async_set->runs), constants);
  std::vector<Knob> training_knobs(std::begin(kTrainingKnobs), std::end(kTrainingKnobs));
  training_knobs.insert(training_knobs.end(), std::begin(kMoeKnobs), std::end(kMoeKnobs));
  training_knobs.insert(training_knobs.end(), std::begin(kLoadKnobs), std::end(kLoadKnobs));
  cross_validate("training", training, start, [&](const auto& rows) { return fit_training(rows, start); },
                 training_knobs, std::cout);
  std::cout << "\nColocated RL rows, not fit (" << rl_unseen_path << ")";
  print_errors(rl_unseen, constants);
  const Summary colocated = summarise(unseen_errors(std::cout));
  std::cout << "\nrl-colocated (the RL rows each held out with its source, and the rows not fit): "
            << rl.size() + rl_unseen.size() << " rows, median |error| " << percent(colocated.median) << ", max "
            << percent(colocated.max) << "\n";
  return 0;
}
