// estimate --no-async-scheduling: vLLM's host work between decode steps (vLLM before 0.14.0, or an
// executor without async scheduling) instead of beside them (the default of current vLLM).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("estimate --no-async-scheduling: the engine's host work adds to every decode step") {
  // Qwen2.5-7B GRPO on one H100 node, 128 prompts x 8 responses of at most 1024
  // tokens. With async scheduling each decode step takes max(GPU, host); without, their sum.
  const std::vector<std::string> base = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100",
                                         "--workload", "rl", "--fsdp", "--global-batch", "128", "--mini-batch", "64", "--rollout-n", "8",
                                         "--prompt-len", "512", "--response-len", "1024", "--explain", "--json"};
  const test::CliRun overlapped = test::run(base);
  std::vector<std::string> serial_args = base;
  serial_args.push_back("--no-async-scheduling");
  const test::CliRun serial = test::run(serial_args);
  REQUIRE_MESSAGE(overlapped.exit_code != 2, overlapped.err);
  REQUIRE_MESSAGE(serial.exit_code != 2, serial.err);
  const nlohmann::json a = nlohmann::json::parse(overlapped.out);
  const nlohmann::json b = nlohmann::json::parse(serial.out);
  CHECK(a["workload"]["rl"]["vllm_async_scheduling"] == true);
  CHECK(b["workload"]["rl"]["vllm_async_scheduling"] == false);
  const auto decode = [](const nlohmann::json& json) {
    for (const auto& term : json["explain"]) {
      if (term["name"] == "time/gen/decode") return term;
    }
    return nlohmann::json();
  };
  CHECK(decode(a)["inputs"].get<std::string>().find("overlapped (vLLM async scheduling)") != std::string::npos);
  CHECK(decode(b)["inputs"].get<std::string>().find("between steps (vLLM)") != std::string::npos);
  CHECK(decode(a)["value"].get<double>() < decode(b)["value"].get<double>());
  // SGLang always overlaps its host work: the flag is vLLM's.
  std::vector<std::string> sglang = serial_args;
  sglang.insert(sglang.end(), {"--rollout-engine", "sglang"});
  const test::CliRun refused = test::run(sglang);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--no-async-scheduling") != std::string::npos);
}

}  // namespace meshplan
