#pragma once
// Measured runs checked through the CLI, as a user would estimate them: `meshplan estimate` with
// the run's own flags, its printed throughput against the measured one (amd_rows_test.cpp,
// mlperf_rows_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cost/calibration/time_accuracy.hpp"
#include "test_support.hpp"

namespace meshplan::test {

struct MeasuredRun {
  const char* id;
  std::vector<std::string> args;  ///< after `meshplan estimate`
  double tokens_per_second_per_gpu;
};

/// What `meshplan estimate ARGS` prints as tokens/s/GPU. Exit 1 (does not fit) is accepted: a
/// measured run's time is checked whatever the memory verdict says.
inline double predicted_tokens_per_second_per_gpu(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"estimate"};
  full.insert(full.end(), args.begin(), args.end());
  const CliRun run = test::run(full);
  REQUIRE_MESSAGE(run.exit_code <= 1, run.err);
  const std::string marker = "Throughput: ";
  const auto at = run.out.find(marker);
  REQUIRE(at != std::string::npos);
  return std::stod(run.out.substr(at + marker.size()));
}

/// Each run's error (predicted / measured - 1), tabulated into `table`.
inline std::vector<double> run_errors(const std::vector<MeasuredRun>& runs, std::ostringstream& table) {
  table << "| run | measured tokens/s/GPU | predicted | error |\n|---|---|---|---|\n";
  std::vector<double> errors;
  for (const MeasuredRun& run : runs) {
    const double predicted = predicted_tokens_per_second_per_gpu(run.args);
    const double error = predicted / run.tokens_per_second_per_gpu - 1.0;
    table << "| " << run.id << " | " << run.tokens_per_second_per_gpu << " | " << predicted << " | "
          << std::round(error * 1000) / 10 << "% |\n";
    errors.push_back(error);
  }
  return errors;
}

/// Median (the upper of two middles, as every group's) and max of |error|, and the median of the
/// step time's signed error (predicted / measured step - 1; the errors are of throughput).
struct ErrorSummary {
  double median_abs = 0, max_abs = 0, median_time = 0;
};
inline ErrorSummary summarize(const std::vector<double>& errors) {
  std::vector<double> abs, time;
  for (double error : errors) {
    abs.push_back(std::fabs(error));
    time.push_back(1.0 / (1.0 + error) - 1.0);
  }
  std::sort(abs.begin(), abs.end());
  std::sort(time.begin(), time.end());
  return {abs[abs.size() / 2], abs.back(), time[time.size() / 2]};
}

/// `a` followed by `b`: a run's CLI arguments with a layout or settings appended.
inline std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Each group's runs, summarized into `table`, against what estimate and plan print for `source`
/// beside the group (time_accuracy.cpp kSecondSources), to the 0.1 point they are printed with.
inline void check_source_groups(const std::map<std::string, std::vector<MeasuredRun>>& by_group, std::string_view source,
                                std::ostringstream& table) {
  for (const auto& [group_id, runs] : by_group) {
    const ErrorSummary summary = summarize(run_errors(runs, table));
    table << group_id << ": " << runs.size() << " runs, median |error| " << summary.median_abs * 100 << "%, max "
          << summary.max_abs * 100 << "%, median time error " << summary.median_time * 100 << "%\n\n";
    REQUIRE(time_accuracy_group(group_id).has_value());
    const std::optional<TimeAccuracySecondSource> expected = time_accuracy_second_source(group_id, source);
    REQUIRE_MESSAGE(expected.has_value(), group_id);
    CHECK(static_cast<int>(runs.size()) == expected->runs);
    CHECK_MESSAGE(std::fabs(summary.median_abs - expected->median_abs_error) <= 5.0001e-4, group_id);
    CHECK_MESSAGE(std::fabs(summary.max_abs - expected->max_abs_error) <= 5.0001e-4, group_id);
    CHECK_MESSAGE(std::fabs(summary.median_time - expected->median_time_error) <= 5.0001e-4, group_id);
  }
}

}  // namespace meshplan::test
