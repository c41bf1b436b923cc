// The planner asks the cost model for a rollout option's rollout phase alone (rollout_memory,
// rollout_seconds): they must give what the whole-step memory and time give for that phase.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/hand_models.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"
#include "search/real_cost_model.hpp"

namespace meshplan {
namespace {

TEST_CASE("real cost model: the rollout-only memory and time equal the whole step's rollout phase") {
  const ModelSpec model = test::qwen3_30b_a3b();
  const Cluster cluster = test::cluster_of(*find_gpu(builtin_gpu_catalog(), "H100-80GB"), 2, 8);
  const CostModel cost = real_cost_model(model, cluster, MemoryOptions{}, TimeOptions{});
  Strategy s;
  s.backend = Backend::megatron;
  s.ep = 8;
  s.dp = 16;
  s.recompute = Recompute::full;
  s.offload.optimizer = true;
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 64;
  w.rl.n = 8;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 4096;
  w.rl.ppo_mini_batch = 16;
  w.seq_len = 5120;
  for (int dp : {1, 4}) {
    w.rl.rollout_tp = dp == 1 ? 2 : 1;
    w.rl.rollout_dp = dp;
    w.rl.rollout_ep = dp > 1 ? dp : 1;
    const PlanMemory whole = cost.memory(s, w);
    const PlanMemory rollout = cost.rollout_memory(s, w);
    CHECK(rollout.of(PlanPhase::rollout) == test::approx(whole.of(PlanPhase::rollout)));
    CHECK(rollout.rollout_concurrent_sequences == whole.rollout_concurrent_sequences);
    CHECK(rollout.of(PlanPhase::update) == 0.0);  // not computed
    const PlanTime time = cost.time(s, w, whole);
    CHECK(cost.rollout_seconds(s, w, rollout) == test::approx(time.of(TimeComponent::rollout)));
    CHECK(time.of(TimeComponent::rollout) > 0);
  }
}

}  // namespace
}  // namespace meshplan
