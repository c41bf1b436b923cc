// Transformer Engine's op fuser for the routed experts (Megatron-core TransformerConfig.
// use_transformer_engine_op_fuser, from d0b3b775 / NeMo 26.06; verl
// actor.megatron.override_transformer_config.use_transformer_engine_op_fuser): a strategy setting
// that estimate takes and prints, check reads from launches, and both refuse under expert TP, as
// TEGroupedMLP._is_fused_impl_supported does.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"
#include "verl/check_support.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kGptOss = {"estimate",       "--model",        "gpt-oss-120b", "--cluster",
                                          "16x4xGB200",     "--workload",     "pretrain",     "--ep",
                                          "64",             "--micro-batch",  "4",            "--global-batch",
                                          "1280",           "--seq-len",      "4096",         "--json"};

double compute_seconds(const test::CliRun& run) {
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out)["time"]["breakdown"]["compute"].get<double>();
}

TEST_CASE("estimate --use-transformer-engine-op-fuser: gpt-oss's expert epilogue runs inside the fused ops") {
  // gpt-oss-120b on GB200, EP 64, micro-batch 4 (16,384 tokens), 5 micro-batches a step. Outside
  // the fused kernels Megatron-core reads or writes 6f + 4h = 28,800 elements of 2 B a routed row and
  // pass (compute_time.cpp expert_epilogue_elements), 4 rows a token, 36 layers, 3 passes (forward
  // and a backward twice as long), at GB200's 8e12 B/s:
  //   5 * 16384 * 4 * 28800 * 2 * 36 * 3 / 8e12 = 0.254804 s.
  const test::CliRun unfused = test::run(kGptOss);
  std::vector<std::string> fused_args = kGptOss;
  fused_args.push_back("--use-transformer-engine-op-fuser");
  const test::CliRun fused = test::run(fused_args);
  CHECK(compute_seconds(unfused) - compute_seconds(fused) == test::approx(0.254804).epsilon(1e-4));
  CHECK(nlohmann::json::parse(fused.out)["strategy"]["te_op_fuser"] == true);
  CHECK(nlohmann::json::parse(unfused.out)["strategy"]["te_op_fuser"] == false);

  // Under expert TP Megatron-core asserts "Fused GroupedMLP is not supported for this configuration".
  std::vector<std::string> etp = fused_args;
  etp[8] = "32";
  etp.insert(etp.end(), {"--etp", "2"});
  const test::CliRun refused = test::run(etp);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("[moe.op-fuser-etp]: Fused GroupedMLP is not supported for this configuration") !=
        std::string::npos);
}

TEST_CASE("check reads the op fuser from verl's override_transformer_config and refuses it under expert TP") {
  const std::string fuser =
      "+actor_rollout_ref.actor.megatron.override_transformer_config.use_transformer_engine_op_fuser=True";
  const auto qwen3 = [&](const std::string& etp) {
    return test::with(test::megatron_baseline(), {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                                                  "actor_rollout_ref.actor.megatron.expert_model_parallel_size=4",
                                                  "actor_rollout_ref.actor.megatron.expert_tensor_parallel_size=" + etp,
                                                  "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1", fuser});
  };
  const CheckOptions preset = test::with_preset("qwen3-30b-a3b");
  CHECK(test::findings_of(test::check_lines(qwen3("1"), "ppo_megatron_trainer", preset), "model.moe.op-fuser-etp")
            .empty());
  const CheckReport report = test::check_lines(qwen3("2"), "ppo_megatron_trainer", preset);
  const auto hits = test::findings_of(report, "model.moe.op-fuser-etp");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("Fused GroupedMLP is not supported for this configuration") == 0);
  // The field is Megatron-core's from 0.18.2; an older one ignores the key: a warning naming it.
  CHECK(hits[0].severity == Severity::warning);
  CHECK(hits[0].message.find("with Megatron-core 0.18.2 or later") != std::string::npos);
}

}  // namespace
}  // namespace meshplan
