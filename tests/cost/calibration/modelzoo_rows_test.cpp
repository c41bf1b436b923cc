// MoE training runs of a second public source that no constant was fit on: the benchmark tables
// of NVIDIA's Megatron-MoE-ModelZoo (yanring/Megatron-MoE-ModelZoo best_practice/qwen3, Qwen3-235B-A22B
// on H100, GB200 and GB300), the final configuration of Megatron-LM's DeepSeek-V3 on GB200 guide
// and Megatron-Bridge's EP-overlap benchmark, each with the launch's own settings
// (tests/fixtures/published_runs_megatron_moe_modelzoo.json).
// Written apart from Megatron-Bridge's tables (held_out_training_test.cpp): other launch scripts,
// other software (Megatron-LM moe_dev / main of 2025-08 to 2026-05), other layouts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cost/calibration/calibration_runs.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "model/flops.hpp"
#include "approx.hpp"
#include "fixture_source.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

TEST_CASE("Megatron-MoE-ModelZoo's MoE training runs, held out of the fit") {
  std::ostringstream table;
  const auto errors = test::fixture_errors_by_group("published_runs_megatron_moe_modelzoo.json", table);
  test::check_source_figures("modelzoo", errors, table);
  MESSAGE(table.str());
}

// The fixture turns a published TFLOP/s into tokens/s with Megatron-LM's FLOPs per token
// (tools/megatron_flops.py, training.py num_floating_point_operations: core attention counted for
// the causal half). Independently, meshplan's own count (src/model/flops.cpp, the full s x s scores)
// less half of the score FLOPs of the three passes gives the same within 0.5% (routers, norms and
// MLA's small terms are what Megatron's closed form leaves out), and the readme's H100 rows, which
// publish both a step time and TFLOP/s, imply 147.3-148.2 GFLOP a token at 4096 tokens.
TEST_CASE("Megatron-MoE-ModelZoo fixture: the FLOPs per token that turn TFLOP/s into tokens/s") {
  const auto path = test::fixture("published_runs_megatron_moe_modelzoo.json");
  auto set = read_calibration_runs(test::file_text(path), path.string(), fitted_efficiency_constants());
  REQUIRE(set.ok());
  std::map<std::string, nlohmann::json> measured_of;
  for (const nlohmann::json& row : nlohmann::json::parse(test::file_text(path))) measured_of[row["id"]] = row["measured"];
  int derived = 0;
  for (const CalibrationRun& run : set->runs) {
    const nlohmann::json& measured = measured_of.at(run.id);
    if (!measured.contains("megatron_flops_per_token")) {
      // A step time: tokens/s = global batch x sequence / GPUs / seconds.
      const double gpus = static_cast<double>(run.strategy.tp * run.strategy.pp * run.strategy.cp * run.strategy.dp);
      CHECK(run.published == test::approx(static_cast<double>(run.workload.global_batch * run.workload.seq_len) / gpus /
                                             measured["step_time_s"].get<double>()).epsilon(1e-4));
      continue;
    }
    ++derived;
    const ForwardFlops forward = forward_flops_per_token(run.model, run.workload.seq_len);
    const double causal_counted = 3.0 * (forward.total() - 0.5 * forward.attention_scores);
    CHECK_MESSAGE(measured["megatron_flops_per_token"].get<double>() == test::approx(causal_counted).epsilon(0.005),
                  run.id);
    CHECK(run.published == test::approx(measured["tflops_per_gpu"].get<double>() * 1e12 /
                                           measured["megatron_flops_per_token"].get<double>()).epsilon(1e-4));
  }
  CHECK(derived == 15);
}

// Dropless routing against force-balanced routing, the same launches (the readme's long-context
// table gives both figures: 237 / 295, 277 / 335, 320 / 368, 357 / 389 TFLOP/s at 16k-128k tokens):
// what the most loaded EP rank costs. moe_expert_load_cv is fit on these four ratios
// (tools/fit_efficiency.cpp); each predicted ratio is within 5% of the measured one, and without
// the factor (force-balanced routing for both) the model would see no difference at all.
TEST_CASE("Megatron-MoE-ModelZoo: dropless routing costs its most loaded EP rank") {
  const auto path = test::fixture("published_runs_megatron_moe_modelzoo.json");
  auto set = read_calibration_runs(test::file_text(path), path.string(), fitted_efficiency_constants());
  REQUIRE(set.ok());
  std::map<std::string, const CalibrationRun*> by_id;
  for (const CalibrationRun& run : set->runs) by_id[run.id] = &run;
  const auto throughput = [](const CalibrationRun& run) {
    return estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr).tokens_per_second_per_gpu;
  };
  int pairs = 0;
  for (const CalibrationRun& run : set->runs) {
    if (run.forced_balance_twin.empty()) continue;
    ++pairs;
    CHECK(run.options.moe_dropless_imbalance);
    const CalibrationRun& twin = *by_id.at(run.forced_balance_twin);
    REQUIRE_FALSE(twin.options.moe_dropless_imbalance);
    const double measured = run.published / twin.published;
    const double predicted = throughput(run) / throughput(twin);
    CHECK_MESSAGE(predicted == test::approx(measured).epsilon(0.05), run.id << ": predicted " << predicted << ", measured " << measured);
    CalibrationRun balanced = run;
    balanced.options.moe_dropless_imbalance = false;
    CHECK(throughput(balanced) == test::approx(throughput(twin)));
  }
  CHECK(pairs == 4);
}

}  // namespace
}  // namespace meshplan
