// A MoE RL plan searches data-parallel rollout engines with the experts over the replica's GPUs
// (rollout.data_parallel_size, expert_parallel_size = TP x DP) and emits a launch that verl's
// start-up rules accept: RolloutConfig.__post_init__ requires expert_parallel_size ==
// tensor_model_parallel_size * data_parallel_size.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kPlan = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload",
                                        "rl", "--global-batch", "256", "--mini-batch", "32", "--rollout-n", "16",
                                        "--prompt-len", "2048", "--response-len", "8192"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_CASE("MoE RL plan: rollout engines in data parallel carry the experts over TP x DP GPUs") {
  const test::CliRun planned = test::run(with(kPlan, {"--fix", "rollout_tp=1,rollout_dp=4", "--json"}));
  REQUIRE_MESSAGE(planned.exit_code == 0, planned.err);
  const nlohmann::json j = nlohmann::json::parse(planned.out);
  REQUIRE(j.at("feasible").get<int>() > 0);
  const nlohmann::json& best = j.at("candidates").at(0);
  const nlohmann::json& rl = best.at("strategy").at("rl");
  CHECK(rl.at("rollout_tp") == 1);
  CHECK(rl.at("rollout_dp") == 4);
  CHECK(rl.at("rollout_ep") == 4);
  // 16 GPUs in replicas of 1 x 4: 4 replicas, each with 4 engines' KV (tests/cost/time/
  // rl_step_time_test.cpp: 17,577,701,376 B of engine weights per GPU instead of the whole model).
  const nlohmann::json& rollout = best.at("estimate").at("memory").at("rollout");
  CHECK(rollout.at("replicas") == 4);
}

TEST_CASE("MoE RL plan --emit verl: data_parallel_size and expert_parallel_size pass verl's rules") {
  const test::CliRun emitted = test::run(
      with(kPlan, {"--fix", "rollout_tp=1,rollout_dp=4", "--model-path", "Qwen/Qwen3-30B-A3B", "--emit", "verl"}));
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.tensor_model_parallel_size=1") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.data_parallel_size=4") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.expert_parallel_size=4") != std::string::npos);
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_rollout_ep_" + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << emitted.out;
  const test::CliRun check = test::run({"check", script.string(), "--model", "qwen3-30b-a3b", "--gpu", "H100"});
  std::filesystem::remove(script);
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("\n0 error(s)") != std::string::npos);
}

}  // namespace
}  // namespace meshplan
