// Engines on GPUs of their own (--rollout-gpus), generating ahead of the trainer
// (--off-policy-steps): verl recipe/one_step_off_policy, NeMo RL async GRPO.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"
#include "cli/rollout_placement.hpp"
#include "verl/check.hpp"

namespace meshplan {
namespace {

// Qwen3-30B-A3B as NeMo RL v0.6's grpo-qwen3-30ba3b-4n8g-async-1off.yaml runs it: 4 nodes of 8
// H100, 2 of them generating (vLLM TP 2), the trainer on the other 2 (PP 2, EP 8).
std::vector<std::string> qwen30b(const std::vector<std::string>& more) {
  std::vector<std::string> args = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100", "--workload", "rl",
                                   "--pp", "2", "--ep", "8", "--rollout-tp", "2", "--global-batch", "64",
                                   "--rollout-n", "32", "--mini-batch", "16", "--prompt-len", "110",
                                   "--response-len", "3986", "--mean-prompt-len", "110", "--mean-response-len", "3201",
                                   "--gpu-memory-utilization", "0.8", "--dynamic-bsz", "--ppo-max-token-len", "4096",
                                   "--log-prob-max-token-len", "16384", "--json"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

double phase_seconds(const nlohmann::json& time, const std::string& name) {
  for (const auto& phase : time["phases"]) {
    if (phase["name"] == name) return phase["seconds"].get<double>();
  }
  return -1;
}

}  // namespace

TEST_CASE("engines on GPUs of their own: the trainer gets the rest, the step overlaps when off-policy") {
  const auto on_policy = test::run(qwen30b({"--rollout-gpus", "16"}));
  const auto one_off = test::run(qwen30b({"--rollout-gpus", "16", "--off-policy-steps", "1"}));
  REQUIRE_MESSAGE(on_policy.exit_code == 0, on_policy.err);
  REQUIRE_MESSAGE(one_off.exit_code == 0, one_off.err);
  const nlohmann::json sync = nlohmann::json::parse(on_policy.out);
  const nlohmann::json off = nlohmann::json::parse(one_off.out);
  // DP from the trainer's 16 GPUs: 16 / (TP 1 x PP 2) = 8.
  CHECK(off["strategy"]["dp"] == 8);
  CHECK(off["workload"]["rl"]["rollout_gpus"] == 16);
  // The trainer's GPUs hold no engine: no rollout weights, KV or CUDA graphs in its phases.
  for (const auto& phase : off["memory"]["phases"]) {
    if (phase["name"] == "rollout") continue;
    CHECK(phase["components"].value("rollout_weights", 0.0) == 0.0);
    CHECK(phase["components"].value("kv_cache", 0.0) == 0.0);
  }
  // The rollout GPUs hold only the engine.
  for (const auto& phase : off["memory"]["phases"]) {
    if (phase["name"] != "rollout") continue;
    CHECK(phase["components"].value("optimizer_states", 0.0) == 0.0);
    CHECK(phase["components"].value("kv_cache", 0.0) > 0.0);
  }
  // Waiting for each generation the step is gen + log-probs + update; one step off it is the
  // slower of generation and training plus the weight broadcast (rl_step_time_test works it by hand).
  const auto trainer_of = [&](const nlohmann::json& json) {
    return phase_seconds(json["time"], "timing_s/old_log_prob") + phase_seconds(json["time"], "timing_s/ref") +
           phase_seconds(json["time"], "timing_s/update_actor");
  };
  CHECK(sync["time"]["step_seconds"].get<double>() ==
        test::approx(phase_seconds(sync["time"], "timing_s/gen") + trainer_of(sync)));
  // One step off, verl's one-step-off trainer logs timing_s/gen as its wait for the batch and the
  // weight broadcast as timing_s/sync_rollout_weights (one_step_off_policy/ray_trainer.py
  // _fit_generate): the phases add up to the step. The broadcast is 33.2 s of this 61.07 GB MoE
  // model at verl's measured 1.84 GB/s; this step is trainer-bound (generation 142.5 s, the
  // trainer's log-probs and update 155 s), so the trainer never waits for a batch.
  const double wait = phase_seconds(off["time"], "timing_s/gen");
  const double broadcast = phase_seconds(off["time"], "timing_s/sync_rollout_weights");
  const double off_step = off["time"]["step_seconds"].get<double>();
  CHECK(broadcast == test::approx(61.07e9 / 1.84e9).epsilon(0.01));
  CHECK(wait == 0.0);
  CHECK(off_step == test::approx(wait + broadcast + trainer_of(off)));
  CHECK(off_step < sync["time"]["step_seconds"].get<double>());
  CHECK(phase_seconds(off["time"], "timing_s/update_weights") < 0);  // the V1 trainer's name: not this one
}

TEST_CASE("--weight-broadcast: verl's checkpoint engine at its measured rate, or a pipelined broadcast at the link's") {
  const auto verl = test::run(qwen30b({"--rollout-gpus", "16"}));
  const auto pipelined = test::run(qwen30b({"--rollout-gpus", "16", "--weight-broadcast", "pipelined"}));
  REQUIRE_MESSAGE(verl.exit_code == 0, verl.err);
  REQUIRE_MESSAGE(pipelined.exit_code == 0, pipelined.err);
  // Qwen3-30B-A3B, 30.53e9 params = 61.07 GB in bf16: verl's checkpoint engine sends it at the
  // 1.84 GB/s verl measured for MoE models (33.2 s), the pipelined broadcast at the H100 node's
  // network path (the 400 Gb/s NIC at the fitted 0.92: 46 GB/s, 1.3 s). On-policy the step holds
  // the broadcast whole, so the two steps differ by 33.2 - 1.3 = 31.9 s.
  const double difference = nlohmann::json::parse(verl.out)["time"]["step_seconds"].get<double>() -
                            nlohmann::json::parse(pipelined.out)["time"]["step_seconds"].get<double>();
  CHECK(difference == test::approx(31.9).epsilon(0.02));
  CHECK(nlohmann::json::parse(verl.out)["workload"]["rl"]["weight_broadcast"] == "checkpoint-engine");
  CHECK(nlohmann::json::parse(pipelined.out)["workload"]["rl"]["weight_broadcast"] == "pipelined");
  const auto colocated = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100", "--workload", "rl",
                                    "--weight-broadcast", "pipelined"});
  CHECK(colocated.exit_code == 2);
  CHECK(colocated.err.find("--weight-broadcast") != std::string::npos);
  CHECK(test::run(qwen30b({"--rollout-gpus", "16", "--weight-broadcast", "fast"})).exit_code == 2);
}

TEST_CASE("--rollout-gpus and --off-policy-steps: bad combinations exit 2 naming the flag") {
  // 10 of 4 x 8 GPUs: neither whole hosts nor the same GPUs of every host (12 would be 3 of each).
  const auto partial_node = test::run(qwen30b({"--rollout-gpus", "10"}));
  CHECK(partial_node.exit_code == 2);
  CHECK(partial_node.err.find("--rollout-gpus: 10 is neither whole hosts nor the same GPUs of every host") !=
        std::string::npos);
  const auto everything = test::run(qwen30b({"--rollout-gpus", "32"}));
  CHECK(everything.exit_code == 2);
  const auto no_gpus = test::run(qwen30b({"--off-policy-steps", "1"}));
  CHECK(no_gpus.exit_code == 2);
  CHECK(no_gpus.err.find("--off-policy-steps") != std::string::npos);
  const auto in_flight = test::run(qwen30b({"--rollout-gpus", "16", "--in-flight-weight-updates"}));
  CHECK(in_flight.exit_code == 2);
  CHECK(in_flight.err.find("--in-flight-weight-updates") != std::string::npos);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("plan --rollout-gpus: the search runs on the trainer's GPUs, the job counts all of them") {
  const std::vector<std::string> args = {
      "plan", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100", "--workload", "rl", "--rollout-gpus", "16",
      "--off-policy-steps", "1", "--global-batch", "64", "--rollout-n", "32", "--mini-batch", "16", "--prompt-len", "110",
      "--response-len", "3986", "--mean-prompt-len", "110", "--mean-response-len", "3201", "--top", "3", "--json"};
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json plan = nlohmann::json::parse(run.out);
  REQUIRE(!plan["candidates"].empty());
  for (const auto& candidate : plan["candidates"]) {
    const auto& s = candidate["strategy"];
    // The trainer's 16 GPUs: TP x PP x CP x DP = 16; the job: 32.
    CHECK(s["tp"].get<int>() * s["pp"].get<int>() * s["cp"].get<int>() * s["dp"].get<int>() == 16);
    CHECK(candidate["gpus"] == 32);
    CHECK(s["rl"]["rollout_gpus"] == 16);
    CHECK(s["rl"]["off_policy_steps"] == 1);
  }
  // --emit verl writes verl's one-step-off trainer: its entry point and config, hybrid engine off,
  // the trainer on 2 nodes, the engines on a rollout pool of 2 x 8; check composes it cleanly.
  std::vector<std::string> emit(args.begin(), args.end() - 1);  // without --json
  emit.insert(emit.end(), {"--emit", "verl"});
  const auto emitted = test::run(emit);
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("python3 -m verl.experimental.one_step_off_policy.main_ppo \\") != std::string::npos);
  CHECK(emitted.out.find("--config-name=one_step_off_ppo_megatron_trainer") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.hybrid_engine=False \\") != std::string::npos);
  CHECK(emitted.out.find("trainer.nnodes=2 \\") != std::string::npos);
  CHECK(emitted.out.find("rollout.nnodes=2 \\") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.free_cache_engine=False \\") != std::string::npos);
  CheckOptions options;
  options.cluster_gpus = 32;
  const auto report = check_launch({InputText{"emitted.sh", emitted.out}}, options);
  REQUIRE(report.ok());
  CHECK(report->config_name == "one_step_off_ppo_megatron_trainer");
  for (const Finding& f : report->findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);
  // The Slurm job holds the trainer's 2 nodes and the pool's 2.
  std::vector<std::string> slurm = emit;
  slurm.back() = "slurm";
  const auto sbatch = test::run(slurm);
  REQUIRE_MESSAGE(sbatch.exit_code == 0, sbatch.err);
  CHECK(sbatch.out.find("#SBATCH --nodes=4\n") != std::string::npos);
  CHECK(sbatch.out.find("python3 -m verl.experimental.one_step_off_policy.main_ppo") != std::string::npos);
  // Two steps ahead is not verl's one-step-off trainer: nothing is emitted.
  std::vector<std::string> two_steps = emit;
  *(std::find(two_steps.begin(), two_steps.end(), "--off-policy-steps") + 1) = "2";
  const auto refused = test::run(two_steps);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--off-policy-steps 1") != std::string::npos);
}

// Engines on 2 of each node's 8 GPUs, as verl's one-step-off recipes place them: the trainer on
// 2 x 6, the launch's pools as verl reads them (trainer 2 x 6, rollout 2 x 2), the Slurm job on the
// 2 whole nodes; check reads the launch back onto 2 x 8 GPUs.
TEST_CASE("plan --rollout-gpus 4 on 2 x 8: the same GPUs of every node, emitted as verl's two pools on those nodes") {
  const std::vector<std::string> args = {
      "plan", "--model", "qwen2.5-0.5b", "--cluster", "2x8xH100", "--workload", "rl", "--rollout-gpus", "4",
      "--off-policy-steps", "1", "--global-batch", "96", "--rollout-n", "4", "--mini-batch", "24", "--top", "1",
      "--json"};
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json plan = nlohmann::json::parse(run.out);
  REQUIRE(!plan["candidates"].empty());
  const auto& s = plan["candidates"][0]["strategy"];
  CHECK(s["tp"].get<int>() * s["pp"].get<int>() * s["cp"].get<int>() * s["dp"].get<int>() == 12);
  CHECK(plan["candidates"][0]["gpus"] == 16);
  std::vector<std::string> emit(args.begin(), args.end() - 1);
  emit.insert(emit.end(), {"--emit", "verl"});
  const auto emitted = test::run(emit);
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("trainer.nnodes=2 \\") != std::string::npos);
  CHECK(emitted.out.find("trainer.n_gpus_per_node=6 \\") != std::string::npos);
  CHECK(emitted.out.find("rollout.nnodes=2 \\") != std::string::npos);
  CHECK(emitted.out.find("rollout.n_gpus_per_node=2") != std::string::npos);
  CheckOptions options;
  options.cluster_gpus = 16;
  const auto report = check_launch({InputText{"emitted.sh", emitted.out}}, options);
  REQUIRE(report.ok());
  for (const Finding& f : report->findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);
  std::vector<std::string> slurm = emit;
  slurm.back() = "slurm";
  const auto sbatch = test::run(slurm);
  REQUIRE_MESSAGE(sbatch.exit_code == 0, sbatch.err);
  CHECK(sbatch.out.find("#SBATCH --nodes=2\n") != std::string::npos);
  CHECK(sbatch.out.find("#SBATCH --gpus-per-node=8\n") != std::string::npos);
}

}  // namespace meshplan

namespace meshplan {

// plan --rollout-split: the colocated plan and one per whole-node engine pool (one step off),
// each's best in a table; the shortest step is the plan. Qwen2.5-0.5B on 2 x 8 H100: colocated,
// or 8 engine GPUs beside an 8-GPU trainer.
TEST_CASE("plan --rollout-split: every placement's best, the shortest step planned") {
  const auto run = test::run({"plan", "--model", "qwen2.5-0.5b", "--cluster", "2x8xH100", "--workload", "rl",
                              "--rollout-split", "--global-batch", "64", "--rollout-n", "8", "--mini-batch", "16",
                              "--prompt-len", "512", "--response-len", "2048", "--top", "1", "--json"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json plan = nlohmann::json::parse(run.out);
  const nlohmann::json& placements = plan["placements"];
  REQUIRE(placements.size() == 2);
  CHECK(placements[0]["engine_gpus"] == 0);
  CHECK(placements[0]["trainer_gpus"] == 16);
  CHECK(placements[1]["engine_gpus"] == 8);
  CHECK(placements[1]["trainer_gpus"] == 8);
  const double colocated = placements[0]["step_seconds"].get<double>();
  const double split = placements[1]["step_seconds"].get<double>();
  const auto& winner = plan["candidates"][0];
  CHECK(winner["step_seconds"].get<double>() == test::approx(std::min(colocated, split)));
  CHECK(winner["strategy"]["rl"]["rollout_gpus"] == (split < colocated ? 8 : 0));
  // The split candidates: one more node would leave the trainer none (rollout_split_candidates).
  Cluster four;
  four.groups.push_back(NodeGroup{});
  four.groups.front().nodes = 4;
  four.groups.front().gpus_per_node = 8;
  CHECK(rollout_split_candidates(four) == std::vector<int>{0, 8, 16, 24});
  four.groups.front().nodes = 64;
  CHECK(rollout_split_candidates(four) == std::vector<int>{0, 72, 144, 216, 296, 368, 440});
  // It chooses the placement itself: not beside --rollout-gpus.
  CHECK(test::run({"plan", "--model", "qwen2.5-0.5b", "--cluster", "2x8xH100", "--workload", "rl", "--rollout-split",
                   "--rollout-gpus", "8"})
            .exit_code == 2);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("--partial-rollout: the colocated step drops the longest responses' tail, --warmup-batches needs it") {
  // Qwen3-30B-A3B on 4 x 8 H100 colocated: mean response 3201 of at most 3986, so without partial
  // rollout the step waits for 785 single-sequence decode steps after the mean.
  const auto waiting = test::run(qwen30b({}));
  const auto partial = test::run(qwen30b({"--partial-rollout"}));
  // (exit 1: the memory verdict of this colocated layout; the times are estimated all the same)
  REQUIRE_MESSAGE(waiting.exit_code != 2, waiting.err);
  REQUIRE_MESSAGE(partial.exit_code != 2, partial.err);
  const nlohmann::json waiting_json = nlohmann::json::parse(waiting.out);
  const nlohmann::json partial_json = nlohmann::json::parse(partial.out);
  CHECK(partial_json["workload"]["rl"]["partial_rollout"] == true);
  CHECK(partial_json["workload"]["rl"]["warmup_batches"] == 1);
  CHECK(waiting_json["workload"]["rl"]["partial_rollout"] == false);
  CHECK(phase_seconds(partial_json["time"], "timing_s/gen") < phase_seconds(waiting_json["time"], "timing_s/gen"));
  // The trainer's phases do not change.
  CHECK(phase_seconds(partial_json["time"], "timing_s/update_actor") ==
        test::approx(phase_seconds(waiting_json["time"], "timing_s/update_actor")));
  CHECK(nlohmann::json::parse(test::run(qwen30b({"--partial-rollout", "--warmup-batches", "2"})).out)["workload"]["rl"]
                                ["warmup_batches"] == 2);
  // Engines of their own with partial rollout are the V1 separate-async trainer, which logs the
  // weight sync as timing_s/update_weights (trainer_separate_async.py).
  const nlohmann::json separate =
      nlohmann::json::parse(test::run(qwen30b({"--rollout-gpus", "16", "--off-policy-steps", "1", "--partial-rollout"})).out);
  CHECK(phase_seconds(separate["time"], "timing_s/update_weights") > 0);
  CHECK(phase_seconds(separate["time"], "timing_s/sync_rollout_weights") < 0);
  const auto no_partial = test::run(qwen30b({"--warmup-batches", "2"}));
  CHECK(no_partial.exit_code == 2);
  CHECK(no_partial.err.find("--warmup-batches") != std::string::npos);
  const auto pretrain =
      test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100", "--partial-rollout"});
  CHECK(pretrain.exit_code == 2);
  CHECK(pretrain.err.find("--partial-rollout") != std::string::npos);
}

}  // namespace meshplan

namespace meshplan {

// Partial rollout is emitted as verl's V1 trainer: colocate_async on the trainer's GPUs,
// separate_async with the engines on actor_rollout_ref.rollout's pool and a parameter_sync_step
// that meets SeparateAsyncTrainer's batch assert; verl's own rules (check) pass both.
TEST_CASE("plan --partial-rollout --emit verl: verl's V1 colocate_async and separate_async launches") {
  const std::vector<std::string> base = {
      "plan", "--model", "qwen3-30b-a3b", "--cluster", "4x8xH100", "--workload", "rl", "--global-batch", "64",
      "--rollout-n", "32", "--mini-batch", "16", "--prompt-len", "110", "--response-len", "3986", "--mean-prompt-len",
      "110", "--mean-response-len", "3201", "--top", "1", "--partial-rollout", "--emit", "verl"};
  const auto colocated = test::run(base);
  REQUIRE_MESSAGE(colocated.exit_code == 0, colocated.err);
  CHECK(colocated.out.find("python3 -m verl.trainer.main_ppo \\") != std::string::npos);
  CHECK(colocated.out.find("trainer.use_v1=True \\") != std::string::npos);
  CHECK(colocated.out.find("trainer.v1.trainer_mode=colocate_async \\") != std::string::npos);
  CHECK(colocated.out.find("trainer.v1.colocate_async.num_warmup_batches=1 \\") != std::string::npos);
  CheckOptions options;
  options.cluster_gpus = 32;
  const auto colocated_report = check_launch({InputText{"emitted.sh", colocated.out}}, options);
  REQUIRE(colocated_report.ok());
  for (const Finding& f : colocated_report->findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);

  std::vector<std::string> separate = base;
  separate.insert(separate.end(), {"--rollout-gpus", "16", "--off-policy-steps", "1"});
  const auto emitted = test::run(separate);
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  CHECK(emitted.out.find("python3 -m verl.trainer.main_ppo \\") != std::string::npos);
  CHECK(emitted.out.find("trainer.v1.trainer_mode=separate_async \\") != std::string::npos);
  CHECK(emitted.out.find("trainer.v1.separate_async.parameter_sync_step=4 \\") != std::string::npos);  // 64 / 16
  CHECK(emitted.out.find("actor_rollout_ref.rollout.nnodes=2 \\") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.checkpoint_engine.backend=nccl \\") != std::string::npos);
  CHECK(emitted.out.find("one_step_off") == std::string::npos);
  const auto report = check_launch({InputText{"emitted.sh", emitted.out}}, options);
  REQUIRE(report.ok());
  for (const Finding& f : report->findings) CHECK_MESSAGE(f.severity != Severity::error, f.rule << ": " << f.message);
}

}  // namespace meshplan
