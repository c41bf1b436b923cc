#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("diagnose: a missing log, a directory or no log at all is bad input (exit 2)") {
  const test::CliRun missing = test::run({"diagnose", "/no/such/file.log"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/file.log") != std::string::npos);
  CHECK(test::run({"diagnose", test::fixture("logs").string()}).exit_code == 2);
  CHECK(test::run({"diagnose"}).exit_code == 2);
}

TEST_CASE("diagnose: an empty log has no failure (exit 0)") {
  const auto path = std::filesystem::temp_directory_path() / ("meshplan_empty_" + std::to_string(getpid()) + ".log");
  std::ofstream(path).close();
  const test::CliRun run = test::run({"diagnose", path.string()});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("No failure signature found.") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("diagnose: - reads the log from stdin") {
  std::istringstream fake_stdin("RuntimeError: No CUDA GPUs are available\n");
  std::streambuf* saved = std::cin.rdbuf(fake_stdin.rdbuf());
  const test::CliRun run = test::run({"diagnose", "-", "--json"});
  std::cin.rdbuf(saved);
  CHECK(run.exit_code == 1);
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json["diagnoses"][0]["category"] == "device_visibility");
  CHECK(json["diagnoses"][0]["evidence"][0]["file"] == "<stdin>");
}

TEST_CASE("diagnose: a gzip-compressed log reads like the plain one") {
  const std::string text = test::file_text(test::fixture("logs/oom_training_update_actor_rank3.log"));
  const auto path = std::filesystem::temp_directory_path() / ("meshplan_oom_" + std::to_string(getpid()) + ".log.gz");
  gzFile gz = gzopen(path.string().c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  const test::CliRun run = test::run({"diagnose", "--json", path.string()});
  CHECK(run.exit_code == 1);
  CHECK(nlohmann::json::parse(run.out)["diagnoses"][0]["category"] == "oom_training");
  std::filesystem::remove(path);
}

TEST_CASE("diagnose --json has exactly the documented fields") {
  const test::CliRun run =
      test::run({"diagnose", "--json", test::fixture("logs/oom_training_update_actor_rank3.log").string()});
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json.size() == 2);
  CHECK(json["summary"].is_string());
  for (const auto& diagnosis : json["diagnoses"]) {
    CHECK(diagnosis.size() == 7);
    for (const char* key : {"category", "severity", "root_cause", "evidence", "explanation", "numbers", "fixes"}) {
      CHECK(diagnosis.contains(key));
    }
    for (const auto& fix : diagnosis["fixes"]) {
      const std::string kind = fix["kind"];
      CHECK((kind == "override" || kind == "env" || kind == "action"));
    }
    for (const auto& evidence : diagnosis["evidence"]) CHECK(evidence["line"].is_number_integer());
  }
}

TEST_CASE("diagnose text report: root cause first, evidence with file:line, ranked fixes") {
  const std::string log = test::fixture("logs/oom_training_update_actor_rank3.log").string();
  const test::CliRun run = test::run({"diagnose", log});
  CHECK(run.exit_code == 1);
  const std::size_t root = run.out.find("ROOT CAUSE: oom_training [error] in update_actor");
  const std::size_t consequence = run.out.find("CONSEQUENCE: nccl_timeout");
  CHECK(root != std::string::npos);
  CHECK(consequence != std::string::npos);
  CHECK(root < consequence);
  CHECK(run.out.find("tried to allocate 9.28 GiB with 3.02 GiB free of 79.11 GiB") != std::string::npos);
  CHECK(run.out.find(log + ":25:") != std::string::npos);
  CHECK(run.out.find("1. [env] PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True") != std::string::npos);
}

TEST_CASE("diagnose --model: Ulysses size valid for the model's heads and KV heads (verl issue #1226)") {
  // Qwen2.5-14B: 40 heads, 8 KV heads. The log asked for SP 16; 10 divides 40 but neither divides
  // nor is a multiple of 8, so the largest valid size below 16 is 8.
  const test::CliRun run = test::run({"diagnose", test::fixture("logs/parallel_mismatch_ulysses_heads.log").string(),
                                      "--model", test::fixture("models/qwen2.5-14b").string()});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("ulysses_sequence_parallel_size=8  # fits 40 heads and 8 KV heads") != std::string::npos);
}

TEST_CASE("diagnose --model: the fp32 logits of one micro-batch, from the log's overrides") {
  // log_prob_micro_batch_size_per_gpu=16, prompt 1024 + response 8192 = 9216 tokens, vocabulary
  // 152064 (Qwen2.5-7B): 16 x 9216 x 152064 x 4 B = 89,690,996,736 B = 83.53 GiB.
  const test::CliRun run = test::run({"diagnose", test::fixture("logs/oom_training_compute_log_prob_driver.log").string(),
                                      "--model", "qwen2.5-7b-instruct"});
  CHECK(run.out.find("entropy_from_logits_with_chunking=True  # one micro-batch's fp32 logits: up to 83.5 GiB") !=
        std::string::npos);
}

TEST_CASE("diagnose: a bad --model or --gpu is bad input, reported before reading the logs") {
  const std::string log = test::fixture("logs/healthy_balanced_run.log").string();
  const test::CliRun gpu = test::run({"diagnose", log, "--gpu", "H900"});
  CHECK(gpu.exit_code == 2);
  CHECK(gpu.err.find("--gpu") != std::string::npos);
  const test::CliRun model = test::run({"diagnose", "/no/such.log", "--model", "no-such-model"});
  CHECK(model.exit_code == 2);
  CHECK(model.err.find("no-such-model") != std::string::npos);
}

TEST_CASE("diagnose --config: fixes computed for the run's own values") {
  const std::string log = test::fixture("logs/oom_training_update_actor_rank3.log").string();
  const std::string script = test::fixture("configs/run_qwen2_5_7b_grpo.sh").string();
  const test::CliRun run = test::run({"diagnose", log, "--config", script});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("(fixes computed for the config in " + script + ")") != std::string::npos);
  // The script sets ppo_micro_batch_size_per_gpu=16; gradient checkpointing is already on, so
  // that fix is not offered again.
  CHECK(run.out.find("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8  # was 16") != std::string::npos);
  CHECK(run.out.find("enable_gradient_checkpointing=True") == std::string::npos);
}

TEST_CASE("diagnose --config --model --gpu: the memory model's peak after halving the micro-batch") {
  const test::CliRun run =
      test::run({"diagnose", test::fixture("logs/oom_training_update_actor_rank3.log").string(), "--config",
                 test::fixture("configs/run_qwen2_5_7b_grpo.sh").string(), "--model", "qwen2.5-7b-instruct", "--gpu",
                 "A100-80GB"});
  CHECK(run.out.find("predicted by the memory model: update_actor peak ") != std::string::npos);
  CHECK(run.out.find("with micro-batch 8 (usable ") != std::string::npos);
}

TEST_CASE("diagnose --config: a missing config is bad input") {
  const test::CliRun run = test::run({"diagnose", test::fixture("logs/healthy_balanced_run.log").string(),
                                      "--config", "/no/such/run.sh"});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("/no/such/run.sh") != std::string::npos);
}

TEST_CASE("diagnose: an unknown Hydra key gets a \"did you mean\" from verl's base config") {
  const test::CliRun run = test::run({"diagnose", test::fixture("logs/config_key_unknown_override.log").string()});
  CHECK(run.out.find("did you mean actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu?") != std::string::npos);
}

}  // namespace meshplan
