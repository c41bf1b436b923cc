// estimate_time allocates nothing when the trace is null (the planner calls it millions of
// times). Counts every operator new in this test binary while the estimate runs.
#include <doctest/doctest.h>

#include "cost/time/step_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "cost/memory/counting_new.hpp"

namespace meshplan {
namespace {

long allocations_of(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy, const Workload& workload) {
  const TimeOptions options;
  test::start_counting_allocations();
  const TimeEstimate estimate = estimate_time(model, cluster, strategy, workload, options, nullptr);
  const long allocations = test::stop_counting_allocations();
  CHECK(estimate.step_seconds > 0);
  return allocations;
}

TEST_CASE("estimate_time allocates nothing without a trace (training and RL)") {
  const ModelSpec model = test::gpt_24x2048();
  const Cluster cluster = test::a100_cluster(4);
  Strategy strategy;
  strategy.tp = 2;
  strategy.pp = 2;
  strategy.vpp = 2;
  strategy.cp = 2;
  strategy.dp = 4;
  strategy.recompute = Recompute::full;
  strategy.offload.optimizer = true;
  strategy.lora.rank = 8;
  strategy.lora.target_modules = {"q_proj", "v_proj"};  // a Strategy copy would allocate these
  Workload workload;
  workload.seq_len = 2048;
  workload.global_batch = 64;
  CHECK(allocations_of(model, cluster, strategy, workload) == 0);
  workload.kind = WorkloadKind::rl;
  workload.rl.rollout_tp = 2;
  workload.rl.n = 4;
  workload.rl.use_critic = true;
  CHECK(allocations_of(model, cluster, strategy, workload) == 0);
}

}  // namespace
}  // namespace meshplan
