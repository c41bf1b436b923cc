#include <doctest/doctest.h>

#include "report/plan_report.hpp"
#include "search/explain.hpp"
#include "search/layout.hpp"
#include "../search/search_test_support.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Two nodes of 8: TP=16 crosses nodes. Time: 32 GPU-seconds of compute over the GPUs, TP
// comm 0.1 s per TP within a node and 1 s per TP across nodes, 0.5 s of bubble per extra stage.
SearchResult two_node_result(Objective objective) {
  static const ModelSpec model = test::toy_model(32, 32);
  static const Cluster cluster = test::toy_cluster(2, 8, 80);
  Workload workload;
  workload.global_batch = 64;
  SpaceOptions space_options;
  space_options.allow_cross_node_tp = true;
  space_options.fixes = *parse_fixes("vpp=1,cp=1,mb=1,recompute=none,offload=none,dp=1");
  const SearchSpace space = *build_search_space(model, cluster, workload, space_options);
  CostModel cost;
  cost.capacity_bytes = 80 * kGiB;
  cost.memory = [](const Strategy& s, const Workload&) {
    PlanMemory m;
    m.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] = 320.0 / (s.tp * s.pp) * kGiB;
    return m;
  };
  cost.time = [](const Strategy& s, const Workload&) {
    PlanTime t;
    t.seconds[static_cast<std::size_t>(TimeComponent::compute)] = 32.0 / s.world_size();
    t.seconds[static_cast<std::size_t>(TimeComponent::tp_comm)] = s.tp > 8 ? 1.0 * s.tp / 8 : 0.1 * s.tp / 8;
    t.seconds[static_cast<std::size_t>(TimeComponent::pp_bubble)] = 0.05 * (s.pp - 1);
    return t;
  };
  SearchOptions options;
  options.objective = objective;
  return search_plans(model, space, workload, cost, test::toy_rules(model), options);
}

PlanView toy_view(const SearchResult& result, const std::string& model_name) {
  PlanView view;
  view.model_name = model_name;
  view.cluster_text = "2x8xTOY";
  view.workload_name = "pretrain";
  view.objective_name = "throughput";
  view.capacity_bytes = 80 * kGiB;
  view.result = &result;
  view.top_memory.push_back({PhaseBreakdown{"train", 20 * kGiB, {{"weights", 5 * kGiB}, {"activations", 15 * kGiB}}}});
  return view;
}

}  // namespace

TEST_CASE("explanation: PP=2 instead of TP=16 because TP would cross nodes") {
  // dp=1 on 16 GPUs: (tp, pp) in (1,16) (2,8) (4,4) (8,2) (16,1); 320/(tp*pp) = 20 GiB each: all fit.
  // Step = 2 s compute + TP comm + bubble: (8,2): 2 + 0.1 + 0.05 = 2.15 s;
  // (16,1): 2 + 2.0 + 0 = 4.0 s (+86%); (4,4): 2 + 0.05 + 0.15 = 2.2 s.
  const SearchResult result = two_node_result(Objective::throughput);
  REQUIRE(!result.top.empty());
  CHECK(result.top[0].strategy.tp == 8);
  CHECK(result.top[0].strategy.pp == 2);
  const Explanation explanation = explain_winner(result, test::toy_model(32, 32), test::toy_cluster(2, 8, 80),
                                                 Objective::throughput);
  const Comparison* tp = nullptr;
  for (const Comparison& c : explanation.comparisons) {
    if (c.other_setting == "TP=16, PP=1") tp = &c;
  }
  // Up to three other values per dimension are compared: TP=4 (4,4), TP=2 (2,8), TP=16 (16,1).
  REQUIRE(tp != nullptr);
  CHECK(tp->step_time_change == doctest::Approx(4.0 / 2.15 - 1));
  CHECK(tp->cause == TimeComponent::tp_comm);
  CHECK(tp->sentence.find("TP=8, PP=2 instead of TP=16, PP=1 because TP all-reduce would cross nodes: +86% step time") == 0);
  CHECK(explanation.rule_of_thumb.find("rule of thumb") == 0);
}

TEST_CASE("HTML report: one self-contained page with the three charts") {
  const SearchResult result = two_node_result(Objective::throughput);
  const PlanView view = toy_view(result, "toy <model>");
  const std::string html = render_plan_html(view);
  CHECK(html.rfind("<!DOCTYPE html>\n<html", 0) == 0);
  CHECK(html.find("</html>") != std::string::npos);
  for (const char* id : {"id=\"memory-chart\"", "id=\"time-chart\"", "id=\"pareto-chart\"", "id=\"top-plans\"",
                         "class=\"frontier\"", "class=\"winner\""}) {
    CHECK_MESSAGE(html.find(id) != std::string::npos, id);
  }
  CHECK(html.find("toy &lt;model&gt;") != std::string::npos);  // escaped
  // Self-contained: no scripts, no external resources.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  // Every <svg> is closed.
  std::size_t opened = 0, closed = 0;
  for (std::size_t at = 0; (at = html.find("<svg", at)) != std::string::npos; ++at) ++opened;
  for (std::size_t at = 0; (at = html.find("</svg>", at)) != std::string::npos; ++at) ++closed;
  CHECK(opened == 3);
  CHECK(closed == 3);
}

TEST_CASE("terminal report: aligned table, no colour unless asked") {
  const SearchResult result = two_node_result(Objective::throughput);
  const PlanView view = toy_view(result, "toy");
  const std::string plain = render_plan_text(view, false);
  CHECK(plain.find("searched 5 candidates") != std::string::npos);
  CHECK(plain.find("\033[") == std::string::npos);
  CHECK(plain.find("Pareto frontier") != std::string::npos);
  CHECK(render_plan_text(view, true).find("\033[") != std::string::npos);
}

}  // namespace meshplan
