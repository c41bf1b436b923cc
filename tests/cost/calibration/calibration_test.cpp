#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "approx.hpp"
#include "cost/calibration/calibration_runs.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

/// What the time model reaches on NeMo's MoE training rows (docs/accuracy.md: +54.3%, +39.6% and
/// +8.1%, with the MoE host-time constants at the top of their physical range), with a small margin.
/// GPT-OSS-120B went from +36.8% to +39.6% when its recipe's 16-bit main grads halved its
/// gradient reduce-scatter. A MoE row not listed here is held to the largest bound.
constexpr std::pair<const char*, double> kMoeRowBounds[] = {
    {"nemo_bridge_25.11_h100_Qwen3_30B_a3B_16gpu_FP8-CS", 0.56},
    {"nemo_bridge_25.11_h100_GPT OSS 120B_64gpu_BF16", 0.41},
    {"nemo_bridge_25.11_h100_Qwen3_235B_a22B_256gpu_FP8-CS", 0.10},
};

double moe_row_bound(const std::string& id) {
  double largest = 0;
  for (const auto& [row, bound] : kMoeRowBounds) {
    if (id == row) return bound;
    largest = std::max(largest, bound);
  }
  return largest;
}

/// Predicts every buildable row with the fitted constants; returns the absolute relative errors
/// of the dense rows and of the MoE rows (fit in a stage of their own: docs/accuracy.md).
struct CalibrationErrors {
  std::vector<double> dense;
  std::vector<double> moe;
};

CalibrationErrors calibration_errors(const std::filesystem::path& path) {
  auto set = read_calibration_runs(test::file_text(path), path.string(), fitted_efficiency_constants());
  REQUIRE(set.ok());
  CalibrationErrors errors;
  std::ostringstream table;
  table << "predicted vs published (" << path.filename().string() << ")\n";
  for (const CalibrationRun& run : set->runs) {
    const TimeEstimate estimate = estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    const double predicted = predicted_metric(run, estimate);
    const double error = predicted / run.published - 1.0;
    (run.model.moe ? errors.moe : errors.dense).push_back(std::fabs(error));
    table << "  " << run.id << ": published " << run.published << ", predicted " << predicted << ", error "
          << std::round(error * 1000) / 10 << "%" << (run.model.moe ? " (MoE)" : "") << "\n";
    const double bound = run.model.moe ? moe_row_bound(run.id) : 0.25;
    CHECK_MESSAGE(std::fabs(error) <= bound, run.id << " is off by " << error * 100 << "%");
  }
  for (const SkippedRun& skipped : set->skipped) table << "  skipped " << skipped.id << ": " << skipped.reason << "\n";
  MESSAGE(table.str());
  return errors;
}

void check_accuracy(const std::filesystem::path& path) {
  CalibrationErrors errors = calibration_errors(path);
  REQUIRE(errors.dense.size() >= 30);
  std::sort(errors.dense.begin(), errors.dense.end());
  const double median = errors.dense[errors.dense.size() / 2];
  MESSAGE("dense rows: median |error| " << median * 100 << "%, max " << errors.dense.back() * 100 << "%");
  CHECK(median <= 0.10);
  CHECK(errors.dense.back() <= 0.25);
  CHECK(!errors.moe.empty());
}

TEST_CASE("calibration: published runs in the project's fixture are predicted within 10% median, 25% max") {
  check_accuracy(test::fixture("published_runs.json"));
}

TEST_CASE("calibration: the team's current published_runs.json, when present") {
  const auto shared = test::shared_file("calibration/published_runs.json");
  if (!shared) return;
  check_accuracy(*shared);
}

TEST_CASE("calibration rows: conventions of each source") {
  auto set = read_calibration_runs(test::file_text(test::fixture("published_runs.json")), "published_runs.json",
                                   fitted_efficiency_constants());
  REQUIRE(set.ok());
  const auto find = [&](const std::string& id) -> const CalibrationRun& {
    const auto it = std::find_if(set->runs.begin(), set->runs.end(), [&](const CalibrationRun& r) { return r.id == id; });
    REQUIRE(it != set->runs.end());
    return *it;
  };
  // Narayanan 2021 Table 2 gives M = t*p = 96 for GPT-3 on 384 GPUs with d = 4: t = 8, p = 12.
  const CalibrationRun& ptdp = find("narayanan2021_t2_PTD-P_174.6B_384gpu");
  CHECK(ptdp.strategy.tp == 8);
  CHECK(ptdp.strategy.pp == 12);
  CHECK(ptdp.metric == PublishedMetric::hardware_tflops_per_gpu);
  CHECK(ptdp.strategy.recompute == Recompute::full);
  // Megatron-LM's own TP linears of 2021 waited on their backward collectives; Transformer
  // Engine's (NeMo's rows) run two of three behind the GEMMs (TimeOptions::tp_backward_async).
  CHECK_FALSE(ptdp.options.tp_backward_async);
  CHECK_FALSE(ptdp.options.tp_comm_overlap);
  // GPT-3 175B: 174.6B parameters as the paper names it (tied embeddings, learned positions).
  CHECK(static_cast<double>(ptdp.model.total_params) == test::approx(174.6e9).epsilon(0.002));
  const CalibrationRun& zero3 = find("narayanan2021_t2_ZeRO-3_174.6B_1536gpu");
  CHECK(zero3.strategy.zero == ZeroStage::zero3);
  CHECK(zero3.strategy.dp == 1536);
  const CalibrationRun& llama = find("nemo_bridge_25.11_h100_LLAMA3_70B_64gpu_FP8-CS");
  CHECK(llama.strategy.compute_dtype == Dtype::fp8);
  CHECK(llama.metric == PublishedMetric::tokens_per_second_per_gpu);
  CHECK(llama.strategy.vpp == 5);
  CHECK(llama.options.tp_backward_async);
  // Llama 3 70B: 70.6B parameters (Llama 3 paper Table 3 shape, untied head).
  CHECK(static_cast<double>(llama.model.total_params) == test::approx(70.55e9).epsilon(0.005));
  // NeMo's MoE rows name the model without its shape; the preset gives it (30.53B, 128 experts).
  const CalibrationRun& moe = find("nemo_bridge_25.11_h100_Qwen3_30B_a3B_16gpu_FP8-CS");
  REQUIRE(moe.model.moe);
  CHECK(moe.model.moe->num_experts == 128);
  CHECK(moe.model.total_params == 30532122624);
  CHECK(moe.strategy.ep == 8);
  CHECK(moe.strategy.pp == 2);
  CHECK(moe.strategy.dp == 8);  // EP folds into DP: 16 / (TP 1 x PP 2)
  // GPT-OSS-120B names its model without the shape: the gpt-oss-120b preset gives it (36 layers,
  // 128 experts of 2880, top 4, every other layer a 128-token sliding window).
  const CalibrationRun& oss = find("nemo_bridge_25.11_h100_GPT OSS 120B_64gpu_BF16");
  CHECK(oss.model.total_params == 116829156672);
  CHECK(oss.strategy.ep == 8);
  CHECK(oss.strategy.pp == 4);
  // Skipped: the two GPT-3 strong-scaling rows (no shape).
  CHECK(set->skipped.size() == 2);
}

TEST_CASE("calibration rows: malformed files are errors") {
  CHECK_FALSE(read_calibration_runs("{", "bad.json", fitted_efficiency_constants()).ok());
  CHECK_FALSE(read_calibration_runs("{}", "bad.json", fitted_efficiency_constants()).ok());
  CHECK_FALSE(read_calibration_runs("[1]", "bad.json", fitted_efficiency_constants()).ok());
  auto set = read_calibration_runs(R"([{"id": "narayanan2021_x", "arch": {}}])", "x.json", fitted_efficiency_constants());
  REQUIRE(set.ok());
  CHECK(set->runs.empty());
  REQUIRE(set->skipped.size() == 1);
  CHECK(set->skipped[0].reason == "model shape not published");
}

}  // namespace
}  // namespace meshplan
