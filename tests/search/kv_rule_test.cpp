// The planner never proposes a rollout engine that cannot start: candidates whose KV cache holds
// less than one max_model_len sequence are rejected under rl.kv-below-max-model-len.
#include <doctest/doctest.h>

#include "cost/hand_models.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "hardware/gpu_catalog.hpp"
#include "search/real_cost_model.hpp"
#include "search/rule_binding.hpp"
#include "search/search.hpp"
#include "search/search_space.hpp"

namespace meshplan {
namespace {

TEST_CASE("plan rejects candidates whose KV cache is below one max_model_len sequence (rl.kv-below-max-model-len)") {
  // Qwen2.5-7B, prompt 1024 + response 8192 at gpu_memory_utilization 0.20 on H100s (79.21 GiB):
  // rollout TP 1 leaves KV for fewer than 9,216 tokens (the 80 GiB case is worked in
  // tests/cost/rl_residency_test.cpp: 8,948); TP 2 halves the weights and holds many sequences.
  // Headroom 0, as in the issue.
  const ModelSpec model = test::qwen25_7b();
  const Cluster cluster = test::cluster_of(*find_gpu(builtin_gpu_catalog(), "H100-80GB"), 1, 8);
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 64;
  w.rl.n = 1;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 8192;
  w.seq_len = 9216;
  SpaceOptions space_options;
  space_options.fixes = {{"gmu", "0.2"}};
  const SearchSpace space = *build_search_space(model, cluster, w, space_options);
  SearchOptions options;
  options.headroom = 0;
  options.top_k = 20;
  const SearchResult result = search_plans(model, space, w, real_cost_model(model, cluster, MemoryOptions{}, TimeOptions{}),
                                           validate_rule_check(model, cluster), options);
  REQUIRE(result.rejected.count("rl.kv-below-max-model-len") == 1);
  CHECK(result.rejected.at("rl.kv-below-max-model-len") > 0);
  REQUIRE_FALSE(result.top.empty());
  for (const PlanCandidate& c : result.top) {
    CHECK(c.workload.rl.rollout_tp > 1);
    CHECK_FALSE(estimate_memory(model, cluster, c.strategy, c.workload, MemoryOptions{}, nullptr).kv_below_one_sequence);
  }
}

}  // namespace
}  // namespace meshplan
