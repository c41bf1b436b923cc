#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("diagnose: a missing log, a directory or no log at all is bad input (exit 2)") {
  const test::CliRun missing = test::run({"diagnose", "/no/such/file.log"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/file.log") != std::string::npos);
  CHECK(test::run({"diagnose", test::fixture("logs").string()}).exit_code == 2);
  CHECK(test::run({"diagnose"}).exit_code == 2);
}

TEST_CASE("diagnose: an empty log, blank lines only, or a binary file is not a log (exit 2)") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto empty = dir / ("meshplan_empty_" + std::to_string(getpid()) + ".log");
  const auto blank = dir / ("meshplan_blank_" + std::to_string(getpid()) + ".log");
  const auto binary = dir / ("meshplan_binary_" + std::to_string(getpid()) + ".bin");
  std::ofstream(empty).close();
  std::ofstream(blank) << "\n   \n\t\n";
  std::ofstream(binary, std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0", 20) << "\nmore\n";
  for (const auto& [path, reason] : {std::pair{empty, "no text lines"}, std::pair{blank, "no text lines"},
                                     std::pair{binary, "binary file"}}) {
    CAPTURE(path);
    const test::CliRun run = test::run({"diagnose", path.string()});
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(path.string()) != std::string::npos);
    CHECK(run.err.find(reason) != std::string::npos);
    CHECK(run.out.find("No failure signature found") == std::string::npos);
  }
  std::istringstream nothing("");
  std::streambuf* saved = std::cin.rdbuf(nothing.rdbuf());
  const test::CliRun from_stdin = test::run({"diagnose", "-"});
  std::cin.rdbuf(saved);
  CHECK(from_stdin.exit_code == 2);
  for (const auto& path : {empty, blank, binary}) std::filesystem::remove(path);
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
  CHECK(json.size() == 3);
  CHECK(json["schema_version"] == 1);  // docs/json.md: every --json output carries one
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
  // verl#7430: rollout.limit_images was missing from rollout.yaml. Its parent holds no near name
  // (a whole-path match offered rollout.prompt_length) and no key of actor_rollout_ref ends in it
  // (reward_model.rollout.limit_images is another role's): no "did you mean", the '+' fix first.
  const test::CliRun images =
      test::run({"diagnose", test::fixture("logs/real/verl_rollout_limit_images_not_in_struct.log").string()});
  CHECK(images.out.find("did you mean") == std::string::npos);
  CHECK(images.out.find("1. [override] +actor_rollout_ref.rollout.limit_images=<value>") != std::string::npos);
}

// verl#4672: a key its dataclass refuses ("Key 'enable_activation_offloading' not in 'HFModelConfig'")
// names no path; the sections whose _target_ is that class (actor_rollout_ref.model in verl's
// ppo_trainer) place it, and the near field there is the suggestion.
TEST_CASE("diagnose: a key a verl dataclass refuses gets a \"did you mean\" in the sections of that class") {
  const test::CliRun run = test::run(
      {"diagnose", test::fixture("logs/real/verl_enable_activation_offloading_key_typo.log").string()});
  CHECK(run.out.find("did you mean actor_rollout_ref.model.enable_activation_offload?") != std::string::npos);
}

// A Megatron key over the FSDP actor that ppo_trainer composes by default, and the engine group
// written as a key of the actor (verl 1dda039b's examples/README.md advises
// actor_rollout_ref.actor.model_engine=megatron): the fix is the top-level choice
// model_engine=megatron, as check offers it; no "did you mean" (the key exists, in the Megatron
// actor's config) and no '+' (the actor section is a dataclass).
TEST_CASE("diagnose: a key of the engine the launch does not choose gets the engine choice as its fix") {
  for (const char* log : {"logs/config_key_megatron_without_engine.log", "logs/config_key_engine_group_as_key.log"}) {
    CAPTURE(log);
    const test::CliRun run = test::run({"diagnose", test::fixture(log).string()});
    CHECK(run.out.find("1. [override] model_engine=megatron  # a choice of configs, not a key") != std::string::npos);
    CHECK(run.out.find("did you mean") == std::string::npos);
    CHECK(run.out.find("[override] +actor_rollout_ref") == std::string::npos);
  }
}

}  // namespace meshplan

namespace meshplan {

namespace {

std::string write_temp_log(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("meshplan_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::vector<std::string> root_fixes(const std::string& out) {
  std::vector<std::string> fixes;
  const auto json = nlohmann::json::parse(out);
  for (const auto& fix : json["diagnoses"][0]["fixes"]) fixes.push_back(fix["text"].get<std::string>());
  return fixes;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("diagnose: a verl + vLLM OOM never gets expandable_segments, a plain PyTorch OOM does") {
  // verl runs vLLM (or SGLang) with sleep mode by default (free_cache_engine=True), and vLLM's
  // CuMemAllocator asserts against PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.
  const test::CliRun verl =
      test::run({"diagnose", "--json", test::fixture("logs/oom_training_update_actor_rank3.log").string()});
  CHECK(nlohmann::json::parse(verl.out)["diagnoses"][0]["category"] == "oom_training");
  CHECK_FALSE(any_contains(root_fixes(verl.out), "expandable_segments"));
  // The same OOM from a TRL/FSDP run (no verl, no sleep mode): the fragmentation fix stays.
  const test::CliRun trl =
      test::run({"diagnose", "--json", test::fixture("logs/real/trl_fsdp_sft_oom_rank0.log").string()});
  CHECK(any_contains(root_fixes(trl.out), "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True  # 2.57 GiB"));
  // free_cache_engine=False in the run's overrides turns sleep mode off: the fix comes back.
  const std::string log = write_temp_log(
      "free_cache.log", "Error executing job with overrides: ['actor_rollout_ref.rollout.free_cache_engine=False']\n" +
                            test::file_text(test::fixture("logs/oom_training_update_actor_rank3.log")));
  const test::CliRun awake = test::run({"diagnose", "--json", log});
  CHECK(any_contains(root_fixes(awake.out), "expandable_segments:True"));
  std::filesystem::remove(log);
}

TEST_CASE("diagnose: the OOM line has a [rankN]: prefix, its traceback does not: the phase is kept") {
  const std::string log = write_temp_log(
      "rank_prefix.log",
      "(WorkerDict pid=7) Traceback (most recent call last):\n"
      "(WorkerDict pid=7)   File \"/verl/verl/workers/fsdp_workers.py\", line 782, in compute_log_prob\n"
      "(WorkerDict pid=7)     output = self.actor.compute_log_prob(data=data)\n"
      "(WorkerDict pid=7) [rank3]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 13.91 GiB. GPU 3 has "
      "a total capacity of 79.11 GiB of which 8.85 GiB is free.\n");
  const test::CliRun run = test::run({"diagnose", "--json", log});
  const auto root = nlohmann::json::parse(run.out)["diagnoses"][0];
  CHECK(root["numbers"]["phase"] == "compute_log_prob");
  CHECK(root["numbers"]["rank"] == 3);
  const auto fixes = root_fixes(run.out);
  CHECK(any_contains(fixes, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"));
  CHECK_FALSE(any_contains(fixes, "critic."));
  CHECK(fixes.size() <= 6);  // the phase's own knobs, not every memory knob
  std::filesystem::remove(log);
}

TEST_CASE("diagnose: a GRPO run (no critic) gets no critic fixes even when the phase is unknown") {
  // adv_estimator=grpo: verl builds no critic (ray_trainer.py: a critic only for GAE).
  const std::string grpo = write_temp_log(
      "grpo.log", "Error executing job with overrides: ['algorithm.adv_estimator=grpo', "
                  "'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8']\n"
                  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                  "of 79.11 GiB of which 1.02 GiB is free.\n");
  const test::CliRun run = test::run({"diagnose", "--json", grpo});
  const auto fixes = root_fixes(run.out);
  CHECK_FALSE(any_contains(fixes, "critic."));
  CHECK(any_contains(fixes, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4  # was 8"));
  std::filesystem::remove(grpo);
}

TEST_CASE("diagnose: an error no signature knows is reported with where it was raised and a next step") {
  const std::string log = write_temp_log(
      "unknown.log",
      "INFO 11-27 18:00:00 [core.py:12] starting\n"
      "(TaskRunner pid=9) Traceback (most recent call last):\n"
      "(TaskRunner pid=9)   File \"/opt/venv/lib/python3.10/site-packages/verl/trainer/ppo/ray_trainer.py\", line "
      "1034, in fit\n"
      "(TaskRunner pid=9)     batch = batch.union(gen_batch_output)\n"
      "(TaskRunner pid=9) KeyError: 'response_mask'\n"
      "(TaskRunner pid=9) ray.exceptions.RayTaskError(KeyError): ray::TaskRunner.run() (pid=9, ip=10.0.0.1)\n");
  const test::CliRun run = test::run({"diagnose", "--json", log});
  CHECK(run.exit_code == 1);
  const auto json = nlohmann::json::parse(run.out);
  REQUIRE(json["diagnoses"].size() == 1);  // the wrapper echo adds nothing
  const auto& root = json["diagnoses"][0];
  CHECK(root["category"] == "unclassified");
  CHECK(root["evidence"][0]["line"] == 5);
  CHECK(root["numbers"]["exception"] == "KeyError");
  CHECK(root["numbers"]["raised_in"] == "fit (ppo/ray_trainer.py:1034)");
  CHECK(root["numbers"]["framework"] == "verl");
  const auto fixes = root_fixes(run.out);
  CHECK(any_contains(fixes, "KeyError was raised in fit (ppo/ray_trainer.py:1034)"));
  CHECK(any_contains(fixes, "search the exact message in verl's GitHub issues"));
  std::filesystem::remove(log);
}

TEST_CASE("diagnose: \"No failure signature found\" only for a log without any error") {
  const std::string quiet = write_temp_log("quiet.log", "INFO 11-27 18:00:00 [core.py:12] all good\nstep:1 - loss:0.1\n");
  CHECK(test::run({"diagnose", quiet}).out.find("No failure signature found.") != std::string::npos);
  const std::string echo = write_temp_log("echo.log", "2023-07-09 03:37:34,978\tERROR trial_runner.py:1062 -- Trial x: "
                                                      "Error processing event.\n");
  const test::CliRun run = test::run({"diagnose", "--json", echo});
  CHECK(run.exit_code == 1);
  CHECK(nlohmann::json::parse(run.out)["diagnoses"][0]["category"] == "unclassified");
  std::filesystem::remove(quiet);
  std::filesystem::remove(echo);
}

}  // namespace meshplan
