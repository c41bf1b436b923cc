// Estimates per second of estimate_memory (target: > 1 million per second per core for a dense
// model in the training case, so that the planner's search is cheap). Trace is null.
#include <benchmark/benchmark.h>

#include "cost/memory/memory_estimate.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace {

using namespace meshplan;

// Qwen2.5-7B from the embedded preset: the same reader users go through.
ModelSpec dense_7b() {
  return parse_model_config(*find_model_preset_config("qwen2.5-7b-instruct"), "qwen2.5-7b-instruct").value();
}

Cluster a100_cluster() {
  Cluster c;
  NodeGroup g;
  g.nodes = 4;
  g.gpus_per_node = 8;
  g.gpu.memory_bytes = 85899345920;
  c.groups.push_back(g);
  return c;
}

void BM_TrainingEstimateDense(benchmark::State& state) {
  const ModelSpec model = dense_7b();
  const Cluster cluster = a100_cluster();
  Strategy s;
  s.tp = 2;
  s.pp = 2;
  s.dp = 8;
  s.sequence_parallel = true;
  s.recompute = Recompute::selective;
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 256;
  const MemoryOptions options;
  int micro = 1;
  for (auto _ : state) {
    s.micro_batch = micro;
    micro = micro % 4 + 1;  // vary an input so the call is not hoisted
    const MemoryEstimate e = estimate_memory(model, cluster, s, w, options, nullptr);
    benchmark::DoNotOptimize(e.peak_bytes);
  }
  state.counters["estimates_per_second"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrainingEstimateDense);

void BM_RlEstimateDense(benchmark::State& state) {
  const ModelSpec model = dense_7b();
  const Cluster cluster = a100_cluster();
  Strategy s;
  s.backend = Backend::fsdp;
  s.dp = 32;
  s.zero = ZeroStage::zero3;
  s.recompute = Recompute::full;
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 1024;
  w.rl.rollout_tp = 2;
  w.rl.n = 5;
  w.rl.ppo_mini_batch = 256;
  w.rl.ppo_micro_batch_per_gpu = 4;
  const MemoryOptions options;
  for (auto _ : state) {
    const MemoryEstimate e = estimate_memory(model, cluster, s, w, options, nullptr);
    benchmark::DoNotOptimize(e.peak_bytes);
  }
  state.counters["estimates_per_second"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RlEstimateDense);

}  // namespace

BENCHMARK_MAIN();
