// The planner's speed target (issue 7): a full RL plan for DeepSeek-V3 on 2048 H100 and for
// Qwen3-235B-A22B on 256 H200, each well under a second on one core. Reports candidates/s.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>

#include "cli/cluster_input.hpp"
#include "cli/model_input.hpp"
#include "search/real_cost_model.hpp"
#include "search/rule_binding.hpp"
#include "search/search.hpp"

namespace meshplan {
namespace {

template <class T>
T value_or_exit(Result<T> result) {
  if (!result) {
    std::cerr << result.error().to_string() << "\n";
    std::exit(2);
  }
  return std::move(result).value();
}

// A GRPO step in the style of verl's large-MoE examples: 512 prompts x 8 responses,
// 2k prompt + 4k response, mini-batch 128.
Workload rl_workload() {
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 512;
  workload.rl.n = 8;
  workload.rl.prompt_len = 2048;
  workload.rl.response_len = 4096;
  workload.seq_len = workload.rl.prompt_len + workload.rl.response_len;
  workload.rl.ppo_mini_batch = 128;
  return workload;
}

void full_rl_plan(benchmark::State& state, const char* model_name, const char* cluster_spec) {
  const ModelSpec model = value_or_exit(load_model_argument(model_name));
  const auto catalog = value_or_exit(load_gpu_catalog_argument(""));
  const Cluster cluster = value_or_exit(load_cluster_argument(cluster_spec, catalog));
  const Workload workload = rl_workload();
  const SearchSpace space = value_or_exit(build_search_space(model, cluster, workload, SpaceOptions{}));
  const CostModel cost = real_cost_model(model, cluster, MemoryOptions{}, TimeOptions{});
  const RuleCheck check = validate_rule_check(model, cluster);
  std::int64_t searched = 0;
  std::int64_t feasible = 0;
  for (auto _ : state) {
    const SearchResult result = search_plans(model, space, workload, cost, check, SearchOptions{});
    searched += result.searched;
    feasible = result.feasible;
    benchmark::DoNotOptimize(result.top.data());
  }
  state.counters["candidates_per_second"] = benchmark::Counter(static_cast<double>(searched), benchmark::Counter::kIsRate);
  state.counters["candidates"] = static_cast<double>(searched) / static_cast<double>(state.iterations());
  state.counters["feasible"] = static_cast<double>(feasible);
}

BENCHMARK_CAPTURE(full_rl_plan, deepseek_v3_2048xH100, "deepseek-v3", "256x8xH100-80GB")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(full_rl_plan, qwen3_235b_a22b_256xH200, "qwen3-235b-a22b", "32x8xH200-141GB")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan

BENCHMARK_MAIN();
