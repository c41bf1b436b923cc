#include <doctest/doctest.h>

#include "approx.hpp"
#include "search/heterogeneous.hpp"
#include "search_test_support.hpp"

namespace meshplan {
namespace {

// 2 nodes x 8 A100-80GB (fp16 312 TFLOP/s dense) + 2 x 8 V100-32GB (fp16 125 TFLOP/s, no bf16).
Cluster a100_v100() {
  Cluster a100 = test::toy_cluster(2, 8, 80);
  a100.groups[0].gpu.id = "A100-80GB";
  a100.groups[0].gpu.bf16_flops = 312e12;
  a100.groups[0].gpu.fp16_flops = 312e12;
  Cluster v100 = test::toy_cluster(2, 8, 32);
  v100.groups[0].gpu.id = "V100-32GB";
  v100.groups[0].gpu.bf16_flops = 0;
  v100.groups[0].gpu.fp16_flops = 125e12;
  return Cluster{{a100.groups[0], v100.groups[0]}};
}

PlanCandidate step(double rollout, double log_prob, double update) {
  PlanCandidate candidate;
  candidate.time.seconds[static_cast<std::size_t>(TimeComponent::rollout)] = rollout;
  candidate.time.seconds[static_cast<std::size_t>(TimeComponent::log_prob)] = log_prob;
  candidate.time.seconds[static_cast<std::size_t>(TimeComponent::compute)] = update;
  candidate.step_seconds = rollout + log_prob + update;
  candidate.tokens_per_second = 1000 / candidate.step_seconds;
  return candidate;
}

}  // namespace

TEST_CASE("pipeline layers proportional to group speed: 32 layers on 16 A100 + 16 V100") {
  // Speeds (fp16, the dtype both support): A100 16 x 312 = 4992 TFLOP/s, V100 16 x 125 = 2000.
  // Proportional: 32 x 4992/6992 = 22.8 and 9.2. Integer split minimising the slowest stage:
  //   23/9: max(23/4992, 9/2000) = max(0.004607, 0.0045) = 0.004607   <- best
  //   22/10: max(0.004407, 0.005) = 0.005;  24/8: max(0.004808, 0.004) = 0.004808
  ModelSpec model = test::toy_model(32, 32);
  model.attention_params_per_layer = 100'000'000;  // 1.6 GB of states per layer: memory is no limit
  const Cluster cluster = a100_v100();
  const auto shares = split_layers(model, cluster, Dtype::fp16, 0.1);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].layers == 23);
  CHECK(shares[1].layers == 9);
  CHECK(split_stage_seconds(shares) == test::approx(23 / 4992e12));
}

TEST_CASE("pipeline split capped by each group's memory") {
  // 7e9 parameters per layer x 16 bytes = 112e9 bytes = 104.3 GiB of states per layer.
  // A100 group: 16 x 80 GiB x 0.9 = 1152 GiB -> 11 layers; V100: 16 x 32 x 0.9 = 460.8 GiB -> 4.
  // 15 layers: speed alone would give ~10.7 / 4.3, the V100 cap of 4 binds: 11 / 4.
  // 16 layers exceed the 15 the groups hold together: no split.
  ModelSpec model = test::toy_model(32, 15);
  model.attention_params_per_layer = 7'000'000'000;
  const Cluster cluster = a100_v100();
  const auto shares = split_layers(model, cluster, Dtype::fp16, 0.1);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].max_layers == 11);
  CHECK(shares[1].max_layers == 4);
  CHECK(shares[0].layers == 11);
  CHECK(shares[1].layers == 4);
  model.num_layers = 16;
  CHECK(split_layers(model, cluster, Dtype::fp16, 0.1).empty());
}

TEST_CASE("heterogeneous plan: fp16, pipeline gain over the best group alone, pool split for rl") {
  // A100 alone: 4 s rollout + 2 s log-prob + 4 s update = 10 s; V100 alone: 5 + 5 + 10 = 20 s.
  // Pipeline: 10 s x (23/4992) / (32/4992) = 10 x 23/32 = 7.1875 s -> gain 10/7.1875 - 1 = 39.1%.
  // Pools: rollout V100 + train A100 = 5 + 2 + 4 = 11 s; rollout A100 + train V100 = 4 + 15 = 19 s.
  ModelSpec model = test::toy_model(32, 32);
  model.attention_params_per_layer = 100'000'000;
  Workload workload;
  workload.kind = WorkloadKind::rl;
  const auto plan = plan_heterogeneous(model, a100_v100(), workload, 0.1, [](std::size_t group) {
    return std::optional<PlanCandidate>(group == 0 ? step(4, 2, 4) : step(5, 5, 10));
  });
  CHECK(plan.compute_dtype == Dtype::fp16);
  CHECK(plan.best_alone == 0);
  CHECK(plan.pipeline_step_seconds == test::approx(7.1875));
  CHECK(plan.rollout_group == 1);
  CHECK(plan.train_group == 0);
  CHECK(plan.pool_split_step_seconds == test::approx(11));
  CHECK(plan.choice == "pipeline");
  CHECK(plan.gain_over_alone == test::approx(10 / 7.1875 - 1));

  // When the groups together cannot hold the model's states in one pipeline (16 layers of 104.3
  // GiB; they hold 11 + 4 = 15), the answer is the best group alone, the other idle.
  model.attention_params_per_layer = 7'000'000'000;
  model.num_layers = 16;
  const auto idle = plan_heterogeneous(model, a100_v100(), Workload{}, 0.1, [](std::size_t group) {
    return group == 0 ? std::optional<PlanCandidate>(step(0, 0, 10)) : std::nullopt;
  });
  CHECK(idle.best_alone == 0);
  CHECK(idle.pipeline.empty());
  CHECK(idle.choice == "alone");
  CHECK(idle.gain_over_alone == test::approx(0));
}

}  // namespace meshplan
