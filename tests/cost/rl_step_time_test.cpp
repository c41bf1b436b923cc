#include <doctest/doctest.h>

#include <string>

#include "cost/rl_step_time.hpp"
#include "cost/step_time.hpp"
#include "cost/time_fixtures.hpp"

namespace meshplan {
namespace {

Workload rl_workload() {
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 4;
  workload.rl.n = 1;
  workload.rl.rollout_tp = 1;
  workload.rl.prompt_len = 128;
  workload.rl.response_len = 256;
  workload.seq_len = 384;
  return workload;
}

TEST_CASE("decode is memory-bound: weights + KV of the batch read once per generated token") {
  // Tiny GPT, 27,267,072 params in bf16 = 54,534,144 B; 4 sequences at mean context
  // 128 + 256/2 = 256 tokens x 8192 B = 8,388,608 B of KV per step; HBM 2.039e12 x 0.85.
  // 256 steps x 62,922,752 B / 1.73315e12 B/s = 9.2941e-3 s.
  const ModelSpec model = test::tiny_gpt();
  CHECK(model.total_params == 27267072);
  const Workload workload = rl_workload();
  const RolloutTime rollout = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 0,
                                           test::simple_options().constants, nullptr);
  CHECK(rollout.concurrent_sequences == 4);
  CHECK(rollout.waves == 1);
  CHECK(rollout.decode_s == doctest::Approx(256 * 62922752.0 / (2.039e12 * 0.85)).epsilon(1e-6));

  SUBCASE("a KV budget of 2 sequences decodes in two waves") {
    const RolloutTime limited = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 2,
                                             test::simple_options().constants, nullptr);
    CHECK(limited.waves == 2);
    CHECK(limited.concurrent_sequences == 2);
    // Each wave reads the weights 256 times again: slower than one wave of 4.
    CHECK(limited.decode_s > rollout.decode_s * 1.5);
  }
}

TEST_CASE("an RL step reports verl's phases and sums them") {
  const ModelSpec model = test::tiny_gpt();
  const Cluster cluster = test::a100_cluster();
  Workload workload = rl_workload();
  workload.rl.ppo_epochs = 2;
  workload.rl.ppo_mini_batch = 2;  // 2 mini-batches per epoch
  const TimeEstimate estimate = estimate_time(model, cluster, Strategy{}, workload, TimeOptions{}, nullptr);
  REQUIRE(estimate.num_phases == 4);
  CHECK(std::string(estimate.phases[0].name) == "timing_s/gen");
  CHECK(std::string(estimate.phases[1].name) == "timing_s/old_log_prob");
  CHECK(std::string(estimate.phases[2].name) == "timing_s/ref");
  CHECK(std::string(estimate.phases[3].name) == "timing_s/update_actor");
  double sum = 0;
  for (int i = 0; i < estimate.num_phases; ++i) sum += estimate.phases[static_cast<std::size_t>(i)].seconds;
  CHECK(sum == doctest::Approx(estimate.step_seconds));
  CHECK(estimate.breakdown.total() == doctest::Approx(estimate.step_seconds));
  // The update is 2 epochs x 2 mini-batches of one training step each on 2 sequences.
  const TimeBreakdown one = training_step_breakdown(model, cluster.groups[0], Strategy{}, 384, 2, 1, TimeOptions{}, nullptr);
  CHECK(estimate.phases[3].seconds == doctest::Approx(4 * one.total()));
  CHECK(estimate.actor_update_mfu > 0.0);
  CHECK(estimate.actor_update_mfu < 1.0);

  SUBCASE("PPO with a critic adds values and update_critic") {
    workload.rl.use_critic = true;
    const TimeEstimate ppo = estimate_time(model, cluster, Strategy{}, workload, TimeOptions{}, nullptr);
    CHECK(ppo.num_phases == 6);
    CHECK(ppo.step_seconds > estimate.step_seconds);
  }
}

}  // namespace
}  // namespace meshplan
