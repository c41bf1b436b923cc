#include <doctest/doctest.h>

#include "search/search_space.hpp"
#include "search_test_support.hpp"

namespace meshplan {

TEST_CASE("--fix parses known dimensions and rejects bad ones with the key") {
  const auto fixes = parse_fixes("tp=4,pp=2,recompute=full_block,gmu=0.6,offload=all");
  REQUIRE(fixes.ok());
  CHECK(fixes->at("tp") == "4");
  CHECK(fixes->at("gmu") == "0.6");

  const auto typo = parse_fixes("tq=4");
  REQUIRE(!typo.ok());
  CHECK(typo.error().key == "--fix");
  CHECK(typo.error().message.find("did you mean 'tp'") != std::string::npos);
  CHECK(!parse_fixes("tp").ok());
  CHECK(!parse_fixes("tp=four").ok());
  CHECK(!parse_fixes("tp=0").ok());
  CHECK(!parse_fixes("gmu=1.5").ok());
  CHECK(!parse_fixes("recompute=most").ok());
  CHECK(!parse_fixes("tp=2,tp=4").ok());
}

TEST_CASE("default space: TP within a node, RL dimensions only for rl, fp16 without bf16") {
  const ModelSpec model = test::toy_model(32, 32);
  Cluster cluster = test::toy_cluster(2, 8, 80);
  Workload workload;
  const SearchSpace pretrain = *build_search_space(model, cluster, workload, {});
  CHECK(pretrain.tp == std::vector<int>{1, 2, 4, 8});
  CHECK(pretrain.rollout_tp.empty());
  CHECK(pretrain.backends.size() == 1);
  CHECK(pretrain.compute_dtype == Dtype::bf16);

  SpaceOptions cross;
  cross.allow_cross_node_tp = true;
  CHECK(build_search_space(model, cluster, workload, cross)->tp.back() == 16);

  workload.kind = WorkloadKind::rl;
  const SearchSpace rl = *build_search_space(model, cluster, workload, {});
  CHECK(rl.rollout_tp == std::vector<int>{1, 2, 4, 8, 16});  // up to 4 whole nodes (here the 2 there are)
  CHECK(rl.backends.size() == 2);

  cluster.groups[0].gpu.bf16_flops = 0;  // V100
  CHECK(build_search_space(model, cluster, workload, {})->compute_dtype == Dtype::fp16);

  SpaceOptions bad;
  bad.fixes = *parse_fixes("gmu=0.7");
  workload.kind = WorkloadKind::pretrain;
  CHECK(!build_search_space(model, cluster, workload, bad).ok());
}

}  // namespace meshplan
