// check's rollout.eager-by-default: a launch that keeps its verl's default enforce_eager=True
// (verl's rollout config until PR #2956, in 0.4.x and 0.5.0) is re-estimated with CUDA graphs, and
// the change is offered only when it fits with check's headroom. On verl 0.4.x the rollout asserts
// eager while it frees its cache (rule rollout.cuda-graphs-free-cache), so graphs come with the
// cache kept there, and the memory that costs is in the re-estimate.
#include <doctest/doctest.h>

#include <string>

#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "verl/check_support.hpp"

namespace meshplan {
namespace {

// Qwen3-30B-A3B GRPO (48 MoE layers), rollout TP 2, 128 prompts x 4, on `nodes` x 8 H100.
std::vector<std::string> moe_launch(int nodes, double gpu_memory_utilization) {
  return {"algorithm.adv_estimator=grpo",
          "data.train_batch_size=128",
          "data.max_prompt_length=512",
          "data.max_response_length=1024",
          "actor_rollout_ref.model.path=Qwen/Qwen3-30B-A3B",
          "actor_rollout_ref.actor.ppo_mini_batch_size=32",
          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
          "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8",
          "actor_rollout_ref.rollout.name=vllm",
          "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
          "actor_rollout_ref.rollout.gpu_memory_utilization=" + std::to_string(gpu_memory_utilization),
          "actor_rollout_ref.rollout.n=4",
          "trainer.n_gpus_per_node=8",
          "trainer.nnodes=" + std::to_string(nodes)};
}

CheckOptions on_h100(const std::string& verl) {
  CheckOptions options;
  options.model = *parse_model_config(*find_model_preset_config("qwen3-30b-a3b"), "qwen3-30b-a3b");
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H100");
  options.read.verl_version = verl;
  return options;
}

std::vector<Finding> eager(const std::vector<std::string>& lines, const CheckOptions& options) {
  return test::findings_of(test::check_lines(lines, "ppo_trainer", options), "rollout.eager-by-default");
}

// "generation 44.6 s -> 21.2 s" of the message.
std::pair<double, double> generation_seconds(const std::string& message) {
  const std::size_t at = message.find("generation ");
  REQUIRE(at != std::string::npos);
  const std::size_t arrow = message.find(" s -> ", at);
  const double before = std::stod(message.substr(at + 11, arrow - at - 11));
  return {before, std::stod(message.substr(arrow + 6))};
}

}  // namespace

TEST_CASE("a launch eager by verl 0.5.0's default is offered CUDA graphs, which fit and halve the MoE decode") {
  const auto launch = moe_launch(2, 0.4);
  const auto found = eager(launch, on_h100("0.5.0"));
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::info);
  CHECK(found[0].message.find("is True by verl 0.5.0's default") != std::string::npos);
  CHECK(found[0].fix == std::vector<std::string>{"actor_rollout_ref.rollout.enforce_eager=False"});
  // 48 MoE layers x 0.7 ms of kernel launches a decode step (cost/time/rl_step_time.cpp) against a
  // graphed GPU step of about 14.5 ms for an engine's 128 sequences: about twice as long eager.
  const auto [eager_s, graphs_s] = generation_seconds(found[0].message);
  CHECK(eager_s > 1.5 * graphs_s);
  // The fix applied: the launch sets the key, the finding is gone and no memory finding appears.
  const CheckReport fixed = test::check_lines(test::with(launch, found[0].fix), "ppo_trainer", on_h100("0.5.0"));
  CHECK(test::findings_of(fixed, "rollout.eager-by-default").empty());
  CHECK(fixed.errors == 0);
  CHECK(fixed.warnings == 0);
}

TEST_CASE("on verl 0.4.1 graphs come with the cache kept, offered only where that still fits") {
  const auto four_nodes = eager(moe_launch(4, 0.5), on_h100("0.4.1"));
  REQUIRE(four_nodes.size() == 1);
  CHECK(four_nodes[0].fix == std::vector<std::string>{"actor_rollout_ref.rollout.enforce_eager=False",
                                                      "actor_rollout_ref.rollout.free_cache_engine=False"});
  const CheckReport fixed =
      test::check_lines(test::with(moe_launch(4, 0.5), four_nodes[0].fix), "ppo_trainer", on_h100("0.4.1"));
  CHECK(fixed.errors == 0);
  CHECK(test::findings_of(fixed, "rollout.cuda-graphs-free-cache").empty());
  // On two nodes the engine's KV cache kept through the log-prob pass is over the GPU: said, not offered.
  const auto two_nodes = eager(moe_launch(2, 0.5), on_h100("0.4.1"));
  REQUIRE(two_nodes.size() == 1);
  CHECK(two_nodes[0].fix.empty());
  CHECK(two_nodes[0].message.find("graphs do not fit this launch") != std::string::npos);
}

TEST_CASE("graphs at under check's headroom are not offered") {
  // One node at 0.4: the weight sync peaks within 1% of the GPU with graphs.
  const auto found = eager(moe_launch(1, 0.4), on_h100("0.5.0"));
  REQUIRE(found.size() == 1);
  CHECK(found[0].fix.empty());
  CHECK(found[0].message.find("under check's 5% (memory.low-headroom), so not offered") != std::string::npos);
}

TEST_CASE("no eager finding where the launch sets enforce_eager, verl defaults to graphs, or the GPU is not given") {
  const auto launch = moe_launch(2, 0.4);
  CHECK(eager(test::with(launch, {"actor_rollout_ref.rollout.enforce_eager=True"}), on_h100("0.5.0")).empty());
  CHECK(eager(launch, on_h100("0.6.1")).empty());
  CheckOptions no_gpu = on_h100("0.5.0");
  no_gpu.gpu.reset();
  CHECK(eager(launch, no_gpu).empty());
  // One that does not fit as it is gets the memory findings' fixes, not this one.
  CHECK(eager(moe_launch(1, 0.5), on_h100("0.5.0")).empty());
}

}  // namespace meshplan
