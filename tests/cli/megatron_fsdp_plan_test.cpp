// plan searches Megatron-FSDP (data_parallel_sharding_strategy optim_grads_params) on Megatron
// layouts without pipeline parallelism and with DP to shard over, writes it in each launcher's own
// keys, and plan --from keeps a launch's Megatron-FSDP in the space it compares against.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

// Qwen2.5-7B GRPO on 8 H100 under verl's Megatron backend, as plan writes it.
const std::vector<std::string> kRl = {"plan",         "--model",      "qwen2.5-7b-instruct", "--cluster",
                                      "1x8xH100",     "--workload",   "rl",                  "--global-batch",
                                      "64",           "--mini-batch", "16",                  "--model-path",
                                      "Qwen/Qwen2.5-7B-Instruct"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("plan --fix megatron_fsdp=1: PP 1 plans that shard over DP, without the actor's offload") {
  const test::CliRun run = test::run(with(kRl, {"--fix", "backend=megatron,megatron_fsdp=1", "--json"}));
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json plans = nlohmann::json::parse(run.out)["candidates"];
  REQUIRE(!plans.empty());
  for (const auto& plan : plans) {
    const auto& s = plan["strategy"];
    CHECK(s["megatron_fsdp"] == true);
    CHECK(s["pp"] == 1);
    CHECK(s["dp"].get<int>() > 1);
    // verl's offload_megatron_model_to_cpu handles Megatron's DDP buffers, not Megatron-FSDP's.
    CHECK((s["offload"] == "none" || s["offload"] == "ref"));
  }
}

TEST_CASE("plan --emit verl with Megatron-FSDP: check reads the launch back clean") {
  const test::CliRun emitted = test::run(with(kRl, {"--fix", "backend=megatron,megatron_fsdp=1", "--emit", "verl"}));
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("actor_rollout_ref.actor.megatron.use_megatron_fsdp=True") != std::string::npos);
  const test::CliRun check = test::check_script(emitted.out, "qwen2.5-7b-instruct", "megatron_fsdp");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s)") != std::string::npos);

  // plan --from on that launch: its Megatron-FSDP is in the space (nothing outside it), and a best
  // plan pinned without it turns it off in the diff.
  const std::filesystem::path script = std::filesystem::temp_directory_path() / ("meshplan_megatron_fsdp_from_" + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << emitted.out;
  const test::CliRun baseline = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--json", "--top", "1"});
  REQUIRE_MESSAGE(baseline.exit_code == 0, baseline.err);
  const nlohmann::json out = nlohmann::json::parse(baseline.out);
  CHECK(out["baseline"]["strategy"]["megatron_fsdp"] == true);
  CHECK(out["baseline"]["outside_space"].empty());
  const test::CliRun diff =
      test::run({"plan", "--from", script.string(), "--gpu", "H100", "--fix", "megatron_fsdp=0", "--emit", "verl"});
  std::filesystem::remove(script);
  REQUIRE_MESSAGE(diff.exit_code == 0, diff.err);
  CHECK(diff.out.find("actor_rollout_ref.actor.megatron.use_megatron_fsdp=False") != std::string::npos);
}

}  // namespace meshplan
