#pragma once
// A published-runs fixture read as one of the training groups' other sources (time_accuracy.cpp
// kSecondSources): each held-out row's throughput error, by the group an estimate of its kind falls
// in, and each group's figures against what estimate and plan print (modelzoo_rows_test.cpp,
// bridge_card_rows_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_runs.hpp"
#include "cost/calibration/calibration_runs.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "test_support.hpp"

namespace meshplan::test {

/// Errors (predicted / measured throughput - 1) of the fixture's rows by group; the rows that fit
/// moe_expert_load_cv (a forced-balance twin) are listed in `table` but not held out.
inline std::map<std::string, std::vector<double>> fixture_errors_by_group(const char* fixture_name,
                                                                          std::ostringstream& table) {
  const auto path = fixture(fixture_name);
  auto set = read_calibration_runs(file_text(path), path.string(), fitted_efficiency_constants());
  REQUIRE(set.ok());
  CHECK(set->skipped.empty());
  std::map<std::string, std::vector<double>> errors;
  table << "| run | published tokens/s/GPU | predicted | error | moe_host_wait share |\n|---|---|---|---|---|\n";
  for (const CalibrationRun& run : set->runs) {
    // The launch's settings (read_calibration_runs applies each row's "settings").
    const TimeEstimate estimate = estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    const double error = predicted_metric(run, estimate) / run.published - 1.0;
    table << "| " << run.id << (run.forced_balance_twin.empty() ? "" : " (fit row)") << " | " << run.published << " | "
          << std::round(predicted_metric(run, estimate)) << " | " << std::round(error * 1000) / 10 << "% | "
          << std::round(estimate.moe_host_wait_share() * 1000) / 10 << "% |\n";
    if (!run.forced_balance_twin.empty()) continue;  // fits moe_expert_load_cv: not held out
    const auto group = time_accuracy_for(run.model, run.cluster.groups.front().gpu, run.strategy, run.workload, 0.0).group;
    REQUIRE_MESSAGE(group.has_value(), run.id);
    errors[std::string(group->id)].push_back(error);
  }
  return errors;
}

/// Each group's figures are what estimate and plan print for `source` (time_accuracy.cpp
/// kSecondSources), to the 0.1 point they are printed with; every group of the rows has an entry.
inline void check_source_figures(std::string_view source, const std::map<std::string, std::vector<double>>& errors,
                                 std::ostringstream& table) {
  std::size_t listed = 0;
  for (const TimeAccuracySecondSource& expected : time_accuracy_second_sources()) {
    if (expected.source != source) continue;
    ++listed;
    const auto rows = errors.find(std::string(expected.group_id));
    REQUIRE_MESSAGE(rows != errors.end(), expected.group_id);
    const ErrorSummary summary = summarize(rows->second);
    table << expected.group_id << ": " << rows->second.size() << " rows, median |error| "
          << std::round(summary.median_abs * 1000) / 10 << "%, max " << std::round(summary.max_abs * 1000) / 10
          << "%, median time error " << std::round(summary.median_time * 1000) / 10 << "%\n";
    CHECK_MESSAGE(rows->second.size() == static_cast<std::size_t>(expected.runs), expected.group_id);
    CHECK_MESSAGE(std::fabs(summary.median_abs - expected.median_abs_error) <= 5.0001e-4, expected.group_id);
    CHECK_MESSAGE(std::fabs(summary.max_abs - expected.max_abs_error) <= 5.0001e-4, expected.group_id);
    CHECK_MESSAGE(std::fabs(summary.median_time - expected.median_time_error) <= 5.0001e-4, expected.group_id);
  }
  CHECK(errors.size() == listed);
}

}  // namespace meshplan::test
