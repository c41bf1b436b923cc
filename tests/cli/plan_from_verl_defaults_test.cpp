// `plan --from` costs a launch with the rollout defaults of the verl it pins, not of the newest:
// `actor_rollout_ref.rollout.enforce_eager` was True in verl's config until PR #2956 (2025-08-07;
// 0.4.x and 0.5.0 here), False from 0.6.0 on. A launch that does not set it runs vLLM without CUDA
// graphs on the older verl: no graph pool in the rollout's memory, and each decode step waits for the
// host's kernel launches (cost/time/rl_step_time.cpp kEagerHostSeconds*), which a MoE model feels.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "test_support.hpp"

namespace meshplan {
namespace {

struct BaselineRollout {
  bool graph_pool = false;  ///< the rollout phase holds vLLM's CUDA graph pool
  double gen_seconds = 0;
};

// Qwen3-30B-A3B GRPO on one H100 node (48 MoE layers), rollout TP 2, 128 prompts x 4; only the
// `pip install verl==` pin differs between the two launches.
BaselineRollout plan_pinned(const std::string& verl) {
  const std::filesystem::path script = std::filesystem::temp_directory_path() /
                                       ("meshplan_pinned_verl_" + verl + "_" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << "#!/bin/bash\npip install verl==" << verl << "\n"
                        << "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
                           "    data.train_batch_size=128 data.max_prompt_length=512 data.max_response_length=1024 \\\n"
                           "    actor_rollout_ref.model.path=Qwen/Qwen3-30B-A3B \\\n"
                           "    actor_rollout_ref.actor.ppo_mini_batch_size=32 \\\n"
                           "    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\\n"
                           "    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \\\n"
                           "    actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\\n"
                           "    actor_rollout_ref.rollout.gpu_memory_utilization=0.5 actor_rollout_ref.rollout.n=4 \\\n"
                           "    trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
  const test::CliRun run = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--json", "--top", "1"});
  std::filesystem::remove(script);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json baseline = nlohmann::json::parse(run.out)["baseline"]["estimate"];
  BaselineRollout rollout;
  for (const auto& phase : baseline["memory"]["phases"]) {
    if (phase["name"] == "rollout") rollout.graph_pool = phase["components"].contains("cuda_graphs");
  }
  for (const auto& phase : baseline["time"]["phases"]) {
    if (phase["name"] == "timing_s/gen") rollout.gen_seconds = phase["seconds"].get<double>();
  }
  return rollout;
}

TEST_CASE("plan --from: a launch pinned to verl 0.4.1 runs its rollout eager, one pinned to 0.6.1 with CUDA graphs") {
  const BaselineRollout eager = plan_pinned("0.4.1");
  const BaselineRollout graphed = plan_pinned("0.6.1");
  CHECK_FALSE(eager.graph_pool);
  CHECK(graphed.graph_pool);
  // 48 MoE layers x 0.7 ms of launches = 33.6 ms a decode step, where the GPU's graphed step of an
  // engine's 128 sequences on two H100s is about 14.5 ms (each plus the engine's 6.0 ms between
  // steps): the eager generation is about twice as long (44.7 s against 21.7 s when written).
  MESSAGE("gen: verl 0.4.1 " << eager.gen_seconds << " s, verl 0.6.1 " << graphed.gen_seconds << " s");
  CHECK(eager.gen_seconds > 1.5 * graphed.gen_seconds);
}

}  // namespace
}  // namespace meshplan
