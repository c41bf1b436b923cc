// Training rows the fit has not seen: every pre-training row of Megatron-Bridge's performance
// summaries (NeMo containers 25.11-26.08 on H100, B200, B300, GB200, GB300) that the model can be
// asked about, except the 25.11 H100 rows the fit uses (tests/fixtures/published_runs_nemo_archive.json,
// written by tools/extract_nemo_perf_rows.py; docs/accuracy.md "Held-out training rows"), each with
// its recipe's recomputation, sharding, offloading, pipeline layout, EP all-to-all overlap, CUDA
// graphs and TP overlap (tests/fixtures/nemo_recipe_settings.json).
// The groups' figures are what the model reaches today, not the targets (median <= 5%, max <= 20%),
// which only the H100 dense rows meet.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "cost/calibration/calibration_runs.hpp"
#include "cost/calibration/megatron_settings.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "cost/time/host_cpu_sensitivity.hpp"
#include "recipe_settings.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

// Each group's figures are what estimate and plan print as the accuracy of a time of that kind
// (cost/calibration/time_accuracy.cpp); they are checked here to the 0.1 point they are printed
// with, so a change that moves any group, for better or worse, fails until the table and
// docs/accuracy-held-out-training.md say so. Session 13: the two GPT-OSS-120B rows of 26.06.01, which
// the summary itself marks as a known performance regression of that container (its footnote
// "gpt-oss-note": cudnn-frontend#256, a 10x slower MoE grouped-GEMM dGLU kernel), are listed but not
// counted: with them Blackwell MoE is 24.3% / 187.8%. Earlier figures: docs/accuracy-held-out-training.md.
constexpr const char* kGroups[] = {"dense-training-hopper", "dense-training-blackwell", "moe-training-hopper",
                                   "moe-training-blackwell"};

std::string group_of(const CalibrationRun& run, const Strategy& strategy) {
  const auto group = time_accuracy_for(run.model, run.cluster.groups.front().gpu, strategy, run.workload, 0.0).group;
  REQUIRE_MESSAGE(group.has_value(), run.id);
  return std::string(group->id);
}

// A part of a group's rows (a family, a GPU type, the host-bound rows) against the figures
// time_accuracy.cpp lists for it: |error| and the step time's signed error, median and max.
template <class Subset>
void check_subset(std::ostringstream& table, const std::string& label, std::vector<double> values,
                  std::vector<double> time_errors, const Subset& expected) {
  REQUIRE_MESSAGE(!values.empty(), label);
  std::sort(values.begin(), values.end());
  std::sort(time_errors.begin(), time_errors.end());
  const double median = values[values.size() / 2];
  const double median_time = time_errors[time_errors.size() / 2];
  table << label << ": " << values.size() << " rows, median |error| " << std::round(median * 1000) / 10 << "%, max "
        << std::round(values.back() * 1000) / 10 << "%, median time error " << std::round(median_time * 1000) / 10
        << "%\n";
  CHECK_MESSAGE(values.size() == static_cast<std::size_t>(expected.runs), label);
  CHECK_MESSAGE(std::fabs(median - expected.median_abs_error) <= 5.0001e-4, label);
  CHECK_MESSAGE(std::fabs(values.back() - expected.max_abs_error) <= 5.0001e-4, label);
  CHECK_MESSAGE(std::fabs(median_time - expected.median_time_error) <= 5.0001e-4, label);
}

using ErrorsByKey = std::map<std::pair<std::string, std::string>, std::vector<double>>;

// Every (group, key) of a group that holds more than one key is listed, with the figures its rows give.
template <class Subset, class KeyOf>
void check_listed(std::ostringstream& table, const ErrorsByKey& errors, const ErrorsByKey& time_errors,
                  std::span<const Subset> listed, KeyOf key_of) {
  std::map<std::string, int> keys_per_group;
  for (const auto& entry : errors) ++keys_per_group[entry.first.first];
  std::size_t count = 0;
  for (const auto& [key, values] : errors) {
    if (keys_per_group[key.first] < 2) continue;
    ++count;
    const auto it = std::find_if(listed.begin(), listed.end(), [&key, &key_of](const Subset& subset) {
      return subset.group_id == key.first && key_of(subset) == key.second;
    });
    REQUIRE_MESSAGE(it != listed.end(), key.first << " " << key.second);
    check_subset(table, key.first + " " + key.second, values, time_errors.at(key), *it);
  }
  CHECK(count == listed.size());
}

TEST_CASE("held-out training rows: Megatron-Bridge's performance summaries beyond the fit's 25.11 H100 rows") {
  const auto path = test::fixture("published_runs_nemo_archive.json");
  auto set = read_calibration_runs(test::file_text(path), path.string(), fitted_efficiency_constants());
  REQUIRE(set.ok());
  CHECK(set->skipped.empty());
  std::map<std::string, std::vector<double>> errors;
  // By group and model family (config.json model_type): |error| and the step time's signed error.
  ErrorsByKey family_errors, family_time_errors;
  // By group, the runs the model has host-bound (moe_host_wait over the subset's share of the step):
  // |error| and the step time's signed error; and each group's smallest share.
  std::map<std::string, std::vector<double>> host_bound_errors, host_bound_time_errors, others_errors;
  std::map<std::string, double> smallest_share;
  // By group and compute precision ("fp4"): |error| and the step time's signed error.
  ErrorsByKey precision_errors, precision_time_errors;
  // By group and GPU type (catalog id): |error| and the step time's signed error.
  ErrorsByKey gpu_errors, gpu_time_errors;
  std::ostringstream table;
  table << "| run | published tokens/s/GPU | predicted | error |\n|---|---|---|---|\n";
  const nlohmann::json recipes =
      nlohmann::json::parse(test::file_text(test::fixture("nemo_recipe_settings.json")))["rows"];
  std::map<std::string, std::string> known_regressions;  // the summary's own footnote, by row id
  for (const nlohmann::json& row : nlohmann::json::parse(test::file_text(path))) {
    if (row.contains("known_regression")) known_regressions[row["id"]] = row["known_regression"];
  }
  CHECK(known_regressions.size() == 2);
  // The runs on a part whose host CPU the catalog times apart (Grace: GB200, GB300) and whose MoE
  // layers launch from the host: those whose measurement lies between the estimate and the estimate
  // at the host's per-op ratio (host_cpu_sensitivity.hpp), the slack either side, and those slower
  // than both (time_accuracy.cpp time_accuracy_host_cpu).
  const TimeAccuracyHostCpu host_cpu = time_accuracy_host_cpu();
  int host_cpu_runs = 0;
  int host_cpu_between = 0;
  int host_cpu_slower = 0;
  for (const CalibrationRun& run : set->runs) {
    Strategy strategy = run.strategy;
    TimeOptions options = run.options;
    // The recipe's recomputation (full, or Megatron-core recompute_modules) costs forward time,
    // its activation offloading the copies its layers cannot hide.
    // Only where a preset gives the table's layout: the release's own, or the first later commit's
    // that does (docs/nemo-recipe-settings.md section 4: 27 rows differ from their release's preset,
    // 8 of them match a later commit's).
    const std::optional<nlohmann::json> settings =
        recipes.contains(run.id) ? test::recipe_settings_of_table_layout(recipes[run.id]) : std::nullopt;
    if (settings) {
      test::apply_recipe_recompute(*settings, strategy);
      test::apply_recipe_sharding_and_offload(*settings, strategy);
      test::apply_recipe_pipeline_layout(*settings, strategy);
      test::apply_recipe_a2a_overlap(*settings, strategy);  // overlap_moe_expert_parallel_comm
      test::apply_recipe_dispatcher(*settings, strategy);   // moe_token_dispatcher_type
      test::apply_recipe_cuda_graphs(*settings, strategy);  // cuda_graph_impl, cuda_graph_scope
      test::apply_recipe_mtp(*settings, strategy);          // mtp_num_layers
      test::apply_recipe_kernels(*settings, strategy);  // op fuser, fp8 recipe and attention
      // userbuffers TP overlap only where Megatron-Bridge turned it on (tp_comm_overlap_effective)
      options.tp_comm_overlap = megatron_tp_comm_overlap(*settings, strategy).value_or(options.tp_comm_overlap);
    }
    const TimeEstimate estimate = estimate_time(run.model, run.cluster, strategy, run.workload, options, nullptr);
    // Every part of the step is a duration, none below 0 (a layout that lightens the last pipeline
    // stage for the output layer once showed as a negative bubble: DeepSeek-V3's 26.06+ recipes).
    const TimeBreakdown& parts = estimate.breakdown;
    for (const double part : {parts.compute, parts.moe_host_wait, parts.tp_comm, parts.pp_bubble, parts.pp_comm,
                              parts.dp_comm_exposed, parts.cp_comm, parts.ep_comm, parts.offload, parts.rollout}) {
      CHECK_MESSAGE(part >= 0.0, run.id);
    }
    const double predicted = predicted_metric(run, estimate);
    const double error = predicted / run.published - 1.0;
    const bool regression = known_regressions.contains(run.id);
    if (const auto host = host_cpu_sensitivity(run.model, run.cluster, strategy, run.workload, options); host && !regression) {
      const double at_ratio = predicted * estimate.step_seconds / host->step_seconds;  // throughput: tokens over time
      ++host_cpu_runs;
      if (run.published < (1.0 - host_cpu.slack) * std::min(predicted, at_ratio)) {
        ++host_cpu_slower;
      } else if (run.published <= (1.0 + host_cpu.slack) * std::max(predicted, at_ratio)) {
        ++host_cpu_between;
      }
    }
    if (!regression) {
      const std::string group = group_of(run, strategy);
      errors[group].push_back(std::fabs(error));
      family_errors[{group, run.model.model_type}].push_back(std::fabs(error));
      // Throughput is tokens over time: the predicted time is measured / (1 + error).
      family_time_errors[{group, run.model.model_type}].push_back(1.0 / (1.0 + error) - 1.0);
      gpu_errors[{group, run.cluster.groups.front().gpu.id}].push_back(std::fabs(error));
      gpu_time_errors[{group, run.cluster.groups.front().gpu.id}].push_back(1.0 / (1.0 + error) - 1.0);
      const std::string precision(compute_dtype_name(strategy.compute_dtype));
      precision_errors[{group, precision}].push_back(std::fabs(error));
      precision_time_errors[{group, precision}].push_back(1.0 / (1.0 + error) - 1.0);
      const double share = estimate.moe_host_wait_share();
      smallest_share[group] = smallest_share.contains(group) ? std::min(smallest_share[group], share) : share;
      for (const TimeAccuracyHostBound& subset : time_accuracy_host_bound()) {
        if (subset.group_id != group) continue;
        if (share <= subset.min_share) {
          others_errors[group].push_back(std::fabs(error));  // printed beside (docs/accuracy-held-out-training.md)
          continue;
        }
        host_bound_errors[group].push_back(std::fabs(error));
        host_bound_time_errors[group].push_back(1.0 / (1.0 + error) - 1.0);
      }
    }
    table << "| " << run.id << (regression ? " (known regression, not counted)" : "") << " | " << run.published
          << " | " << std::round(predicted) << " | " << std::round(error * 1000) / 10 << "% |\n";
  }
  for (const SkippedRun& skipped : set->skipped) table << "skipped " << skipped.id << ": " << skipped.reason << "\n";
  for (const char* id : kGroups) {
    const auto group = time_accuracy_group(id);
    REQUIRE(group.has_value());
    std::vector<double>& values = errors[id];
    REQUIRE(!values.empty());
    std::sort(values.begin(), values.end());
    const double median = values[values.size() / 2];
    table << id << ": " << values.size() << " rows, median |error| " << std::round(median * 1000) / 10 << "%, max "
          << std::round(values.back() * 1000) / 10 << "%\n";
    CHECK_MESSAGE(values.size() == static_cast<std::size_t>(group->runs), id);
    CHECK_MESSAGE(std::fabs(median - group->median_abs_error) <= 5.0001e-4, id << " median " << median * 100 << "%");
    CHECK_MESSAGE(std::fabs(values.back() - group->max_abs_error) <= 5.0001e-4, id << " max " << values.back() * 100 << "%");
  }
  // Every family and every GPU type of a group that holds more than one is listed
  // (time_accuracy.cpp kFamilies, kGpus), with the figures its rows give.
  check_listed(table, family_errors, family_time_errors, time_accuracy_families(),
               [](const TimeAccuracyFamily& family) { return family.model_type; });
  check_listed(table, gpu_errors, gpu_time_errors, time_accuracy_gpus(), [](const TimeAccuracyGpu& gpu) { return gpu.gpu_id; });
  // The host-bound rows of each group that lists them; every held-out H100 MoE row is host-bound
  // (the group's figures are theirs), so Hopper lists none.
  for (const TimeAccuracyHostBound& subset : time_accuracy_host_bound()) {
    const std::string group(subset.group_id);
    check_subset(table, group + " host-bound (moe_host_wait over " + std::to_string(std::lround(subset.min_share * 100)) + "% of the step)",
                 host_bound_errors[group], host_bound_time_errors[group], subset);
    std::vector<double>& others = others_errors[group];
    std::sort(others.begin(), others.end());
    if (!others.empty()) {
      table << "  the other " << others.size() << " rows: median |error| " << std::round(others[others.size() / 2] * 1000) / 10
            << "%, max " << std::round(others.back() * 1000) / 10 << "%\n";
    }
  }
  CHECK(smallest_share["moe-training-hopper"] > time_accuracy_host_bound().front().min_share);
  table << "launched from Grace, not graphed whole: " << host_cpu_runs << " rows, " << host_cpu_between
        << " between the estimate and the estimate at the host's per-op ratio, " << host_cpu_slower << " slower\n";
  CHECK(host_cpu_runs == host_cpu.runs);
  CHECK(host_cpu_between == host_cpu.between);
  CHECK(host_cpu_slower == host_cpu.slower);
  // The precisions listed apart (time_accuracy.cpp kPrecisions): NVFP4's runs.
  for (const TimeAccuracyPrecision& subset : time_accuracy_precisions()) {
    const std::pair<std::string, std::string> key{std::string(subset.group_id), std::string(subset.compute_dtype)};
    check_subset(table, key.first + " " + key.second, precision_errors[key], precision_time_errors[key], subset);
  }
  MESSAGE(table.str());
}

}  // namespace
}  // namespace meshplan
