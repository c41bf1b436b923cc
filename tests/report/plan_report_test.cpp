#include <doctest/doctest.h>

#include "approx.hpp"
#include "report/plan_report.hpp"
#include "search/explain.hpp"
#include "search/layout.hpp"
#include "../search/search_test_support.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Two nodes of 8: TP=16 crosses nodes. Time: 32 GPU-seconds of compute over the GPUs, TP
// comm 0.1 s per TP within a node and 1 s per TP across nodes, 0.5 s of bubble per extra stage.
struct ToySearch {
  ModelSpec model = test::toy_model(32, 32);
  Cluster cluster = test::toy_cluster(2, 8, 80);
  Workload workload;
  SearchSpace space;
  CostModel cost;
  RuleCheck check = test::toy_rules(model);
  SearchResult result;
};

ToySearch two_node_search(Objective objective) {
  ToySearch toy;
  toy.workload.global_batch = 64;
  SpaceOptions space_options;
  space_options.allow_cross_node_tp = true;
  space_options.fixes = *parse_fixes("vpp=1,cp=1,mb=1,recompute=none,offload=none,dp=1");
  toy.space = *build_search_space(toy.model, toy.cluster, toy.workload, space_options);
  toy.cost.capacity_bytes = 80 * kGiB;
  toy.cost.memory = [](const Strategy& s, const Workload&) {
    PlanMemory m;
    m.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] = 320.0 / (s.tp * s.pp) * kGiB;
    return m;
  };
  toy.cost.time = [](const Strategy& s, const Workload&, const PlanMemory&) {
    PlanTime t;
    t.seconds[static_cast<std::size_t>(TimeComponent::compute)] = 32.0 / s.world_size();
    t.seconds[static_cast<std::size_t>(TimeComponent::tp_comm)] = s.tp > 8 ? 1.0 * s.tp / 8 : 0.1 * s.tp / 8;
    t.seconds[static_cast<std::size_t>(TimeComponent::pp_bubble)] = 0.05 * (s.pp - 1);
    return t;
  };
  SearchOptions options;
  options.objective = objective;
  toy.result = search_plans(toy.model, toy.space, toy.workload, toy.cost, toy.check, options);
  return toy;
}

SearchResult two_node_result(Objective objective) { return two_node_search(objective).result; }

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

TEST_CASE("explanation: TP=8 x PP=2 against one change at a time, TP=16 would cross nodes") {
  // dp=1 pinned on 16 GPUs, so a TP change is compensated by PP: (tp, pp) in (1,16) (2,8) (4,4)
  // (8,2) (16,1); 320/(tp*pp) = 20 GiB each: all fit. Step = 2 s compute + TP comm + bubble:
  // (8,2): 2 + 0.1 + 0.05 = 2.15 s (the winner); (4,4): 2 + 0.05 + 0.15 = 2.2 s (+2.3%, bubble
  // +0.10 s); (16,1): 2 + 2.0 + 0 = 4.0 s (+86%, TP comm +1.90 s across nodes); (2,8) 2.375 s and
  // (1,16) 2.76 s lose to (4,4) on the smaller side.
  const ToySearch toy = two_node_search(Objective::throughput);
  const SearchResult& result = toy.result;
  REQUIRE(!result.top.empty());
  CHECK(result.top[0].strategy.tp == 8);
  CHECK(result.top[0].strategy.pp == 2);
  const NeighbourSearch neighbours{toy.space, toy.cost, toy.check, result.usable_bytes, toy.model.num_layers};
  const Explanation explanation = explain_winner(result, toy.model, toy.cluster, Objective::throughput, neighbours);
  const Comparison* tp = nullptr;
  for (const Comparison& c : explanation.comparisons) {
    if (c.dimension == Dimension::tp) tp = &c;
  }
  REQUIRE(tp != nullptr);
  REQUIRE(tp->versus.size() == 2);
  CHECK(tp->versus[0].other_setting == "TP=4, PP=4");
  CHECK(tp->versus[0].step_time_change == test::approx(2.2 / 2.15 - 1));
  CHECK(tp->versus[0].cause == TimeComponent::pp_bubble);
  CHECK(tp->versus[1].other_setting == "TP=16, PP=1");
  CHECK(tp->versus[1].step_time_change == test::approx(4.0 / 2.15 - 1));
  CHECK(tp->versus[1].cause == TimeComponent::tp_comm);
  CHECK(tp->versus[1].cause_seconds == test::approx(1.9));
  CHECK(tp->sentence ==
        "TP=8, PP=2 rather than TP=4, PP=4: the pipeline bubble (p-1)/(v*m) grows, +2% step time (+0.10 s of "
        "pp_bubble); TP=8, PP=2 rather than TP=16, PP=1: TP all-reduce would cross nodes, +86% step time (+1.90 s of "
        "tp_comm)");
  // The TP line weighs most (+86%), so it comes first; PP's alternatives are the same plans.
  CHECK(explanation.comparisons.front().dimension == Dimension::tp);
  CHECK(explanation.rule_of_thumb.find("rule of thumb") == 0);
}

TEST_CASE("explanation: a choice where no other value fits names the misses") {
  // The toy search's winner (8,2); then a memory model where it needs 20 GiB and every other
  // layout 100 GiB: with 72 GiB usable no TP or PP change fits, and the explanation names the
  // misses instead of comparing times.
  ToySearch toy = two_node_search(Objective::throughput);
  toy.cost.memory = [](const Strategy& s, const Workload&) {
    PlanMemory m;  // the winner (8,2) needs 20 GiB; any other layout 100 GiB
    m.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] = (s.tp == 8 && s.pp == 2 ? 20.0 : 100.0) * kGiB;
    return m;
  };
  const NeighbourSearch neighbours{toy.space, toy.cost, toy.check, 72 * kGiB, toy.model.num_layers};
  const Explanation explanation =
      explain_winner(toy.result, toy.model, toy.cluster, Objective::throughput, neighbours);
  REQUIRE(!explanation.comparisons.empty());
  const Comparison& first = explanation.comparisons.front();
  CHECK(first.versus.empty());
  CHECK(first.sentence.find("no other value fits in 72.0 GiB: (") != std::string::npos);
  CHECK(first.sentence.find("100.0 GiB in update") != std::string::npos);
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
