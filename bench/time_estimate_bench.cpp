// Estimates per second of estimate_time (the planner calls it for every candidate strategy;
// target: well over 1 million per second per core for a dense model). Trace is null, so the
// estimate allocates nothing.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "cost/time/step_time.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace {

using namespace meshplan;

ModelSpec preset(const char* name) {
  auto model = parse_model_config(*find_model_preset_config(name), name);
  if (!model.ok()) std::abort();
  return *model;
}

Cluster cluster(const char* spec) {
  auto result = parse_cluster_spec(spec, builtin_gpu_catalog());
  if (!result.ok()) std::abort();
  return *result;
}

/// Times estimate_time, varying the micro-batch so the call is not hoisted out of the loop.
void run_estimates(benchmark::State& state, const ModelSpec& model, const Cluster& cluster, Strategy strategy,
                   const Workload& workload) {
  const TimeOptions options;
  int micro = 1;
  for (auto _ : state) {
    strategy.micro_batch = micro;
    micro = micro % 4 + 1;
    const TimeEstimate e = estimate_time(model, cluster, strategy, workload, options, nullptr);
    benchmark::DoNotOptimize(e.step_seconds);
  }
  state.counters["estimates_per_second"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                              benchmark::Counter::kIsRate);
}

void BM_PretrainStepLlama70B(benchmark::State& state) {
  const ModelSpec model = preset("llama-3.1-70b");
  const Cluster h100 = cluster("64x8xH100-80GB");
  Strategy s;
  s.tp = 8;
  s.pp = 4;
  s.vpp = 5;
  s.dp = 16;
  s.sequence_parallel = true;
  Workload w;
  w.seq_len = 8192;
  w.global_batch = 1024;
  run_estimates(state, model, h100, s, w);
}
BENCHMARK(BM_PretrainStepLlama70B);

void BM_RlStepQwen7B(benchmark::State& state) {
  const ModelSpec model = preset("qwen2.5-7b-instruct");
  const Cluster a100 = cluster("4x8xA100-80GB");
  Strategy s;
  s.tp = 2;
  s.dp = 16;
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 256;
  w.rl.n = 8;
  w.rl.rollout_tp = 2;
  w.rl.ppo_mini_batch = 64;
  w.seq_len = w.rl.prompt_len + w.rl.response_len;
  run_estimates(state, model, a100, s, w);
}
BENCHMARK(BM_RlStepQwen7B);

}  // namespace

BENCHMARK_MAIN();
