#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "cost/time/step_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "report/time_report.hpp"

namespace meshplan {
namespace {

TimeEstimate sample_estimate() {
  TimeEstimate estimate;
  estimate.add_phase("timing_s/gen", 30.0);
  estimate.add_phase("timing_s/update_actor", 10.0);
  estimate.step_seconds = 40.0;
  estimate.breakdown.rollout = 30.0;
  estimate.breakdown.compute = 8.0;
  estimate.breakdown.dp_comm_exposed = 2.0;
  estimate.tokens_per_second_per_gpu = 1234;
  estimate.model_tflops_per_gpu = 100;
  estimate.mfu = 0.32;
  estimate.comm_fraction = 0.05;
  estimate.actor_update_mfu = 0.4;
  return estimate;
}

TEST_CASE("time JSON has the fields of issue 4 under their names") {
  const nlohmann::json json = time_to_json(sample_estimate());
  CHECK(json["step_seconds"] == 40.0);
  REQUIRE(json["phases"].size() == 2);
  CHECK(json["phases"][0]["name"] == "timing_s/gen");
  CHECK(json["phases"][1]["seconds"] == 10.0);
  for (const char* key : {"compute", "tp_comm", "pp_bubble", "pp_comm", "dp_comm_exposed", "cp_comm", "ep_comm", "offload"}) {
    CHECK(json["breakdown"].contains(key));
  }
  CHECK(json["breakdown"]["dp_comm_exposed"] == 2.0);
  for (const char* key : {"tokens_per_second_per_gpu", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "comm_fraction"}) {
    CHECK(json.contains(key));
  }
}

TEST_CASE("time text lists phases, the share of each part and the throughput") {
  const std::string text = render_time_text(sample_estimate());
  CHECK(text.find("timing_s/gen") != std::string::npos);
  CHECK(text.find("75.0%") != std::string::npos);  // rollout 30 of 40 s
  CHECK(text.find("MFU 32.0%") != std::string::npos);
  CHECK(text.find("tp_comm") == std::string::npos);  // zero parts are left out of the text
}

TEST_CASE("explain prints every time term with formula and inputs") {
  Cluster cluster;
  cluster.groups.push_back(test::a100_node());
  Workload workload;
  workload.seq_len = 1024;
  workload.global_batch = 8;
  Trace trace;
  estimate_time(test::tiny_gpt(), cluster, Strategy{}, workload, TimeOptions{}, &trace);
  const std::string text = render_time_explain(trace);
  CHECK(text.find("time/compute/dense_gemm") != std::string::npos);
  CHECK(text.find("inputs: flops/token=") != std::string::npos);
  CHECK(text.find("source: Narayanan") != std::string::npos);
}

TEST_CASE("verl console metrics: means after the warm-up step, compared side by side") {
  const std::string log =
      "(TaskRunner pid=1) some other line\n"
      "step:1 - timing_s/gen:99.0 - timing_s/update_actor:50 - perf/mfu/actor:0.1 - perf/max_memory_allocated_gb:60.5\n"
      "step:2 - timing_s/gen:32.0 - timing_s/update_actor:11 - perf/mfu/actor:0.38 - response_length/mean:900.1\n"
      "(TaskRunner pid=1) step:3 - timing_s/gen:28.0 - timing_s/update_actor:5 - perf/mfu/actor:np.float64(0.42)\n";
  auto metrics = parse_verl_metrics(log, "run.log");
  REQUIRE(metrics.ok());
  CHECK(metrics->steps == 3);
  CHECK(metrics->steps_used == 2);
  CHECK(metrics->mean.at("timing_s/gen") == test::approx(30.0));
  CHECK(metrics->mean.at("perf/mfu/actor") == test::approx(0.40));
  CHECK(metrics->mean.count("perf/max_memory_allocated_gb") == 0);  // only logged at warm-up
  const std::string table = render_measured_comparison(sample_estimate(), *metrics, 58.0);
  CHECK(table.find("timing_s/gen") != std::string::npos);
  CHECK(table.find("+0%") != std::string::npos);  // gen: 30 predicted, 30 measured
  CHECK(table.find("+25%") != std::string::npos);  // update_actor: 10 predicted vs (11+5)/2

  auto bad = parse_verl_metrics("step:1 - timing_s/gen:abc - x:1\n", "bad.log");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string() == "bad.log:1: timing_s/gen: 'abc' is not a number");
  CHECK_FALSE(parse_verl_metrics("nothing here\n", "empty.log").ok());
}

}  // namespace
}  // namespace meshplan
