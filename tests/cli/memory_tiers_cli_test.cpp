// `meshplan estimate` memory verdicts users can trust: the engine start-up check (KV below one
// max_model_len sequence), expert TP defaulting to TP as Megatron-core does, and the length tiers.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

TEST_CASE("estimate: a KV cache below one max_model_len sequence exits 1 naming the rollout and the fix") {
  // Qwen2.5-7B on H100 (79.21 GiB), rollout TP 1, 1024 + 8192 tokens, gpu_memory_utilization 0.20:
  // weights 15,231,233,024 + profile run 1,435,500,544 leave KV for fewer than 9,216 tokens
  // (worked in tests/cost/rl_residency_test.cpp); one sequence needs 17,195,215,872 bytes of
  // budget = 0.2022 of the GPU, so 0.21 holds it.
  const std::vector<std::string> args = {"estimate",      "--model",         "qwen2.5-7b-instruct",
                                         "--cluster",     "1x8xH100",        "--workload",
                                         "rl",            "--fsdp",          "--rollout-tp",
                                         "1",             "--prompt-len",    "1024",
                                         "--response-len", "8192",           "--gpu-memory-utilization"};
  std::vector<std::string> small = args;
  small.push_back("0.20");
  const test::CliRun run = test::run(small);
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("less than one max_model_len sequence of 9216 tokens") != std::string::npos);
  CHECK(run.out.find("vLLM refuses to start") != std::string::npos);
  CHECK(run.out.find("--gpu-memory-utilization 0.21 holds one") != std::string::npos);
  CHECK(run.out.find("concurrent sequences per replica: 0") != std::string::npos);
  std::vector<std::string> fixed = args;
  fixed.push_back("0.21");
  CHECK(test::run(fixed).out.find("less than one max_model_len") == std::string::npos);
}

TEST_CASE("estimate: expert TP unset is TP (Megatron-core), listed among the defaults") {
  // verl's Qwen3-30B-A3B layout, TP4 PP2 EP4 on 4 x 8 H100.
  const std::vector<std::string> base = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100",
                                         "--tp",     "4",       "--pp",          "2",         "--ep",
                                         "4",        "--json"};
  std::vector<std::string> with_etp = base;
  with_etp.insert(with_etp.end(), {"--etp", "4"});
  const test::CliRun implicit = test::run(base);
  const test::CliRun explicit_etp = test::run(with_etp);
  REQUIRE(implicit.exit_code != 2);
  const nlohmann::json a = nlohmann::json::parse(implicit.out);
  const nlohmann::json b = nlohmann::json::parse(explicit_etp.out);
  CHECK(a.at("strategy").at("etp") == 4);
  CHECK(a.at("memory") == b.at("memory"));
  bool listed = false;
  for (const auto& note : a.at("defaults_chosen")) listed = listed || note.get<std::string>().find("expert TP = TP = 4") == 0;
  CHECK(listed);
  // A dense model keeps ETP 1 (it has no expert layers).
  const test::CliRun dense = test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--tp",
                                        "2", "--json"});
  CHECK(nlohmann::json::parse(dense.out).at("strategy").at("etp") == 1);
}

}  // namespace
}  // namespace meshplan
