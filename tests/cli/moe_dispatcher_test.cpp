// Megatron-core's MoE token dispatcher (TransformerConfig.moe_token_dispatcher_type and
// moe_flex_dispatcher_num_sms; Megatron-LM --moe-token-dispatcher-type, verl
// actor.megatron.override_transformer_config.moe_token_dispatcher_type): a setting of the job that
// estimate and plan take, check reads from launches, and the emitters write.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "approx.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"
#include "verl/check_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {
namespace {

// Qwen3-30B-A3B on two nodes of 8 H100, EP 16: half of every token's experts are on the other node.
const std::vector<std::string> kEstimate = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100",
                                            "--workload", "pretrain", "--ep", "16", "--micro-batch", "1",
                                            "--global-batch", "512", "--seq-len", "4096", "--json"};

nlohmann::json estimate(const std::vector<std::string>& extra) {
  std::vector<std::string> args = kEstimate;
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out);
}

}  // namespace

TEST_CASE("estimate --moe-token-dispatcher-type flex: a token crosses the NICs once per node, not once per expert") {
  const auto alltoall = estimate({});
  const auto flex = estimate({"--moe-token-dispatcher-type", "flex"});
  CHECK(alltoall["strategy"]["moe_token_dispatcher_type"] == "alltoall");
  CHECK(flex["strategy"]["moe_token_dispatcher_type"] == "flex");
  // 4 rows of a token's 8 cross the NICs under alltoall, about one under flex
  // (moe_dispatch_test.cpp: 1.342 ms against 0.3346 ms per dispatch, on links without latency or
  // efficiency losses; here the catalog's H100 links: 0.2439 against 0.2493).
  const double a = alltoall["time"]["breakdown"]["ep_comm"].get<double>();
  const double f = flex["time"]["breakdown"]["ep_comm"].get<double>();
  CHECK(f / a == test::approx(0.3346 / 1.342).epsilon(0.03));
  // allgather (Megatron-core's default): NCCL's two-level all-gather of the group's 16 x 4096 tokens
  // sends each node's tokens through the NICs once, 1 token in 8 a GPU, but moves 14/8 of them
  // over NVLink per token: between flex and alltoall here (moe_dispatch_test.cpp).
  const double g = estimate({"--moe-token-dispatcher-type", "allgather"})["time"]["breakdown"]["ep_comm"].get<double>();
  CHECK(f < g);
  CHECK(g < a);
  // Few SMs make the NVLink forwarding the slower stage.
  const double few = estimate({"--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-num-sms", "4"})["time"]
                         ["breakdown"]["ep_comm"].get<double>();
  CHECK(few > f);
  std::vector<std::string> bad_args = kEstimate;
  bad_args.insert(bad_args.end(), {"--moe-token-dispatcher-type", "deepep"});
  const auto bad = test::run(bad_args);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--moe-token-dispatcher-type") != std::string::npos);
  std::vector<std::string> no_sms = kEstimate;
  no_sms.insert(no_sms.end(), {"--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-num-sms", "0"});
  const auto zero = test::run(no_sms);
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("--moe-flex-dispatcher-num-sms") != std::string::npos);
}

TEST_CASE("verl: override_transformer_config.moe_token_dispatcher_type and its SMs reach the strategy") {
  const auto strategy_of = [](const std::vector<std::string>& extra) {
    std::string text;
    for (const std::string& line :
         test::with(test::megatron_baseline(), test::with({"actor_rollout_ref.actor.megatron.expert_model_parallel_size=8"},
                                                          extra))) {
      text += "'" + line + "'\n";
    }
    VerlReadOptions options;
    options.config_name = "ppo_megatron_trainer";
    const auto launch = read_verl_launch(text, "overrides.txt", options);
    REQUIRE(launch.ok());
    return verl_to_strategy(launch->config).strategy;
  };
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(strategy_of({}).moe_dispatcher == MoeDispatcher::alltoall);  // verl's config_converter.py default
  const Strategy flex = strategy_of({t + "moe_token_dispatcher_type=flex", t + "moe_enable_deepep=True"});
  CHECK(flex.moe_dispatcher == MoeDispatcher::flex);
  CHECK(flex.moe_dispatcher_sms == 0);
  CHECK(strategy_of({t + "moe_token_dispatcher_type=flex", t + "moe_hybridep_num_sms=32"}).moe_dispatcher_sms == 32);
  CHECK(strategy_of({t + "moe_token_dispatcher_type=alltoall"}).moe_dispatcher == MoeDispatcher::alltoall);
  // No GPU has a million SMs: such a count is not taken (DeepEP's default stays).
  CHECK(strategy_of({t + "moe_token_dispatcher_type=flex", t + "moe_deepep_num_sms=1000000"}).moe_dispatcher_sms == 0);
}

TEST_CASE("a flex dispatcher given more SMs than the GPU has cannot launch: estimate exits 2, check errs") {
  // DeepEP launches its dispatch and combine kernels as cooperative grids of one block per SM
  // (v1.2.1 csrc/kernels/launch.cuh): 96 SMs on an H20's 78 fail, 64 run.
  const std::vector<std::string> estimate = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH20",
                                             "--workload", "pretrain", "--ep", "16", "--seq-len", "4096",
                                             "--global-batch", "256", "--recompute", "full",
                                             "--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-num-sms"};
  std::vector<std::string> over = estimate;
  over.push_back("96");
  const test::CliRun refused = test::run(over);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("invalid strategy [moe.flex-sms-gpu]: the flex dispatcher's 96 SMs exceed H20-96GB's 78") !=
        std::string::npos);
  CHECK(refused.err.find("valid: at most 78 SMs") != std::string::npos);
  std::vector<std::string> within = estimate;
  within.push_back("64");
  CHECK(test::run(within).exit_code == 0);

  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  const auto launch = test::with(test::megatron_baseline(),
                                 {"actor_rollout_ref.actor.megatron.expert_model_parallel_size=8",
                                  t + "moe_token_dispatcher_type=flex", t + "moe_deepep_num_sms=96"});
  CheckOptions options = test::with_preset("qwen3-30b-a3b");
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H20");
  const auto hits = test::findings_of(test::check_lines(launch, "ppo_megatron_trainer", options), "gpu.moe.flex-sms-gpu");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::error);
  CHECK(hits[0].message.find("the flex dispatcher's 96 SMs exceed H20-96GB's 78") == 0);
  CHECK(hits[0].message.find("would fail at the first MoE layer's token dispatch") != std::string::npos);
  // HybridEP refuses it by an assert, which a build with NDEBUG drops: a warning naming that.
  const auto hybridep = test::with(test::megatron_baseline(),
                                   {"actor_rollout_ref.actor.megatron.expert_model_parallel_size=8",
                                    t + "moe_token_dispatcher_type=flex", t + "moe_flex_dispatcher_backend=hybridep",
                                    t + "moe_flex_dispatcher_num_sms=96"});
  const auto softened =
      test::findings_of(test::check_lines(hybridep, "ppo_megatron_trainer", options), "gpu.moe.flex-sms-gpu");
  REQUIRE(softened.size() == 1);
  CHECK(softened[0].severity == Severity::warning);
  CHECK(softened[0].message.find("the launch runs HybridEP, whose refusal is an assert") != std::string::npos);
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H100");  // 132 SMs
  CHECK(test::findings_of(test::check_lines(launch, "ppo_megatron_trainer", options), "gpu.moe.flex-sms-gpu").empty());
}

TEST_CASE("plan --moe-token-dispatcher-type flex: every candidate runs it, and the launches say so") {
  const std::vector<std::string> plan = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload",
                                         "pretrain", "--seq-len", "4096", "--global-batch", "512",
                                         "--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-num-sms", "24"};
  std::vector<std::string> json = plan;
  json.push_back("--json");
  const auto chosen = test::run(json);
  REQUIRE_MESSAGE(chosen.exit_code == 0, chosen.err);
  const nlohmann::json chosen_json = nlohmann::json::parse(chosen.out);
  for (const auto& candidate : chosen_json["candidates"]) {
    CHECK(candidate["strategy"]["moe_token_dispatcher_type"] == "flex");
  }
  std::vector<std::string> emit = plan;
  emit.insert(emit.end(), {"--emit", "megatron"});
  const auto megatron = test::run(emit);
  REQUIRE_MESSAGE(megatron.exit_code == 0, megatron.err);
  CHECK(megatron.out.find("--moe-token-dispatcher-type flex") != std::string::npos);
  CHECK(megatron.out.find("--moe-flex-dispatcher-num-sms 24") != std::string::npos);
  // Without the flag, Megatron-LM's own default (allgather) is not left to chance.
  const auto plain = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload", "pretrain",
                                "--seq-len", "4096", "--global-batch", "512", "--emit", "megatron"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("--moe-token-dispatcher-type alltoall") != std::string::npos);

  const auto verl = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload", "rl",
                               "--fix", "backend=megatron", "--moe-token-dispatcher-type", "flex", "--emit", "verl"});
  REQUIRE_MESSAGE(verl.exit_code == 0, verl.err);
  CHECK(verl.out.find("override_transformer_config.moe_token_dispatcher_type=flex") != std::string::npos);
  const test::CliRun back = test::check_script(verl.out, "qwen3-30b-a3b", "flex_dispatcher");
  CHECK_MESSAGE(back.exit_code == 0, back.out);
  CHECK(back.out.find("0 error(s)") != std::string::npos);

  // plan --from that launch keeps its dispatcher in every candidate; the changes it writes to the
  // launch leave the dispatcher's line alone.
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_flex_from_" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << verl.out;
  const auto from = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--json", "--top", "2"});
  const auto rewritten = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--emit", "verl"});
  std::filesystem::remove(script);
  REQUIRE_MESSAGE(from.exit_code == 0, from.err);
  const nlohmann::json from_json = nlohmann::json::parse(from.out);
  for (const auto& candidate : from_json["candidates"]) {
    CHECK(candidate["strategy"]["moe_token_dispatcher_type"] == "flex");
  }
  REQUIRE_MESSAGE(rewritten.exit_code == 0, rewritten.err);
  CHECK(rewritten.out.find("moe_token_dispatcher_type") == std::string::npos);
  CHECK(rewritten.out.find("the best plan as changes to the script's overrides") != std::string::npos);
}

}  // namespace meshplan
