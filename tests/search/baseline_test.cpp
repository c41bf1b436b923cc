// A launch's own layout joins the search space (issue 17 item 2): an uneven first/last stage
// with explicit layer counts, per-item offload with the reference model, and dynamic-batch token
// budgets that are no multiple of the sequence width are all reachable, so the best plan is never
// predicted slower than the launch.
#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"
#include "search/baseline.hpp"
#include "search/search.hpp"
#include "search_test_support.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Time: 1 s per layer of the fullest stage (it paces the pipeline), 3000 / token budget s for the
// update and 30000 / budget s for the log-prob passes, 1 s per offloaded actor item. Memory:
// 1 GiB per layer of the fullest stage + budget / 1000 GiB + 5 GiB of resident reference model.
CostModel toy_rl_cost(std::int64_t layers) {
  CostModel cost;
  cost.capacity_bytes = 100 * kGiB;
  cost.memory = [layers](const Strategy& s, const Workload& w) {
    PlanMemory memory;
    const double stage = static_cast<double>(max_stage_layers(layers, s));
    const double ref = w.rl.ref_param_offload ? 0 : 5;
    memory.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] = (stage + w.rl.ppo_max_token_len_per_gpu / 1000.0 + ref) * kGiB;
    memory.peak_bytes[static_cast<std::size_t>(PlanPhase::log_prob)] =
        (stage + w.rl.log_prob_max_token_len_per_gpu / 1000.0 + ref) * kGiB;
    return memory;
  };
  cost.time = [layers](const Strategy& s, const Workload& w, const PlanMemory&) {
    PlanTime time;
    time.seconds[static_cast<std::size_t>(TimeComponent::compute)] =
        static_cast<double>(max_stage_layers(layers, s)) + 3000.0 / static_cast<double>(w.rl.ppo_max_token_len_per_gpu);
    time.seconds[static_cast<std::size_t>(TimeComponent::log_prob)] =
        30000.0 / static_cast<double>(w.rl.log_prob_max_token_len_per_gpu);
    time.seconds[static_cast<std::size_t>(TimeComponent::offload)] =
        (s.offload.params ? 1 : 0) + (s.offload.grads ? 1 : 0) + (s.offload.optimizer ? 1 : 0);
    return time;
  };
  return cost;
}

// heads % tp and Megatron's stage split (strategy/pipeline_split.hpp) as the only rules.
RuleCheck split_rules(const ModelSpec& model) {
  return [model](const Strategy& s, const Workload&) -> std::string_view {
    if (model.attention.num_heads % s.tp != 0) return "tp.divides-heads";
    if (!stage_layer_counts(model.num_layers, s)) return "pp.divides-layers";
    return "";
  };
}

}  // namespace

TEST_CASE("a launch with an uneven split, per-item offload and odd token budgets is inside the space") {
  // 30 layers on PP=4: the planner's balanced split is 7 + 8 + 8 + 7; the launch gives its first
  // stage 6 and its last 4 (20 left: 10 per middle stage), offloads params and optimizer states and
  // the reference model, and uses token budgets of 20000 (update) and 50000 (log-prob) at a padded
  // width of 3072 (prompt 1024 + response 2048), which are no multiples of it.
  const ModelSpec model = test::toy_model(32, 30);
  const Cluster cluster = test::toy_cluster(1, 8, 100);
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 64;
  workload.rl.prompt_len = 1024;
  workload.rl.response_len = 2048;
  workload.seq_len = 3072;
  workload.rl.use_dynamic_bsz = true;
  workload.rl.ppo_max_token_len_per_gpu = 20000;
  workload.rl.log_prob_max_token_len_per_gpu = 50000;
  Strategy launch;
  launch.tp = 1;
  launch.pp = 4;
  launch.dp = 2;
  launch.first_stage_layers = 6;
  launch.last_stage_layers = 4;
  apply_offload(launch, workload, *parse_offload_choice("params+optimizer+ref"));
  normalize_launch(launch, workload, model);
  CHECK(launch.micro_batch == 6);  // 20000 tokens hold 6 padded sequences of 3072
  CHECK(workload.rl.log_prob_micro_batch_per_gpu == 16);

  SpaceOptions options;
  options.fixes = *parse_fixes("backend=megatron,vpp=1,cp=1,recompute=none,rollout_tp=1,gmu=0.5");
  SearchSpace space = *build_search_space(model, cluster, workload, options);
  const std::vector<std::string> before = outside_space(space, launch, workload, model.num_layers);
  CHECK(std::find(before.begin(), before.end(), "first_stage=6,last_stage=4") != before.end());
  CHECK(std::find(before.begin(), before.end(), "offload=params+optimizer+ref") != before.end());
  CHECK(std::find(before.begin(), before.end(), "ppo_max_token_len_per_gpu=20000") != before.end());
  CHECK(std::find(before.begin(), before.end(), "log_prob_max_token_len_per_gpu=50000") != before.end());

  include_in_space(space, launch, workload, model.num_layers);
  CHECK(outside_space(space, launch, workload, model.num_layers).empty());
  const CostModel cost = toy_rl_cost(model.num_layers);
  const RuleCheck rules = split_rules(model);
  const SearchResult result = search_plans(model, space, workload, cost, rules, SearchOptions{});
  const Baseline baseline = evaluate_baseline(launch, workload, cost, rules, result.usable_bytes);
  REQUIRE(baseline.fits);
  CHECK(baseline.broken_rule.empty());
  // By hand: fullest stage 10 layers -> 10 s + 3000/20000 + 30000/50000 + 2 offloaded items = 12.75 s.
  CHECK(baseline.candidate.step_seconds == test::approx(12.75));
  REQUIRE(!result.top.empty());
  CHECK(result.top.front().step_seconds <= baseline.candidate.step_seconds);
  // The launch itself, pinned in the space, is re-found with the same numbers.
  const SearchResult pinned = search_plans(
      model, [&] {
        SearchSpace only = space;
        only.tp = {1};
        only.pp = {4};
        only.balanced_split = false;
        only.stage_splits = {{6, 4}};
        only.offload = {*parse_offload_choice("params+optimizer+ref")};
        only.ppo_token_budgets = {20000};
        only.log_prob_token_budgets = {50000};
        return only;
      }(),
      workload, cost, rules, SearchOptions{});
  REQUIRE(pinned.top.size() == 1);
  CHECK(pinned.top.front().step_seconds == test::approx(baseline.candidate.step_seconds));
  CHECK(pinned.top.front().peak_bytes == test::approx(baseline.candidate.peak_bytes));
  CHECK(pinned.top.front().workload.rl.ref_param_offload);
  CHECK(pinned.top.front().workload.rl.ppo_max_token_len_per_gpu == 20000);
  CHECK(pinned.top.front().workload.rl.log_prob_max_token_len_per_gpu == 50000);
}

}  // namespace meshplan

namespace meshplan {
namespace {

// A toy dense model on one node of 8 GPUs, the launch at DP 8, and whether `reason` is among what
// puts it outside the space the search builds for it (after include_in_space, when asked).
struct ToyLaunch {
  ModelSpec model = test::toy_model(32, 8);
  Cluster cluster = test::toy_cluster(1, 8, 100);
  Workload workload;
  Strategy launch;
  SearchSpace space;
  ToyLaunch() {
    workload.global_batch = 64;
    workload.seq_len = 1024;
    launch.dp = 8;
    space = *build_search_space(model, cluster, workload, SpaceOptions{});
  }
  bool outside_for(const std::string& reason) const {
    const std::vector<std::string> outside = outside_space(space, launch, workload, model.num_layers);
    return std::find(outside.begin(), outside.end(), reason) != outside.end();
  }
};

TEST_CASE("a launch that keeps the MLP activation input in fp8 is outside the space, which keeps 16 bits") {
  // The search's candidates never set Megatron-core's activation_func_fp8_input_store, so a --from
  // launch with it is not one of them, whatever else it shares.
  ToyLaunch toy;
  toy.launch.activation_func_fp8_input_store = true;
  const std::string reason = "activation_func_fp8_input_store (the search keeps the MLP activation input in 16 bits)";
  CHECK(toy.outside_for(reason));
  include_in_space(toy.space, toy.launch, toy.workload, toy.model.num_layers);
  CHECK(toy.outside_for(reason));
  toy.launch.activation_func_fp8_input_store = false;
  CHECK_FALSE(toy.outside_for(reason));
}

TEST_CASE("a launch that trains in fp8 is outside the space, which plans in the cluster's 16-bit dtype") {
  ToyLaunch toy;
  toy.launch.compute_dtype = Dtype::fp8;
  const std::string reason = "compute dtype fp8 (the search plans in bf16)";
  CHECK(toy.outside_for(reason));
  toy.launch.compute_dtype = Dtype::bf16;
  CHECK_FALSE(toy.outside_for(reason));
}

}  // namespace
}  // namespace meshplan
