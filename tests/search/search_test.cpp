#include <doctest/doctest.h>

#include <cmath>

#include "approx.hpp"
#include "search/layout.hpp"
#include "search/rule_binding.hpp"
#include "search/search.hpp"
#include "search_test_support.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Memory: 80 GiB of model states split over TP x PP plus 1 GiB of activations per sequence of
// the micro-batch split over TP. Time: 64 GPU-seconds of compute divided over all GPUs, plus
// 0.5 s per doubling of TP (communication) and 1 s of bubble per extra stage.
CostModel toy_cost(double capacity_gib) {
  CostModel cost;
  cost.capacity_bytes = capacity_gib * kGiB;
  cost.memory = [](const Strategy& s, const Workload&) {
    PlanMemory memory;
    memory.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] =
        (80.0 / (s.tp * s.pp) + 1.0 * s.micro_batch / s.tp) * kGiB;
    return memory;
  };
  cost.time = [](const Strategy& s, const Workload&, const PlanMemory&) {
    PlanTime time;
    time.seconds[static_cast<std::size_t>(TimeComponent::compute)] = 64.0 / s.world_size();
    time.seconds[static_cast<std::size_t>(TimeComponent::tp_comm)] = 0.5 * std::log2(s.tp);
    time.seconds[static_cast<std::size_t>(TimeComponent::pp_bubble)] = 1.0 * (s.pp - 1);
    time.update_mfu = 0.1 * s.tp;  // a marker: which strategy's time a candidate carries
    return time;
  };
  return cost;
}

Workload pretrain(std::int64_t global_batch) {
  Workload workload;
  workload.kind = WorkloadKind::pretrain;
  workload.seq_len = 4096;
  workload.global_batch = global_batch;
  return workload;
}

SearchSpace pinned_space(const ModelSpec& model, const Cluster& cluster, const Workload& workload,
                         const std::string& extra_fixes = "") {
  SpaceOptions options;
  options.fixes = *parse_fixes("vpp=1,cp=1,mb=1,recompute=none,offload=none,megatron_fsdp=0" + extra_fixes);
  return *build_search_space(model, cluster, workload, options);
}

}  // namespace

TEST_CASE("8 GPUs, 32 heads, 32 layers: the ten (tp, pp, dp) layouts, all valid") {
  // By hand, tp in {1,2,4,8} (within the node), tp*pp*dp = 8:
  //   (1,1,8) (1,2,4) (1,4,2) (1,8,1) (2,1,4) (2,2,2) (2,4,1) (4,1,2) (4,2,1) (8,1,1)
  // 32 heads and 32 layers are divisible by every tp and pp there: 10 candidates, 0 rejected.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 1000);
  const Workload workload = pretrain(64);
  const SearchSpace space = pinned_space(model, cluster, workload);
  CHECK(enumerate_layouts(space).size() == 10);
  const SearchResult result = search_plans(model, space, workload, toy_cost(1000), test::toy_rules(model), {});
  CHECK(result.searched == 10);
  CHECK(result.feasible == 10);
  CHECK(result.rejected.empty());
}

TEST_CASE("Megatron-FSDP is tried on the PP 1 layouts that have DP to shard over") {
  // The ten layouts of the case above; Megatron-FSDP adds (tp, pp, dp) = (1,1,8) (2,1,4) (4,1,2):
  // PP 1 and DP > 1 ((8,1,1) has no DP). Pinned on, only those three remain.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 1000);
  const Workload workload = pretrain(64);
  SpaceOptions options;
  options.fixes = *parse_fixes("vpp=1,cp=1,mb=1,recompute=none,offload=none");
  const SearchSpace both = *build_search_space(model, cluster, workload, options);
  CHECK(enumerate_layouts(both).size() == 13);
  options.fixes = *parse_fixes("vpp=1,cp=1,mb=1,recompute=none,offload=none,megatron_fsdp=1");
  const std::vector<Layout> sharded = enumerate_layouts(*build_search_space(model, cluster, workload, options));
  REQUIRE(sharded.size() == 3);
  for (const Layout& layout : sharded) {
    CHECK(layout.megatron_fsdp);
    CHECK(layout.pp == 1);
    CHECK(layout.dp > 1);
    CHECK(layout_strategy(layout, Dtype::bf16, model.num_layers).zero == ZeroStage::zero3);
  }
}

TEST_CASE("rules prune layouts and are counted per rule id") {
  // 12 heads: tp = 8 breaks heads % tp (1 layout). 30 layers: pp = 4 and pp = 8 break
  // layers % pp: (1,4,2) (1,8,1) (2,4,1) = 3 layouts. 10 - 4 = 6 remain.
  const ModelSpec model = test::toy_model(12, 30);
  const Cluster cluster = test::toy_cluster(1, 8, 1000);
  const Workload workload = pretrain(64);
  const SearchResult result = search_plans(model, pinned_space(model, cluster, workload), workload,
                                           toy_cost(1000), test::toy_rules(model), {});
  CHECK(result.searched == 10);
  CHECK(result.feasible == 6);
  CHECK(result.rejected.at("tp_divides_heads") == 1);
  CHECK(result.rejected.at("pp_divides_layers") == 3);
}

TEST_CASE("--fix pins a dimension") {
  // tp=2: (2,1,4) (2,2,2) (2,4,1).
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 1000);
  const Workload workload = pretrain(64);
  const SearchResult result = search_plans(model, pinned_space(model, cluster, workload, ",tp=2"), workload,
                                           toy_cost(1000), test::toy_rules(model), {});
  CHECK(result.searched == 3);
  CHECK(result.feasible == 3);
  for (const PlanCandidate& candidate : result.top) CHECK(candidate.strategy.tp == 2);
}

TEST_CASE("memory pruning with headroom, ranking by throughput and by memory") {
  // Capacity 50 GiB, headroom 0.1: usable 45 GiB. Peak = 80/(tp*pp) + 1/tp GiB:
  //   (1,1) 81 no; (1,2) 41 yes; (2,1) 40.5 yes; everything with tp*pp >= 4 fits.
  // 9 of 10 fit (only tp=1,pp=1 does not). Step time = 64/8 + 0.5*log2(tp) + (pp-1):
  //   tp=1,pp=2: 9.0  tp=1,pp=4: 11  tp=1,pp=8: 15  tp=2,pp=1: 8.5  tp=2,pp=2: 9.5
  //   tp=2,pp=4: 11.5  tp=4,pp=1: 9.0  tp=4,pp=2: 10  tp=8,pp=1: 9.5
  // Fastest: tp=2,pp=1 (8.5 s). Least memory: tp=8,pp=1 and tp=4,pp=2 and ... 80/8 + 1/tp:
  //   (8,1) 10.125 GiB is the least.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 50);
  const Workload workload = pretrain(64);
  const SearchSpace space = pinned_space(model, cluster, workload);
  SearchOptions options;
  options.top_k = 3;
  const SearchResult fastest = search_plans(model, space, workload, toy_cost(50), test::toy_rules(model), options);
  CHECK(fastest.feasible == 9);
  CHECK(fastest.rejected.at("memory") == 1);
  REQUIRE(fastest.top.size() == 3);
  CHECK(fastest.top[0].strategy.tp == 2);
  CHECK(fastest.top[0].strategy.pp == 1);
  CHECK(fastest.top[0].step_seconds == test::approx(8.5));
  CHECK(fastest.top[0].tokens_per_second == test::approx(64.0 * 4096 / 8.5));
  // Second place: 9.0 s twice; the tie goes to less memory: tp=4,pp=1 (20.25 GiB) before
  // tp=1,pp=2 (41 GiB).
  CHECK(fastest.top[1].strategy.tp == 4);
  CHECK(fastest.top[2].strategy.pp == 2);

  options.objective = Objective::memory;
  const SearchResult smallest = search_plans(model, space, workload, toy_cost(50), test::toy_rules(model), options);
  REQUIRE(!smallest.top.empty());
  CHECK(smallest.top[0].strategy.tp == 8);
  CHECK(smallest.top[0].peak_bytes == test::approx(10.125 * kGiB));
}

TEST_CASE("the top list holds one plan per shape, a candidate carries its update's MFU") {
  // As above, with micro-batches 1, 2, 4 free: the time does not depend on the micro-batch, so
  // each (tp, pp) ties across micro-batches and the least memory (mb=1) wins the tie. Without
  // one plan per shape, the top 3 would be (2,1) with mb 1, 2 and 4.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 50);
  const Workload workload = pretrain(64);
  SpaceOptions space_options;
  space_options.fixes = *parse_fixes("vpp=1,cp=1,recompute=none,offload=none,megatron_fsdp=0");
  SearchSpace space = *build_search_space(model, cluster, workload, space_options);
  space.micro_batch = {1, 2, 4};
  SearchOptions options;
  options.top_k = 3;
  const SearchResult result = search_plans(model, space, workload, toy_cost(50), test::toy_rules(model), options);
  REQUIRE(result.top.size() == 3);
  CHECK(result.top[0].strategy.tp == 2);
  CHECK(result.top[0].strategy.micro_batch == 1);
  CHECK(result.top[0].time.update_mfu == test::approx(0.2));
  CHECK(result.top[1].strategy.tp == 4);
  CHECK(result.top[1].time.update_mfu == test::approx(0.4));
  CHECK(result.top[2].strategy.tp == 1);
  CHECK(result.top[2].strategy.pp == 2);
}

TEST_CASE("nothing fits: the closest miss is the least-memory rule-passing candidate") {
  // Capacity 10 GiB (usable 9): the least peak is tp=8 at 10.125 GiB, tp=4,pp=2 at 10.25 GiB,
  // tp=2,pp=4 10.5, tp=1,pp=8 11. Closest: tp=8.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 10);
  const Workload workload = pretrain(64);
  const SearchResult result = search_plans(model, pinned_space(model, cluster, workload), workload, toy_cost(10),
                                           test::toy_rules(model), {});
  CHECK(result.feasible == 0);
  CHECK(result.rejected.at("memory") == 10);
  REQUIRE(result.closest_miss.has_value());
  CHECK(result.closest_miss->strategy.tp == 8);
  CHECK(result.closest_miss->peak_bytes == test::approx(10.125 * kGiB));
}

TEST_CASE("rl: per-phase options combined equal the brute-force product") {
  // Separable toy RL costs: update peak 30/tp + 4*mb GiB, rollout peak 20/tp + 40*gmu GiB,
  // log-prob peak 30/tp + lp GiB; seconds 8/mb (update), 10/(rtp*gmu) (rollout), 4/lp (log-prob).
  // Capacity 60 GiB, headroom 0.1 -> usable 54.
  const ModelSpec model = test::toy_model(32, 32);
  const Cluster cluster = test::toy_cluster(1, 8, 60);
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 64;
  workload.rl.n = 4;
  CostModel cost;
  cost.capacity_bytes = 60 * kGiB;
  cost.memory = [](const Strategy& s, const Workload& w) {
    PlanMemory m;
    m.peak_bytes = {(20.0 / s.tp + 40.0 * w.rl.gpu_memory_utilization) * kGiB,
                    (30.0 / s.tp + w.rl.log_prob_micro_batch_per_gpu) * kGiB, (30.0 / s.tp + 4.0 * s.micro_batch) * kGiB};
    return m;
  };
  cost.time = [](const Strategy& s, const Workload& w, const PlanMemory&) {
    PlanTime t;
    t.seconds[static_cast<std::size_t>(TimeComponent::compute)] = 8.0 / s.micro_batch;
    t.seconds[static_cast<std::size_t>(TimeComponent::rollout)] = 10.0 / (w.rl.rollout_tp * w.rl.gpu_memory_utilization);
    t.seconds[static_cast<std::size_t>(TimeComponent::log_prob)] = 4.0 / w.rl.log_prob_micro_batch_per_gpu;
    return t;
  };
  SpaceOptions space_options;
  space_options.fixes = *parse_fixes("vpp=1,cp=1,recompute=none,offload=none,backend=megatron,pp=1,megatron_fsdp=0");
  const SearchSpace space = *build_search_space(model, cluster, workload, space_options);
  const SearchResult result = search_plans(model, space, workload, cost, test::toy_rules(model), {});

  // Brute force over the same product.
  std::int64_t searched = 0;
  std::int64_t feasible = 0;
  double best_seconds = 1e300;
  const double usable = 54 * kGiB;
  for (int tp : space.tp) {
    for (int mb : space.micro_batch) {
      for (int rtp : space.rollout_tp) {
        for (double gmu : space.gpu_memory_utilization) {
          for (int lp : space.log_prob_micro_batch) {
            ++searched;
            const int dp = 8 / tp;
            if (64 % (dp * mb) != 0) continue;
            Strategy s;
            s.tp = tp;
            s.dp = dp;
            s.micro_batch = mb;
            Workload w = workload;
            w.rl.gpu_memory_utilization = gmu;
            w.rl.rollout_tp = rtp;
            w.rl.log_prob_micro_batch_per_gpu = lp;
            const PlanMemory m = cost.memory(s, w);
            if (*std::max_element(m.peak_bytes.begin(), m.peak_bytes.end()) > usable) continue;
            ++feasible;
            double seconds = 0;
            for (double part : cost.time(s, w, m).seconds) seconds += part;
            best_seconds = std::min(best_seconds, seconds);
          }
        }
      }
    }
  }
  CHECK(result.searched == searched);
  CHECK(result.feasible == feasible);
  REQUIRE(!result.top.empty());
  CHECK(result.top[0].step_seconds == test::approx(best_seconds));
  std::int64_t rejected = 0;
  for (const auto& [rule, count] : result.rejected) rejected += count;
  CHECK(rejected + result.feasible == result.searched);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("the real rule table prunes the hand case with its stable rule ids") {
  // Same case as above (12 heads, 30 layers, 8 GPUs): tp=8 -> tp.divides-heads (1 layout).
  // pp=4 and pp=8 do not divide 30 layers but take an uneven split (strategy/pipeline_split):
  // pp=4: ceil(30/4) = 8 per middle stage, 2 short -> 7 + 8 + 8 + 7; pp=8: 4 per middle stage,
  // 2 short -> 3 + 6 x 4 + 3. So 9 of 10 layouts are feasible.
  const ModelSpec model = test::toy_model(12, 30);
  const Cluster cluster = test::toy_cluster(1, 8, 1000);
  const Workload workload = pretrain(64);
  SearchOptions options;
  options.top_k = 10;
  const SearchResult result = search_plans(model, pinned_space(model, cluster, workload), workload, toy_cost(1000),
                                           validate_rule_check(model, cluster), options);
  CHECK(result.searched == 10);
  CHECK(result.feasible == 9);
  CHECK(result.rejected.at("tp.divides-heads") == 1);
  CHECK(result.rejected.count("pp.divides-layers") == 0);
  bool saw_pp8 = false;
  for (const PlanCandidate& c : result.top) {
    if (c.strategy.pp != 8) continue;
    saw_pp8 = true;
    CHECK(c.strategy.first_stage_layers == 3);
    CHECK(c.strategy.last_stage_layers == 3);
  }
  CHECK(saw_pp8);
}

}  // namespace meshplan
