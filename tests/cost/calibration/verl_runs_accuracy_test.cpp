// verl's own measured runs (verl_runs.hpp: its docs' tables, none seen by a fit) as the second
// source of the RL groups whose figures come from NeMo RL's runs: each run's step error, gathered
// by group, must give what estimate and plan print beside the group (time_accuracy.cpp
// kSecondSources), to the 0.1 point they are printed with.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "cost/calibration/time_accuracy.hpp"
#include "verl_runs.hpp"

namespace meshplan {

TEST_CASE("verl's own runs: the second source of the colocated and off-policy RL groups") {
  std::map<std::string, std::vector<double>> errors, time_errors;
  std::ostringstream table;
  table << "| run | measured s | predicted s | error |\n|---|---|---|---|\n";
  for (const test::VerlRun& run : test::verl_measured_runs()) {
    const double error = run.predicted_step_s / run.measured_step_s - 1.0;
    table << "| " << run.id << " | " << run.measured_step_s << " | " << std::round(run.predicted_step_s * 10) / 10
          << " | " << std::round(error * 1000) / 10 << "% |\n";
    const std::string group = run.off_policy ? "rl-off-policy" : "rl-colocated";
    errors[group].push_back(std::fabs(error));
    time_errors[group].push_back(error);
  }
  MESSAGE(table.str());
  for (auto& [group, values] : errors) {
    std::vector<double>& times = time_errors[group];
    std::sort(values.begin(), values.end());
    std::sort(times.begin(), times.end());
    const double median = values[values.size() / 2];
    const double median_time = times[times.size() / 2];
    MESSAGE(group << ": " << values.size() << " runs, median |error| " << std::round(median * 1000) / 10 << "%, max "
                  << std::round(values.back() * 1000) / 10 << "%, median time error "
                  << std::round(median_time * 1000) / 10 << "%");
    const auto expected = time_accuracy_second_source(group, "verl");
    REQUIRE_MESSAGE(expected.has_value(), group);
    CHECK(values.size() == static_cast<std::size_t>(expected->runs));
    CHECK(std::fabs(median - expected->median_abs_error) <= 5.0001e-4);
    CHECK(std::fabs(values.back() - expected->max_abs_error) <= 5.0001e-4);
    CHECK(std::fabs(median_time - expected->median_time_error) <= 5.0001e-4);
  }
}

}  // namespace meshplan
