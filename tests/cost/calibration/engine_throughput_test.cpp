// The rollout model on an engine-only measurement: vLLM's offline benchmark, no RL around it.
// vllm-project/vllm#7117 (2024-08-04, maintainer comment): "On H100: python
// benchmarks/benchmark_throughput.py --input-len 256 --output-len 256 --model
// meta-llama/Meta-Llama-3-8B" -> "Throughput: 24.52 requests/s, 12555.73 tokens/s". The script's
// defaults then: 1000 prompts, gpu_memory_utilization 0.9, max_num_seqs 256, CUDA graphs (V0
// engine). 1000 requests / 24.52 per s = 40.78 s of prefill and decode. Llama-3-8B has the shape of
// the llama-3.1-8b preset. Not in any fit (the RL constants are fit on NeMo RL's steps). The V0
// engine of then ran its host work between steps (async output processing came with v0.6.0, async
// scheduling by default with v0.14.0): --no-async-scheduling.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("vLLM offline throughput, Llama-3-8B on one H100, 1000 x (256 in, 256 out): 40.8 s measured") {
  const test::CliRun run = test::run(
      {"estimate", "--model", "llama-3.1-8b", "--cluster", "1x1xH100", "--workload", "rl", "--fsdp", "--global-batch",
       "1000", "--rollout-n", "1", "--prompt-len", "256", "--response-len", "256", "--mean-prompt-len", "256",
       "--mean-response-len", "256", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "256", "--no-async-scheduling",
       "--explain", "--json"});
  REQUIRE(run.exit_code != 2);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  double engine_s = 0;
  for (const nlohmann::json& term : json["explain"]) {
    const std::string name = term["name"].get<std::string>();
    if (name == "time/gen/prefill" || name == "time/gen/decode") engine_s += term["value"].get<double>();
  }
  const double measured_s = 1000.0 / 24.52;
  const double error = engine_s / measured_s - 1.0;
  MESSAGE("predicted prefill + decode " << engine_s << " s, measured " << measured_s << " s, error " << error * 100
                                        << "%");
  // docs/accuracy.md "Engine-only": -8.0% when written; -15.9% since session 41, whose refit on
  // NeMo RL's steps (vLLM 0.9-0.17, V1 engines) took the engine's host time a step from 7.5 to 6.0 ms,
  // below what this V0 engine of 2024 spent between steps.
  CHECK(std::fabs(error) <= 0.17);
}

}  // namespace meshplan
