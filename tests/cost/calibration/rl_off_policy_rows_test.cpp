// RL rows the fit has not seen: NeMo RL's off-policy (async GRPO) steps, generation on GPUs of its
// own running one (or eight) steps ahead of the trainer (tests/fixtures/rl_runs_async.json,
// written by tools/extract_nemo_rl_async_rows.py from the v0.5 and v0.6 performance summaries
// and the recipes at the same commits). No constant is fit on them (docs/accuracy.md,
// "Off-policy rows"); their figures are the accuracy estimate and plan print for an off-policy step
// (cost/calibration/time_accuracy.cpp), checked here to the 0.1 point they are printed with.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cost/calibration/rl_calibration_runs.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "cost/time/rl_step_time.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("off-policy RL rows, unseen by the fit: step time per row") {
  const auto path = test::fixture("rl_runs_async.json");
  auto set = read_rl_calibration_runs({{test::file_text(path), "rl_runs_async.json"}}, fitted_efficiency_constants());
  REQUIRE(set.ok());
  for (const SkippedRun& skipped : set->skipped) MESSAGE(skipped.id << ": " << skipped.reason);
  CHECK(set->skipped.empty());
  REQUIRE(set->runs.size() == 20);
  std::ostringstream table;
  table << "| run | measured s | predicted s | error | generation GPUs | trainer GPUs | generation s | tail s | trainer s | "
           "weight sync s |\n|---|---|---|---|---|---|---|---|---|---|\n";
  std::vector<double> errors;
  for (const RlCalibrationRun& run : set->runs) {
    const auto group = time_accuracy_for(run.model, run.cluster.groups.front().gpu, run.strategy, run.workload, 0.0).group;
    CHECK_MESSAGE((group && group->id == "rl-off-policy"), run.id);
    const TimeEstimate estimate = estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    const double error = estimate.step_seconds / run.measured_step_s - 1.0;
    errors.push_back(std::fabs(error));
    table << "| " << run.id << " | " << run.measured_step_s << " | " << std::round(estimate.step_seconds * 10) / 10 << " | "
          << std::round(error * 1000) / 10 << "% | " << run.workload.rl.rollout_gpus << " | "
          << run.strategy.world_size() << " | ";
    const RolloutTime rollout =
        rl_step_rollout(run.model, run.cluster.groups.front(), run.strategy, run.workload, run.options, nullptr);
    const RlPhaseSeconds phases = rl_phase_seconds(estimate);
    const auto seconds = [](double value) { return std::round(value * 10) / 10; };
    table << seconds(rollout.total() - rollout.weight_sync_s) << " | " << seconds(rollout.tail_s) << " | "
          << seconds(phases.log_prob + phases.update) << " | " << seconds(rollout.weight_sync_s) << " |\n";
  }
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  table << "median |error| " << median * 100 << "%, max " << errors.back() * 100 << "%";
  MESSAGE(table.str());
  // docs/accuracy.md "Off-policy rows" (15.8% / 52.5% with one decode HBM share: Qwen3-235B on 256
  // H100 at v0.5, then generation 299 s where the whole step took 203). The targets for
  // unseen runs are 15% / 35%.
  const auto group = time_accuracy_group("rl-off-policy");
  REQUIRE(group.has_value());
  CHECK(static_cast<int>(errors.size()) == group->runs);
  CHECK(std::fabs(median - group->median_abs_error) <= 5.0001e-4);
  CHECK(std::fabs(errors.back() - group->max_abs_error) <= 5.0001e-4);
}

}  // namespace meshplan
