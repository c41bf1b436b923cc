#include <doctest/doctest.h>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("plan --emit verl round-trips through meshplan check with no error") {
  const test::CliRun emitted = test::run({"plan", "--model", "qwen2.5-vl-7b-instruct", "--cluster", "4x8xA100-40GB",
                                          "--workload", "rl", "--global-batch", "512", "--mini-batch", "128",
                                          "--rollout-n", "5", "--prompt-len", "1024", "--response-len", "2048",
                                          "--model-path", "Qwen/Qwen2.5-VL-7B-Instruct", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const test::CliRun check = test::check_script(emitted.out, "qwen2.5-vl-7b-instruct", "roundtrip");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s)") != std::string::npos);
}

TEST_CASE("an uneven pipeline split (61 layers on PP=8) is emitted with '+' overrides and checks clean") {
  // DeepSeek-V3 has 61 decoder layers; PP=8: ceil(61/8) = 8 per middle stage, 3 short -> first
  // stage 7, last stage 6 (7 + 6 x 8 + 6 = 61).
  const test::CliRun emitted = test::run({"plan", "--model", "deepseek-v3", "--cluster", "32x8xH200-141GB", "--workload",
                                          "rl", "--fix", "tp=8,pp=8,vpp=1,cp=1", "--model-path",
                                          "deepseek-ai/DeepSeek-V3", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(emitted.out.find(t + "num_layers_in_first_pipeline_stage=7") != std::string::npos);
  CHECK(emitted.out.find(t + "num_layers_in_last_pipeline_stage=6") != std::string::npos);
  const test::CliRun check = test::check_script(emitted.out, "deepseek-v3", "uneven");
  CHECK_MESSAGE(check.exit_code == 0, check.out);

  // 5 + 5 leaves 51 layers, which the 6 middle stages cannot share: verl's Megatron worker would
  // stop in TransformerConfig.
  std::string broken = emitted.out;
  for (const char* stage : {"first", "last"}) {
    const std::string key = t + "num_layers_in_" + stage + "_pipeline_stage=";
    const std::size_t at = broken.find(key);
    REQUIRE(at != std::string::npos);
    broken.replace(at + key.size(), 1, "5");
  }
  const test::CliRun refused = test::check_script(broken, "deepseek-v3", "uneven_broken");
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("error[model.pp.divides-layers]") != std::string::npos);
  CHECK(refused.out.find("first stage 5 + last stage 5 layers leave 51 of 61 layers") != std::string::npos);
}

TEST_CASE("an interleaved pipeline over 94 layers counts the embedding and the loss, as Bridge's recipes do") {
  // Qwen3-235B-A22B has 94 decoder layers; PP 8 x VPP 3 divides 94 + 2 = 96, not 94 (and Megatron-core
  // wants first/last counts divisible by VPP): the plan counts the embedding and the loss as layers,
  // 11 + 6 x 12 + 11, and emits verl's '+' keys for them; check reads the launch back clean.
  const test::CliRun emitted = test::run({"plan", "--model", "qwen3-235b-a22b", "--cluster", "64x4xGB200", "--workload",
                                          "rl", "--global-batch", "256", "--mini-batch", "64", "--fix",
                                          "tp=1,pp=8,vpp=3", "--model-path", "Qwen/Qwen3-235B-A22B", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(emitted.out.find(t + "account_for_embedding_in_pipeline_split=True") != std::string::npos);
  CHECK(emitted.out.find(t + "account_for_loss_in_pipeline_split=True") != std::string::npos);
  const test::CliRun check = test::check_script(emitted.out, "qwen3-235b-a22b", "counted");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s)") != std::string::npos);
}

TEST_CASE("plan --emit verl: FSDP and Megatron x vLLM and SGLang launches check with no error and no warning") {
  struct Case {
    const char* model;
    const char* cluster;
    const char* backend;
    const char* engine;
  };
  for (const Case c : {Case{"qwen2.5-7b-instruct", "1x8xH100-80GB", "fsdp", "vllm"},
                       Case{"qwen2.5-7b-instruct", "1x8xH100-80GB", "megatron", "sglang"},
                       Case{"llama-3.1-8b", "2x8xA100-80GB", "megatron", "vllm"},
                       Case{"qwen3-8b", "1x8xA100-80GB", "fsdp", "sglang"},
                       Case{"qwen3-30b-a3b", "2x8xH100-80GB", "megatron", "vllm"}}) {
    CAPTURE(c.model);
    CAPTURE(c.backend);
    CAPTURE(c.engine);
    const test::CliRun emitted = test::run({"plan", "--model", c.model, "--cluster", c.cluster, "--workload", "rl",
                                            "--global-batch", "256", "--mini-batch", "64", "--rollout-n", "4",
                                            "--rollout-engine", c.engine, "--fix", std::string("backend=") + c.backend,
                                            "--emit", "verl"});
    REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
    for (const char* variable : {"TRAIN_FILES=", "VAL_FILES=", "MODEL_PATH=", "LR=", "LOGGER=", "REWARD_FUNCTION_PATH="}) {
      CHECK_MESSAGE(emitted.out.find(std::string("\n") + variable) != std::string::npos, variable);
    }
    CHECK(emitted.out.find(std::string("actor_rollout_ref.rollout.name=") + c.engine) != std::string::npos);
    const test::CliRun check = test::check_script(emitted.out, c.model, "matrix");
    CHECK_MESSAGE(check.exit_code == 0, check.out);
    CHECK_MESSAGE(check.out.find("0 error(s), 0 warning(s)") != std::string::npos, check.out);
  }
}

TEST_CASE("plan --emit slurm: check reads the verl launch inside the sbatch script, clean") {
  const test::CliRun emitted = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xH100-80GB",
                                          "--workload", "rl", "--global-batch", "256", "--mini-batch", "64",
                                          "--rollout-n", "4", "--emit", "slurm"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("ray start --head") != std::string::npos);
  CHECK(emitted.out.find("ray job submit") != std::string::npos);
  const test::CliRun check = test::check_script(emitted.out, "qwen2.5-7b-instruct", "slurm");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK_MESSAGE(check.out.find("0 error(s), 0 warning(s)") != std::string::npos, check.out);
  CHECK(check.out.find("trainer.nnodes") == std::string::npos);  // no finding names the node count

  // The same launch with a broken batch is found inside the sbatch script.
  std::string broken = emitted.out;
  const std::string key = "data.train_batch_size=256";
  broken.replace(broken.find(key), key.size(), "data.train_batch_size=7");
  const test::CliRun refused = test::check_script(broken, "qwen2.5-7b-instruct", "slurm_broken");
  CHECK(refused.exit_code == 1);
}

TEST_CASE("plan --emit verl on A100 + V100: the launch for the A100s alone runs bf16") {
  // The search runs fp16 on the whole cluster (V100 has no bf16); the verl launch runs on the
  // A100 group alone, whose best dtype is bf16.
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster",
                                      "2x8xA100-80GB+2x8xV100-32GB", "--workload", "rl", "--emit", "verl"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(run.out.find("dtype=bfloat16") != std::string::npos);
  CHECK(run.out.find("=float16") == std::string::npos);
}

TEST_CASE("plan --emit megatron for pretraining: check reads the torchrun launch, clean") {
  const test::CliRun emitted = test::run({"plan", "--model", "llama-3.1-8b", "--cluster", "2x8xH100-PCIE",
                                          "--workload", "pretrain", "--global-batch", "256", "--emit", "megatron"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const test::CliRun check = test::check_script(emitted.out, "llama-3.1-8b", "pretrain");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK_MESSAGE(check.out.find("0 error(s), 0 warning(s)") != std::string::npos, check.out);
}

}  // namespace meshplan
