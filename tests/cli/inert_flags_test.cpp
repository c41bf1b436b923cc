// estimate refuses a flag that would change nothing for the configuration it is given with
// (cli/inert_flags.cpp), naming the condition under which it acts; the same flag within its
// condition is taken. Every rule of the table has a case here.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "cli/inert_flags.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

struct Case {
  std::vector<std::string> inert;  ///< the flag where it does nothing
  std::vector<std::string> acts;   ///< the same flag where it acts
};

test::CliRun estimate(const std::string& model, std::vector<std::string> extra) {
  // Two H100 nodes unless the case names its cluster (NVFP4 needs Blackwell).
  const bool own_cluster = std::find(extra.begin(), extra.end(), "--cluster") != extra.end();
  std::vector<std::string> args = {"estimate", "--model", model};
  if (!own_cluster) args.insert(args.end(), {"--cluster", "2x8xH100"});
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run(args);
}

TEST_CASE("each inert-flag rule: refused outside its condition, taken within it") {
  const std::string dense = "qwen2.5-7b-instruct", moe = "qwen3-30b-a3b", vl = "qwen2.5-vl-7b-instruct";
  const std::vector<std::pair<std::string, std::pair<std::string, Case>>> cases = {
      {"--ulysses", {dense, {{"--ulysses", "2"}, {"--fsdp", "--ulysses", "2"}}}},
      {"--fsdp-shard-size", {dense, {{"--fsdp-shard-size", "8"}, {"--fsdp", "--fsdp-shard-size", "8"}}}},
      {"--sequence-parallel", {dense, {{"--sequence-parallel"}, {"--tp", "2", "--sequence-parallel"}}}},
      {"--tp-comm-overlap", {dense, {{"--fsdp", "--tp-comm-overlap"}, {"--tp", "2", "--tp-comm-overlap"}}}},
      {"--no-distributed-optimizer", {dense, {{"--fsdp", "--no-distributed-optimizer"}, {"--no-distributed-optimizer"}}}},
      {"--no-grad-reduce-in-fp32", {dense, {{"--fsdp", "--no-grad-reduce-in-fp32"}, {"--no-grad-reduce-in-fp32"}}}},
      {"--fp8-param-gather", {dense, {{"--fp8-param-gather"}, {"--dtype", "fp8", "--fp8-param-gather"}}}},
      {"--fp4-param-gather",
       {dense, {{"--cluster", "2x8xB200", "--fp4-param-gather"},
                {"--cluster", "2x8xB200", "--dtype", "fp4", "--fp4-param-gather"}}}},
      {"--fp8-params", {dense, {{"--fp8-params"}, {"--dtype", "fp8", "--fp8-params"}}}},
      {"--fp8-recipe", {dense, {{"--fp8-recipe", "tensorwise"}, {"--dtype", "fp8", "--fp8-recipe", "tensorwise"}}}},
      {"--first-last-layers-bf16",
       {dense, {{"--first-last-layers-bf16"},
                {"--dtype", "fp8", "--fp8-recipe", "tensorwise", "--first-last-layers-bf16"}}}},
      {"--fp8-dot-product-attention",
       {dense, {{"--fp8-dot-product-attention"}, {"--dtype", "fp8", "--fp8-dot-product-attention"}}}},
      {"--fp8-output-proj",
       {dense, {{"--cluster", "2x8xB200", "--fp8-output-proj"},
                {"--cluster", "2x8xB200", "--dtype", "fp8", "--fp8-recipe", "mxfp8", "--fp8-output-proj"}}}},
      {"--activation-func-fp8-input-store",
       {dense, {{"--fsdp", "--activation-func-fp8-input-store"}, {"--activation-func-fp8-input-store"}}}},
      {"--first-stage-layers", {dense, {{"--first-stage-layers", "13"}, {"--pp", "2", "--first-stage-layers", "13"}}}},
      {"--last-stage-layers", {dense, {{"--last-stage-layers", "13"}, {"--pp", "2", "--last-stage-layers", "13"}}}},
      {"--account-for-embedding-in-pipeline-split",
       {dense, {{"--account-for-embedding-in-pipeline-split"},
                {"--pp", "2", "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"}}}},
      {"--account-for-loss-in-pipeline-split",
       {dense, {{"--account-for-loss-in-pipeline-split"},
                {"--pp", "2", "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"}}}},
      {"--recompute-method",
       {dense, {{"--recompute-method", "block"}, {"--recompute", "full", "--recompute-method", "block",
                                                   "--recompute-num-layers", "2"}}}},
      {"--recompute-num-layers",
       {dense, {{"--recompute-num-layers", "2"}, {"--recompute", "full", "--recompute-num-layers", "2"}}}},
      {"--optimizer-offload-fraction",
       {dense, {{"--optimizer-offload-fraction", "0.5"}, {"--offload", "optimizer", "--optimizer-offload-fraction", "0.5"}}}},
      {"--optimizer-cpu-offload",
       {dense, {{"--fsdp", "--workload", "rl", "--optimizer-cpu-offload"}, {"--workload", "rl", "--optimizer-cpu-offload"}}}},
      {"--ref-offload", {dense, {{"--fsdp", "--workload", "rl", "--ref-offload"}, {"--workload", "rl", "--ref-offload"}}}},
      {"--ref-model-dtype",
       {dense, {{"--workload", "rl", "--ref-model-dtype", "bf16"}, {"--fsdp", "--workload", "rl", "--ref-model-dtype", "bf16"}}}},
      {"--entropy-chunking",
       {dense, {{"--workload", "rl", "--entropy-chunking"}, {"--fsdp", "--workload", "rl", "--entropy-chunking"}}}},
      {"--entropy-chunk",
       {dense, {{"--fsdp", "--workload", "rl", "--entropy-chunk", "1024"},
                {"--fsdp", "--workload", "rl", "--entropy-chunking", "--entropy-chunk", "1024"}}}},
      {"--no-overlap-grad-reduce", {dense, {{"--fsdp", "--no-overlap-grad-reduce"}, {"--no-overlap-grad-reduce"}}}},
      {"--no-overlap-param-gather", {dense, {{"--fsdp", "--no-overlap-param-gather"}, {"--no-overlap-param-gather"}}}},
      {"--ppo-max-token-len",
       {dense, {{"--workload", "rl", "--ppo-max-token-len", "8192"},
                {"--workload", "rl", "--dynamic-bsz", "--ppo-max-token-len", "8192"}}}},
      {"--log-prob-max-token-len",
       {dense, {{"--workload", "rl", "--log-prob-max-token-len", "8192"},
                {"--workload", "rl", "--dynamic-bsz", "--log-prob-max-token-len", "8192"}}}},
      {"--ppo-micro-batch",
       {dense, {{"--workload", "rl", "--dynamic-bsz", "--ppo-micro-batch", "2"}, {"--workload", "rl", "--ppo-micro-batch", "2"}}}},
      {"--log-prob-micro-batch",
       {dense, {{"--workload", "rl", "--dynamic-bsz", "--log-prob-micro-batch", "2"},
                {"--workload", "rl", "--log-prob-micro-batch", "2"}}}},
      {"--lora-targets", {dense, {{"--lora-targets", "q_proj"}, {"--lora-rank", "8", "--lora-targets", "q_proj"}}}},
      {"--images-per-sample", {dense, {{"--images-per-sample", "2"}, {}}}},
      {"--image-pixels", {dense, {{"--image-pixels", "200704"}, {}}}},
      {"--moe-capacity-factor", {dense, {{"--moe-capacity-factor", "2"}, {}}}},
      {"--moe-token-dispatcher-type", {dense, {{"--moe-token-dispatcher-type", "flex"}, {}}}},
      {"--moe-dropless-imbalance", {dense, {{"--moe-dropless-imbalance"}, {}}}},
      {"--moe-flex-dispatcher-num-sms", {moe, {{"--ep", "8", "--moe-flex-dispatcher-num-sms", "20"}, {}}}},
      {"--use-transformer-engine-op-fuser", {dense, {{"--use-transformer-engine-op-fuser"}, {}}}},
  };
  // Where the model decides, the acting case is the same flags on the model it applies to.
  const std::vector<std::vector<std::string>> model_acts = {
      {"--images-per-sample", "2"}, {"--image-pixels", "200704"}, {"--ep", "8", "--moe-capacity-factor", "2"},
      {"--ep", "8", "--moe-token-dispatcher-type", "flex"}, {"--ep", "8", "--moe-dropless-imbalance"},
      {"--ep", "8", "--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-num-sms", "20"},
      {"--ep", "8", "--use-transformer-engine-op-fuser"}};
  std::set<std::string> covered;
  std::size_t next_model_act = 0;
  for (const auto& [flag, model_and_case] : cases) {
    const auto& [model, c] = model_and_case;
    covered.insert(flag);
    const test::CliRun inert = estimate(model, c.inert);
    CHECK_MESSAGE(inert.exit_code == 2, flag);
    CHECK_MESSAGE(inert.err.find(flag + ": acts only ") != std::string::npos, inert.err);
    std::string acting_model = model;
    std::vector<std::string> acting = c.acts;
    if (acting.empty()) {
      acting_model = flag.rfind("--image", 0) == 0 ? vl : moe;
      acting = model_acts.at(next_model_act++);
    }
    const test::CliRun acts = estimate(acting_model, acting);
    CHECK_MESSAGE(acts.exit_code != 2, flag, ": ", acts.err);
  }
  for (const InertFlagRule& rule : inert_flag_rules()) CHECK_MESSAGE(covered.count(rule.flag) == 1, rule.flag);
}

// verl pages the optimizer states out between phases (megatron.optimizer_offload, --offload optimizer)
// and, apart from that, may run Megatron's CPU optimizer (optim.override_optimizer_config.
// optimizer_cpu_offload); optimizer_offload_fraction is the CPU optimizer's. Qwen2.5-7B on 16 H100
// at TP 2 (DP 8): 7.6e9 params / 2 / 8 x 12 B (fp32 master + Adam m, v) = 5.3 GiB of optimizer
// states a GPU in the update, half of it at fraction 0.5.
TEST_CASE("RL: --optimizer-offload-fraction acts only with --optimizer-cpu-offload") {
  const std::vector<std::string> rl = {"--workload", "rl", "--tp", "2", "--offload", "optimizer", "--json"};
  std::vector<std::string> fraction_alone = rl;
  for (const char* extra : {"--optimizer-offload-fraction", "0.5"}) fraction_alone.emplace_back(extra);
  const test::CliRun refused = estimate("qwen2.5-7b-instruct", fraction_alone);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--optimizer-offload-fraction: with --workload rl acts only with --optimizer-cpu-offload") !=
        std::string::npos);

  const auto update_optimizer_gib = [](const std::vector<std::string>& extra) {
    const test::CliRun run = estimate("qwen2.5-7b-instruct", extra);
    REQUIRE_MESSAGE(run.exit_code != 2, run.err);
    const auto json = nlohmann::json::parse(run.out);
    for (const auto& phase : json["memory"]["phases"]) {
      if (phase["name"] != "update_actor") continue;
      return phase["components"].value("optimizer_states", 0.0) / (1024.0 * 1024.0 * 1024.0);
    }
    FAIL("no update_actor phase");
    return -1.0;
  };
  const double paged = update_optimizer_gib(rl);
  std::vector<std::string> half_on_cpu = fraction_alone;
  half_on_cpu.emplace_back("--optimizer-cpu-offload");
  const double half = update_optimizer_gib(half_on_cpu);
  CHECK(paged == test::approx(7.616e9 / 16 * 12 / (1024.0 * 1024.0 * 1024.0)).epsilon(0.01));
  CHECK(half == test::approx(paged / 2).epsilon(0.01));

  const test::CliRun training = estimate("qwen2.5-7b-instruct", {"--optimizer-cpu-offload"});
  CHECK(training.exit_code == 2);
  CHECK(training.err.find("--optimizer-cpu-offload: applies with --workload rl only") != std::string::npos);
}

// verl's FSDP config pages parameters and optimizer states (fsdp_config.param_offload,
// optimizer_offload) and has no gradient offload; the Megatron config has all three.
TEST_CASE("RL: --offload grads is refused with the FSDP backend, taken with Megatron") {
  const test::CliRun fsdp = estimate("qwen2.5-7b-instruct", {"--workload", "rl", "--fsdp", "--offload", "params,grads"});
  CHECK(fsdp.exit_code == 2);
  CHECK(fsdp.err.find("--offload: grads: verl's FSDP workers keep no gradients") != std::string::npos);
  const test::CliRun megatron = estimate("qwen2.5-7b-instruct", {"--workload", "rl", "--offload", "params,grads"});
  CHECK_MESSAGE(megatron.exit_code != 2, megatron.err);
  const test::CliRun training = estimate("qwen2.5-7b-instruct", {"--workload", "sft", "--fsdp", "--offload", "params,grads"});
  CHECK_MESSAGE(training.exit_code != 2, training.err);
}

TEST_CASE("plan refuses the model-scoped flags on a model they do not apply to") {
  const std::vector<std::string> plan = {"plan", "--model", "qwen2.5-0.5b", "--cluster", "1x8xH100", "--top", "1"};
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--moe-token-dispatcher-type", "flex"}, {"--moe-dropless-imbalance"},
        {"--image-pixels", "200704"}}) {
    std::vector<std::string> args = plan;
    args.insert(args.end(), extra.begin(), extra.end());
    const test::CliRun run = test::run(args);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(extra.front() + ": acts only for a ") != std::string::npos);
  }
  const test::CliRun moe = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--top", "1",
                                      "--moe-token-dispatcher-type", "flex"});
  CHECK_MESSAGE(moe.exit_code != 2, moe.err);
}

}  // namespace
}  // namespace meshplan
