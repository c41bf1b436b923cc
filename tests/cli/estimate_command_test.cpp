// `meshplan estimate`: exit codes (0 fits, 1 OOM, 2 bad input), defaults written out, JSON shape.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

TEST_CASE("estimate: a 7B on 8 x A100-80GB fits (exit 0) and says which defaults it chose") {
  const test::CliRun run = test::run(
      {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--recompute", "full"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("DP derived from the cluster = 8") != std::string::npos);
  CHECK(run.out.find("micro-batch 1 (default)") != std::string::npos);
  CHECK(run.out.find("Phase train") != std::string::npos);
  CHECK(run.out.find("Verdict: fits") != std::string::npos);
}

TEST_CASE("estimate: OOM exits 1 with the phase, rank and shortfall") {
  const test::CliRun run = test::run({"estimate", "--model", "llama-3.1-70b", "--cluster", "1x8xA100-80GB"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("Verdict: OOM by") != std::string::npos);
  CHECK(run.out.find("in phase train on rank 0") != std::string::npos);
}

TEST_CASE("estimate: the same launch OOMs on the 96 GB H20 and fits on the 141 GB H20-3e") {
  // Qwen3-30B-A3B SFT, EP 8, 4k tokens, selective recomputation: 99.97 GiB a GPU, over the 96 GB
  // H20's 94.98 usable GiB and within the H20-3e's 139.50 (H200's memory, the catalog entry).
  const std::vector<std::string> launch = {"--model", "qwen3-30b-a3b", "--workload", "sft", "--ep", "8", "--seq-len",
                                           "4096", "--micro-batch", "1", "--global-batch", "64", "--recompute",
                                           "selective"};
  std::vector<std::string> h20 = {"estimate", "--cluster", "1x8xH20"};
  std::vector<std::string> h20e = {"estimate", "--cluster", "1x8xH20-3e"};
  h20.insert(h20.end(), launch.begin(), launch.end());
  h20e.insert(h20e.end(), launch.begin(), launch.end());
  const test::CliRun small = test::run(h20);
  const test::CliRun large = test::run(h20e);
  CHECK(small.exit_code == 1);
  CHECK(small.out.find("peak 99.97 GiB of 94.98 GiB") != std::string::npos);
  CHECK(large.exit_code == 0);
  CHECK(large.out.find("peak 99.97 GiB in phase train") != std::string::npos);
  CHECK(large.out.find("of 139.50 GiB free") != std::string::npos);
}

TEST_CASE("estimate --json: memory.phases[] with components, peak, capacity, fits") {
  const test::CliRun run = test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100",
                                      "--workload", "rl", "--fsdp", "--rollout-n", "4", "--json"});
  REQUIRE(run.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(run.out);
  const nlohmann::json& memory = j.at("memory");
  CHECK(memory.at("phases").size() == 5);
  CHECK(memory.at("phases")[0].at("name") == "rollout");
  CHECK(memory.at("phases")[0].at("components").contains("kv_cache"));
  CHECK(memory.at("peak_bytes").get<std::int64_t>() > 0);
  CHECK(memory.at("capacity_bytes").get<std::int64_t>() > memory.at("peak_bytes").get<std::int64_t>());
  CHECK(memory.at("fits") == true);
  CHECK(memory.at("rollout").at("concurrent_sequences_per_replica").get<int>() > 0);
  CHECK_FALSE(j.at("defaults_chosen").empty());
}

TEST_CASE("estimate --no-grad-reduce-in-fp32: Megatron's main grads in 16 bits, half the bytes") {
  const std::vector<std::string> args = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100",
                                         "--tp", "2", "--json"};
  const auto gradients = [](const test::CliRun& run) {
    return nlohmann::json::parse(run.out).at("memory").at("phases")[0].at("components").at("gradients").get<double>();
  };
  const test::CliRun fp32 = test::run(args);
  std::vector<std::string> bf16_args = args;
  bf16_args.push_back("--no-grad-reduce-in-fp32");
  const test::CliRun bf16 = test::run(bf16_args);
  REQUIRE(fp32.exit_code == 0);
  REQUIRE(bf16.exit_code == 0);
  CHECK(gradients(bf16) == test::approx(gradients(fp32) / 2));
}

TEST_CASE("estimate --explain prints formulas and sources") {
  const test::CliRun run =
      test::run({"estimate", "--model", "qwen2.5-0.5b", "--cluster", "1x1xA100-80GB", "--explain"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("formula:") != std::string::npos);
  CHECK(run.out.find("Korthikanti") != std::string::npos);
}

TEST_CASE("estimate: invalid strategies print the rule id and valid values, exit 2") {
  const test::CliRun run =
      test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--tp", "3"});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("[tp.divides-heads]") != std::string::npos);
  CHECK(run.err.find("valid:") != std::string::npos);
}

TEST_CASE("estimate: bad inputs exit 2 with the flag named") {
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--offload",
                   "weights"})
            .err.find("--offload") != std::string::npos);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--offload",
                   "weights"})
            .exit_code == 2);
  CHECK(test::run({"estimate", "--model", "no-such-model", "--cluster", "1x8xA100-80GB"}).exit_code == 2);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xNoSuchGPU"}).exit_code ==
        2);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--recompute",
                   "some"})
            .exit_code == 2);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--zero", "4"})
            .exit_code == 2);
  const auto modules = test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                                  "--recompute", "selective", "--recompute-modules", "mlp,attn"});
  CHECK(modules.exit_code == 2);
  CHECK(modules.err.find("--recompute-modules") != std::string::npos);
  CHECK(modules.err.find("unknown module 'attn'") != std::string::npos);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                   "--recompute-modules", "mlp"})
            .exit_code == 2);
  // Megatron-core refuses CPU activation offloading with pipeline parallelism.
  const auto offload_pp = test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                                     "--pp", "2", "--activation-offload-layers", "4"});
  CHECK(offload_pp.exit_code == 2);
  CHECK(offload_pp.err.find("[offload.activations-pp]") != std::string::npos);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                   "--activation-offload", "--activation-offload-layers", "4"})
            .exit_code == 2);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--fsdp",
                   "--megatron-fsdp"})
            .exit_code == 2);
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                   "--gpu-memory-utilization", "1.5"})
            .exit_code == 2);
  CHECK(test::run({"estimate", "--cluster", "1x8xA100-80GB"}).exit_code == 2);
}

}  // namespace
}  // namespace meshplan
