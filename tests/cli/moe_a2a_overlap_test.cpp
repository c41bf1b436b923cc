// Megatron-core's EP all-to-all overlap (TransformerConfig.overlap_moe_expert_parallel_comm:
// Megatron-LM --overlap-moe-expert-parallel-comm, verl
// actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm): a setting of the
// strategy that estimate takes, plan tries and writes, and check reads from launches and refuses
// where TransformerConfig.__post_init__ refuses it (transformer_config.py at d98e8a64dd).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "verl/check_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kEstimate = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100",
                                            "--workload", "pretrain", "--ep", "16", "--micro-batch", "1",
                                            "--global-batch", "512", "--seq-len", "4096", "--json"};

std::vector<std::string> with_args(std::vector<std::string> base, const std::vector<std::string>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

double ep_comm_seconds(const test::CliRun& run) {
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out)["time"]["breakdown"]["ep_comm"].get<double>();
}

// Qwen3-30B-A3B (48 MoE layers, 128 experts) on one node of 8 under verl's Megatron backend, EP 8.
std::vector<std::string> qwen3_moe(const std::vector<std::string>& extra) {
  return test::with(test::with(test::megatron_baseline(),
                               {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                                "actor_rollout_ref.actor.megatron.expert_model_parallel_size=8",
                                "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"}),
                    extra);
}

const std::string kOverlapKey =
    "+actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm=True";

}  // namespace

TEST_CASE("estimate --moe-a2a-overlap: the EP all-to-all beyond the layers' compute stays exposed") {
  // EP 16 on two nodes of 8: half of every token's copies cross the NICs. With the overlap the
  // combined 1F1B schedule hides it behind the other micro-batch's layers
  // (parallel_comm_test.cpp works the formula: exposed = max(0, all-to-all - layers' compute)).
  const double plain = ep_comm_seconds(test::run(kEstimate));
  const double hidden = ep_comm_seconds(test::run(with_args(kEstimate, {"--moe-a2a-overlap"})));
  CHECK(plain > 0);
  CHECK(hidden < plain);
  // Megatron-core refuses it without expert parallelism and on PP without interleaving.
  const auto no_ep = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--moe-a2a-overlap"});
  CHECK(no_ep.exit_code == 2);
  CHECK(no_ep.err.find("[moe.a2a-overlap-ep]") != std::string::npos);
  CHECK(no_ep.err.find("overlap_moe_expert_parallel_comm is only supported with expert model parallelism") !=
        std::string::npos);
  const auto pp = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--ep", "4", "--pp", "2",
                             "--moe-a2a-overlap"});
  CHECK(pp.exit_code == 2);
  CHECK(pp.err.find("[moe.a2a-overlap-vpp]") != std::string::npos);
  const auto full = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--ep", "8",
                               "--recompute", "full", "--moe-a2a-overlap"});
  CHECK(full.exit_code == 2);
  CHECK(full.err.find("disable full recomputation when enabling overlap_moe_expert_parallel_comm") != std::string::npos);
}

TEST_CASE("verl: override_transformer_config.overlap_moe_expert_parallel_comm reaches the strategy and the rules") {
  std::string text;
  for (const std::string& line : qwen3_moe({kOverlapKey})) text += "'" + line + "'\n";
  VerlReadOptions options;
  options.config_name = "ppo_megatron_trainer";
  const auto launch = read_verl_launch(text, "overrides.txt", options);
  REQUIRE(launch.ok());
  CHECK(verl_to_strategy(launch->config).strategy.moe_a2a_overlap);

  const CheckOptions qwen3 = test::with_preset("qwen3-30b-a3b");
  // verl's legacy Megatron actor (0.6.1 .. 0.7.1; main@b178a3cd here) runs the combined 1F1B schedule
  // only with fused kernels (megatron_actor.py forward_step asserts them).
  const CheckReport unfused = test::check_lines(qwen3_moe({kOverlapKey}), "ppo_megatron_trainer", qwen3);
  const auto fused_hits = test::findings_of(unfused, "megatron.a2a-overlap-forward-step");
  REQUIRE(fused_hits.size() == 1);
  CHECK(fused_hits[0].message.find("use_fused_kernels must be enabled to return the schedule plan") == 0);
  const CheckReport fine = test::check_lines(
      qwen3_moe({kOverlapKey, "actor_rollout_ref.model.use_fused_kernels=True"}), "ppo_megatron_trainer", qwen3);
  CHECK(fine.errors == 0);
  // The Megatron engine of verl 0.8.0 on has no schedule-plan forward_step at all.
  CheckOptions newest = qwen3;
  newest.read.verl_version = "0.9.0";
  const CheckReport engine = test::check_lines(
      qwen3_moe({kOverlapKey, "actor_rollout_ref.model.use_fused_kernels=True"}), "ppo_megatron_trainer", newest);
  const auto engine_hits = test::findings_of(engine, "megatron.a2a-overlap-forward-step");
  REQUIRE(engine_hits.size() == 1);
  CHECK(engine_hits[0].message.find("unexpected keyword argument 'return_schedule_plan'") != std::string::npos);
  // PP 2 without interleaving: the workers stop in TransformerConfig.__post_init__.
  const CheckReport pp = test::check_lines(
      qwen3_moe({kOverlapKey, "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2",
                 "actor_rollout_ref.actor.megatron.expert_model_parallel_size=4"}),
      "ppo_megatron_trainer", qwen3);
  const auto hits = test::findings_of(pp, "model.moe.a2a-overlap-vpp");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("virtual_pipeline_model_parallel_size must be specified") != std::string::npos);
  // Full recomputation, which verl's Megatron examples often set.
  const CheckReport full = test::check_lines(
      qwen3_moe({kOverlapKey, "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full",
                 "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform",
                 "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=1"}),
      "ppo_megatron_trainer", qwen3);
  CHECK(test::findings_of(full, "model.moe.a2a-overlap-recompute").size() == 1);
}

TEST_CASE("Megatron-LM: --overlap-moe-expert-parallel-comm without EP, or on PP without interleaving, stops") {
  const auto check = [](const std::string& flags) {
    const std::string script = "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers 48 " + flags +
                               " --overlap-moe-expert-parallel-comm\n";
    auto report = check_launch({InputText{"pretrain.sh", script}}, CheckOptions{});
    REQUIRE(report.ok());
    return test::findings_of(*report, "megatron.a2a-overlap");
  };
  CHECK(check("--expert-model-parallel-size 8").empty());
  CHECK(check("--expert-model-parallel-size 4 --pipeline-model-parallel-size 2 "
              "--num-virtual-stages-per-pipeline-rank 2")
            .empty());
  CHECK(check("--expert-model-parallel-size $EP").empty());  // a value the shell computes is not judged
  const auto no_ep = check("--tensor-model-parallel-size 2");
  REQUIRE(no_ep.size() == 1);
  CHECK(no_ep[0].message.find("only supported with expert model parallelism") != std::string::npos);
  CHECK(check("--expert-model-parallel-size 4 --pipeline-model-parallel-size 2").size() == 1);
  CHECK(check("--expert-model-parallel-size 8 --recompute-granularity full").size() == 1);
}

TEST_CASE("plan tries the overlap on MoE layouts with EP, writes it, and check reads the launch back clean") {
  // Qwen3-30B-A3B pretraining on 2 x 8 H100 without pipelining: the winner runs EP 16 across both
  // nodes, where the exposed all-to-all would add most of a step (docs/tour/plan.md shows the
  // explanation).
  const std::vector<std::string> plan = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload",
                                         "pretrain", "--seq-len", "4096", "--global-batch", "1024", "--json"};
  const auto chosen = test::run(with_args(plan, {"--fix", "pp=1"}));
  REQUIRE_MESSAGE(chosen.exit_code == 0, chosen.err);
  const auto best = nlohmann::json::parse(chosen.out)["candidates"][0]["strategy"];
  CHECK(best["ep"].get<int>() > 1);
  CHECK(best["moe_a2a_overlap"] == true);
  const auto pinned = test::run(with_args(plan, {"--fix", "pp=1,a2a_overlap=0"}));
  REQUIRE(pinned.exit_code == 0);
  const auto plain = nlohmann::json::parse(pinned.out)["candidates"][0];
  CHECK(plain["strategy"]["moe_a2a_overlap"] == false);
  CHECK(plain["step_seconds"].get<double>() > nlohmann::json::parse(chosen.out)["candidates"][0]["step_seconds"].get<double>());
  // A dense model has nothing to overlap: the flag pinned on leaves no plan.
  const auto dense = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--workload",
                                "pretrain", "--fix", "a2a_overlap=1"});
  CHECK(dense.exit_code != 0);
  CHECK(dense.out.find("moe.a2a-overlap-ep") != std::string::npos);

  const auto megatron = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload",
                                   "pretrain", "--seq-len", "4096", "--global-batch", "1024", "--fix", "pp=1",
                                   "--emit", "megatron"});
  REQUIRE(megatron.exit_code == 0);
  CHECK(megatron.out.find("--overlap-moe-expert-parallel-comm") != std::string::npos);
  // An RL plan is a verl launch, whose trainer cannot run the overlap (megatron.a2a-overlap-forward-step):
  // the search leaves it off, and asking for it is refused.
  const std::vector<std::string> rl = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload",
                                       "rl", "--global-batch", "128", "--mini-batch", "32", "--model-path",
                                       "Qwen/Qwen3-30B-A3B", "--emit", "verl"};
  const auto asked = test::run(with_args(rl, {"--fix", "backend=megatron,a2a_overlap=1"}));
  CHECK(asked.exit_code == 2);
  CHECK(asked.err.find("verl's Megatron engine (0.8.0 on) cannot run the EP all-to-all overlap") != std::string::npos);
  const auto verl = test::run(with_args(rl, {"--fix", "backend=megatron"}));
  REQUIRE_MESSAGE(verl.exit_code == 0, verl.err);
  CHECK(verl.out.find(kOverlapKey) == std::string::npos);
}

}  // namespace meshplan
