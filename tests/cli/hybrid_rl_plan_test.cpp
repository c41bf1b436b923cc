// A Qwen3-Next RL launch end to end: plan picks a fitting layout whose rollout KV budget counts the
// Gated DeltaNet state once per sequence and KV on the 12 full-attention layers only; the verl
// launch it emits passes check, memory fit included.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kPlan = {"plan", "--model", "qwen3-next-80b-a3b-instruct", "--cluster",
                                        "2x8xH200-141GB", "--workload", "rl", "--global-batch", "256",
                                        "--mini-batch", "64", "--rollout-n", "8", "--prompt-len", "1024",
                                        "--response-len", "3072", "--fix", "rollout_tp=2,rollout_dp=1"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("Qwen3-Next RL: plan's rollout KV is the hand-worked 17,112 B per token at rollout TP 2") {
  const test::CliRun planned = test::run(with(kPlan, {"--json"}));
  REQUIRE_MESSAGE(planned.exit_code == 0, planned.err);
  const nlohmann::json j = nlohmann::json::parse(planned.out);
  REQUIRE(j.at("feasible").get<int>() > 0);  // feasible layouts found
  const nlohmann::json& best = j.at("candidates").at(0);
  CHECK(best.at("strategy").at("rl").at("rollout_tp") == 2);
  const nlohmann::json& rollout = best.at("estimate").at("memory").at("rollout");
  // tests/cost/memory/hybrid_rollout_kv_test.cpp, per GPU at rollout TP 2 in bf16: 12 full-attention
  // layers x 2 x 1 kv head x 256 x 2 B = 12,288 B per token, plus 36 GDN layers x 548,864 B of conv
  // and delta-rule state = 19,759,104 B per sequence; a 1024 + 3072-token sequence holds
  // 4096 x 12,288 + 19,759,104 = 70,090,752 B = 4096 x 17,112 (all 48 layers as attention: 49,152).
  CHECK(rollout.at("tokens_per_sequence") == 4096);
  CHECK(rollout.at("kv_bytes_per_token").get<double>() == 17112.0);
  const double kv_cache = rollout.at("kv_cache_bytes").get<double>();
  REQUIRE(kv_cache > 0);
  CHECK(rollout.at("kv_tokens_per_replica") == static_cast<std::int64_t>(kv_cache / 17112.0));
  const auto sequences = static_cast<std::int64_t>(kv_cache / 70090752.0);
  CHECK(rollout.at("concurrent_sequences_per_replica") == std::min<std::int64_t>(sequences, 256));
  CHECK(rollout.at("sequences_per_step") == 256 * 8);
}

TEST_CASE("Qwen3-Next RL: plan --emit verl gives a launch that check passes with its memory fit") {
  const test::CliRun emitted =
      test::run(with(kPlan, {"--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--emit", "verl"}));
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.tensor_model_parallel_size=2") != std::string::npos);
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_qwen3_next_" + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << emitted.out;
  const test::CliRun check =
      test::run({"check", script.string(), "--model", "qwen3-next-80b-a3b-instruct", "--gpu", "H200-141GB"});
  std::filesystem::remove(script);
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s), 0 warning(s)") != std::string::npos);
}

}  // namespace meshplan
