// Throughput of `meshplan diagnose`'s scanner on a synthetic verl log: mostly ordinary worker
// output (Ray prefixes with colour codes, vLLM INFO lines, progress bars, warnings, metric lines)
// with a failure every few thousand lines. Target (issue 5): 1 GB in under 10 s (> 100 MB/s).
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "diagnose/log_scanner.hpp"
#include "diagnose/root_cause.hpp"

namespace {

std::string synthetic_log(std::size_t target_bytes) {
  const std::string lines[] = {
      "\x1b[36m(WorkerDict pid=3141, ip=10.0.0.14)\x1b[0m INFO 11-27 17:59:12 [model_runner.py:1115] Loading model "
      "weights took 14.9917 GB",
      "(WorkerDict pid=3142, ip=10.0.0.14) [rank1]:[W1127 18:01:58.120331 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID "
      "0 Rank 1] using GPU 1 to perform barrier as devices used by this process are currently unknown.",
      "Training Progress:  12%|#1        | 3/25 [12:04<1:28:31, 241.43s/it]\rTraining Progress:  16%|#6        | "
      "4/25 [16:05<1:24:30, 241.43s/it]",
      "(TaskRunner pid=2718) step:3 - global_seqlen/min:41337.000 - actor/pg_loss:-0.004 - timing_s/gen:131.204 - "
      "timing_s/old_log_prob:20.113 - timing_s/ref:18.902 - timing_s/update_actor:61.771 - timing_s/step:241.530 - "
      "perf/mfu/actor:0.214 - perf/throughput:1498.221",
      "(WorkerDict pid=3143, ip=10.0.0.14) /usr/lib/python3/dist-packages/torch/distributed/fsdp/_init_utils.py:444: "
      "UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD",
      "(WorkerDict pid=3144, ip=10.0.0.14) Processed prompts:  42%|####2     | 215/512 [00:31<00:43,  6.87it/s, est. "
      "speed input: 1403.91 toks/s, output: 2761.17 toks/s]",
  };
  const std::string failure =
      "(WorkerDict pid=3144, ip=10.0.0.14) [rank3]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
      "9.28 GiB. GPU 3 has a total capacity of 79.11 GiB of which 3.02 GiB is free.";
  std::string log;
  log.reserve(target_bytes + 4096);
  for (std::size_t i = 0; log.size() < target_bytes; ++i) {
    log += (i % 5000 == 4999) ? failure : lines[i % std::size(lines)];
    log += '\n';
  }
  return log;
}

void BM_ScanSyntheticLog(benchmark::State& state) {
  const std::string log = synthetic_log(static_cast<std::size_t>(state.range(0)) << 20);
  for (auto _ : state) {
    std::istringstream in(log);
    meshplan::LogScanner scanner;
    benchmark::DoNotOptimize(scanner.scan(in, "synthetic.log").ok());
    benchmark::DoNotOptimize(meshplan::build_report(scanner.output(), {}).diagnoses.size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(log.size()));
}
BENCHMARK(BM_ScanSyntheticLog)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
