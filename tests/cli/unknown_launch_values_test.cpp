// A launch whose sizes are not known from the script alone, and one that cannot start: no verdict
// or plan is given on values the launch may not run with. verl's own GRPO Qwen3-8B FSDP example
// (main@1dda039b, bundled unchanged in tests/fixtures/verl/examples/verl_1dda039b.bundle) picks its
// batch sizes, GPUs per node and rollout TP in a `case` on DEVICE, which it sets from
// `$(python3 -c 'import torch_npu' ...)`: read alone, plan --from planned verl's defaults for them
// (0 prompts a step: every candidate at 0 tokens/s, the baseline at DP 0) and `plan --json`
// crashed; check --gpu H100 called the launch out of memory ("needs inf GiB").
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "verl/verl_example_scripts.hpp"

namespace meshplan {
namespace {

/// The bundled script at `path`, written to a temporary file the CLI can read; removed by the caller.
std::filesystem::path bundled_script_file(const std::string& path) {
  for (const auto& [source, text] : test::bundled_scripts(test::fixture("verl/examples/verl_1dda039b.bundle"))) {
    if (source != path) continue;
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("meshplan_unknown_" + std::to_string(::getpid()) + ".sh");
    std::ofstream(file) << text;
    return file;
  }
  FAIL("not in the bundle: " << path);
  return {};
}

}  // namespace

TEST_CASE("a launch whose sizes depend on the machine it starts on: plan --from asks for them, check skips the fit") {
  const std::filesystem::path script = bundled_script_file("examples/grpo_trainer/run_qwen3_8b_fsdp.sh");
  const std::string file = script.string();

  // The first value the mapping reads that the script leaves unknown, with its line (181:
  // trainer.n_gpus_per_node=${n_trainer_devices}) and why, and how to give it: exit 2.
  const test::CliRun refused = test::run({"plan", "--from", file, "--gpu", "H100"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find(file + ":181: trainer.n_gpus_per_node: not known statically ($n_trainer_devices is set "
                                "differently in the branches of the case at line 68)") != std::string::npos);
  CHECK(refused.err.find("--env VAR=value") != std::string::npos);
  CHECK(test::run({"plan", "--from", file, "--gpu", "H100", "--json"}).exit_code == 2);

  // With the machine named the `case` resolves: the GPU branch's sizes (1024 prompts x 5, rollout
  // TP 2, gpu_memory_utilization 0.6, 8 GPUs, ppo_max_token_len_per_gpu 24576) are planned.
  const test::CliRun planned = test::run({"plan", "--from", file, "--gpu", "H100", "--env", "DEVICE=gpu", "--json"});
  REQUIRE_MESSAGE(planned.exit_code == 0, planned.err);
  const nlohmann::json out = nlohmann::json::parse(planned.out);
  const nlohmann::json& baseline = out["baseline"];
  CHECK(baseline["gpus"] == 8);
  CHECK(baseline["strategy"]["rl"]["rollout_tp"] == 2);
  CHECK(baseline["strategy"]["rl"]["gpu_memory_utilization"] == 0.6);
  CHECK(baseline["broken_rule"] == "");
  CHECK(baseline["tokens_per_second"].get<double>() > 0);
  CHECK(out["candidates"][0]["tokens_per_second"].get<double>() > 0);
  // Without --gpu the GPU type is the one the script names, here only in a comment ("MACHINE
  // free-form tag for hardware tweaks (e.g. gb200)", line 6): the plan says where it read it.
  const test::CliRun guessed = test::run({"plan", "--from", file, "--env", "DEVICE=gpu", "--top", "1"});
  REQUIRE(guessed.exit_code == 0);
  CHECK(guessed.out.find("cluster: GPU type GB200-NVL72, named at line 6 of the script (--gpu for another)") !=
        std::string::npos);
  // --set gives a key's value directly; --env and --set belong to --from.
  CHECK(test::run({"plan", "--from", file, "--gpu", "H100", "--env", "DEVICE=gpu", "--set",
                   "data.train_batch_size=512"})
            .exit_code == 0);
  CHECK(test::run({"plan", "--model", "qwen3-8b", "--cluster", "1x8xH100", "--workload", "rl", "--env", "DEVICE=gpu"})
            .exit_code == 2);
  CHECK(test::run({"plan", "--from", file, "--gpu", "H100", "--env", "=gpu"}).exit_code == 2);

  // check: the memory fit waits for the value (an info naming it), no out-of-memory error.
  const test::CliRun check = test::run({"check", file, "--gpu", "H100", "--json"});
  const nlohmann::json findings = nlohmann::json::parse(check.out)["findings"];
  bool skipped = false;
  for (const nlohmann::json& finding : findings) {
    CHECK_MESSAGE(finding["rule"].get<std::string>().rfind("memory.phase-oom", 0) != 0, finding["message"]);
    if (finding["rule"] == "memory.not-evaluated") {
      skipped = true;
      CHECK(finding["severity"] == "info");
      CHECK(finding["message"].get<std::string>().find("trainer.n_gpus_per_node is not known statically") !=
            std::string::npos);
    }
  }
  CHECK(skipped);
  // With the machine named, the fit runs (and the launch's own sizes fit 8 x H100).
  const test::CliRun fitted = test::run({"check", file, "--gpu", "H100", "--env", "DEVICE=gpu", "--json"});
  bool fit_ran = true;
  const nlohmann::json fitted_report = nlohmann::json::parse(fitted.out);  // kept: the loop reads into it
  for (const nlohmann::json& finding : fitted_report["findings"]) {
    if (finding["rule"] == "memory.not-evaluated" || finding["rule"] == "memory.skipped") fit_ran = false;
    CHECK(finding["severity"] != "error");
  }
  CHECK(fit_ran);
  std::filesystem::remove(script);
}

TEST_CASE("plan --from a launch that cannot start: its layout is named, not estimated, and JSON says so") {
  // TP 16 on one node of 8 GPUs leaves no data-parallel rank (verl and Megatron refuse it).
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_tp16_" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\\n"
                           "  data.train_batch_size=64 data.max_prompt_length=512 data.max_response_length=1024 \\\n"
                           "  actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \\\n"
                           "  actor_rollout_ref.actor.ppo_mini_batch_size=32 \\\n"
                           "  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
                           "  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \\\n"
                           "  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \\\n"
                           "  actor_rollout_ref.actor.megatron.tensor_model_parallel_size=16 \\\n"
                           "  actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\\n"
                           "  actor_rollout_ref.rollout.n=4 trainer.nnodes=1 trainer.n_gpus_per_node=8\n";
  const test::CliRun text = test::run({"plan", "--from", script.string(), "--gpu", "H100"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("breaks strategy.positive (sizes must be >= 1: tp=16") != std::string::npos);
  CHECK(text.out.find("it cannot run as written, so it is not estimated") != std::string::npos);
  CHECK(text.out.find("0.00 s/step") == std::string::npos);
  const test::CliRun with_json = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--json"});
  REQUIRE(with_json.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(with_json.out);
  CHECK(out["baseline"]["broken_rule"] == "strategy.positive");
  CHECK(out["baseline"]["broken_message"].get<std::string>().find("dp=0") != std::string::npos);
  CHECK(out["baseline"]["estimate"].is_null());
  CHECK(out["baseline"]["fits"].is_null());
  CHECK(out["candidates"][0]["speedup_over_baseline"] == 0);
  const test::CliRun diff = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--emit", "verl"});
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.find("(the script's own layout cannot run as written)") != std::string::npos);
  std::filesystem::remove(script);
}

}  // namespace meshplan
