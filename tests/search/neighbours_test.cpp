// The winner's one-step neighbours: which dimensions are offered, and what follows a change
// (interleaving needs PP > 1, ETP tied to TP, SP off at TP 1, the EP overlap needs EP, the search's
// Megatron-FSDP is PP 1, FSDP's gradient checkpointing is on or off).
#include "search/neighbours.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "search_test_support.hpp"

namespace meshplan {
namespace {

struct Harness {
  SearchSpace space;
  CostModel cost;
  RuleCheck check = [](const Strategy&, const Workload&) -> std::string_view { return ""; };
  std::int64_t num_layers = 32;

  Harness() {
    space.tp = {1, 2, 4};
    space.pp = {1, 2};
    space.vpp = {1, 2};
    space.cp = {1};
    space.ep = {1, 2};
    space.micro_batch = {1};
    space.offload = {OffloadChoice::none};
    space.recompute = {RecomputeChoice::none, RecomputeChoice::full_uniform};
    space.moe_a2a_overlap = {false, true};
    space.megatron_fsdp = {false, true};
    cost.memory = [](const Strategy&, const Workload&) {
      PlanMemory m;
      m.peak_bytes[static_cast<std::size_t>(PlanPhase::update)] = 1e9;
      return m;
    };
    cost.time = [](const Strategy&, const Workload&, const PlanMemory&) {
      PlanTime t;
      t.seconds[static_cast<std::size_t>(TimeComponent::compute)] = 1.0;
      return t;
    };
  }

  std::vector<Neighbour> around(const Strategy& winner_strategy, WorkloadKind kind = WorkloadKind::pretrain) const {
    PlanCandidate winner;
    winner.strategy = winner_strategy;
    winner.workload.kind = kind;
    winner.workload.global_batch = 64;
    return neighbours_of(winner, NeighbourSearch{space, cost, check, 80e9, num_layers});
  }
};

std::vector<Neighbour> along(const std::vector<Neighbour>& all, Dimension dimension) {
  std::vector<Neighbour> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [&](const Neighbour& n) { return n.dimension == dimension; });
  return out;
}

/// A copy: callers pass the temporary list neighbours_of returns.
Neighbour with_value(const std::vector<Neighbour>& all, Dimension dimension, int value) {
  for (const Neighbour& n : all) {
    if (n.dimension == dimension && n.values[static_cast<std::size_t>(dimension)] == value) return n;
  }
  FAIL("no neighbour with that value");
  return all.front();
}

/// Megatron TP 2 x PP 2 (VPP 2) x DP 2 with sequence parallel and ETP tied to TP, on 8 GPUs.
Strategy megatron_winner() {
  Strategy s;
  s.tp = 2;
  s.etp = 2;
  s.sequence_parallel = true;
  s.pp = 2;
  s.vpp = 2;
  s.dp = 2;
  return s;
}

TEST_CASE("neighbours change one dimension to each other value the search tried, never to the winner's own") {
  const Harness h;
  const std::vector<Neighbour> all = h.around(megatron_winner());
  const std::vector<Neighbour> tp = along(all, Dimension::tp);
  REQUIRE(tp.size() == 2);  // TP 1 and TP 4, not TP 2
  PlanCandidate winner;
  winner.strategy = megatron_winner();
  const DimensionValues own = dimension_values(winner);
  for (const Neighbour& n : all) {
    const auto d = static_cast<std::size_t>(n.dimension);
    CHECK(n.values[d] != own[d]);
  }
}

TEST_CASE("a TP neighbour: ETP follows, sequence parallel goes at TP 1, DP absorbs the change") {
  const Harness h;
  const std::vector<Neighbour> all = h.around(megatron_winner());
  const Strategy tp1 = with_value(all, Dimension::tp, 1).candidate.strategy;
  CHECK(tp1.tp == 1);
  CHECK(tp1.etp == 1);
  CHECK_FALSE(tp1.sequence_parallel);
  CHECK(tp1.dp == 4);
  const Strategy tp4 = with_value(all, Dimension::tp, 4).candidate.strategy;
  CHECK(tp4.etp == 4);
  CHECK(tp4.sequence_parallel);
  CHECK(tp4.dp == 1);
}

TEST_CASE("a PP neighbour without a pipeline drops the interleaving") {
  const Harness h;
  const Strategy pp1 = with_value(h.around(megatron_winner()), Dimension::pp, 1).candidate.strategy;
  CHECK(pp1.pp == 1);
  CHECK(pp1.vpp == 1);
  CHECK(pp1.dp == 4);
}

TEST_CASE("the EP overlap is offered only with EP, and leaves with it") {
  const Harness h;
  // No EP: no overlap neighbour.
  CHECK(along(h.around(megatron_winner()), Dimension::a2a_overlap).empty());
  Strategy moe = megatron_winner();
  moe.ep = 2;
  moe.moe_a2a_overlap = true;
  const std::vector<Neighbour> all = h.around(moe);
  CHECK(along(all, Dimension::a2a_overlap).size() == 1);
  CHECK_FALSE(with_value(all, Dimension::ep, 1).candidate.strategy.moe_a2a_overlap);
}

TEST_CASE("Megatron-FSDP is offered on a PP 1 winner, and a pipelined neighbour leaves it") {
  const Harness h;
  CHECK(along(h.around(megatron_winner()), Dimension::megatron_fsdp).empty());  // PP 2
  Strategy flat = megatron_winner();
  flat.pp = 1;
  flat.vpp = 1;
  flat.dp = 4;
  flat.zero = ZeroStage::zero3;
  const std::vector<Neighbour> all = h.around(flat);
  CHECK(along(all, Dimension::megatron_fsdp).size() == 1);
  CHECK(with_value(all, Dimension::pp, 2).candidate.strategy.zero == ZeroStage::none);
}

TEST_CASE("an FSDP winner's recompute neighbour turns gradient checkpointing on") {
  const Harness h;
  Strategy fsdp;
  fsdp.backend = Backend::fsdp;
  fsdp.zero = ZeroStage::zero3;
  fsdp.dp = 8;
  const std::vector<Neighbour> recompute = along(h.around(fsdp), Dimension::recompute);
  REQUIRE(recompute.size() == 1);
  CHECK(recompute[0].values[static_cast<std::size_t>(Dimension::recompute)] ==
        static_cast<int>(RecomputeChoice::full_uniform));
}

TEST_CASE("with DP pinned, a TP neighbour is compensated by PP, not by DP") {
  // TP 2 x PP 2 x DP 2 with --fix dp=2: TP 4 keeps DP 2 by taking PP 1 ("TP=4, PP=1").
  Harness h;
  h.space.dp = {2};
  Strategy winner = megatron_winner();
  winner.vpp = 1;
  const Strategy tp4 = with_value(h.around(winner), Dimension::tp, 4).candidate.strategy;
  CHECK(tp4.tp == 4);
  CHECK(tp4.pp == 1);
  CHECK(tp4.dp == 2);
}

TEST_CASE("the winner's own pipeline split stays while its stages do, and goes when interleaving changes") {
  Harness h;
  Strategy winner = megatron_winner();
  winner.vpp = 1;
  winner.first_stage_layers = 18;
  winner.last_stage_layers = 14;
  const std::vector<Neighbour> all = h.around(winner);
  CHECK(with_value(all, Dimension::tp, 4).candidate.strategy.first_stage_layers == 18);
  CHECK(with_value(all, Dimension::vpp, 2).candidate.strategy.first_stage_layers == 0);
}

TEST_CASE("an offload neighbour carries the reference's param_offload") {
  Harness h;
  h.space.offload = {OffloadChoice::none, OffloadChoice::ref};
  const std::vector<Neighbour> all = h.around(megatron_winner(), WorkloadKind::rl);
  const Neighbour ref = with_value(all, Dimension::offload, static_cast<int>(OffloadChoice::ref));
  CHECK(ref.candidate.workload.rl.ref_param_offload);
}

TEST_CASE("a PP neighbour that cannot keep the interleaving runs without it, and without the EP overlap") {
  // 12 layers: PP 2 x VPP 2 divides them, PP 4 x VPP 2 does not; PP 4 without interleaving does,
  // and Megatron-core's EP all-to-all overlap needs interleaving on a pipeline.
  Harness h;
  h.space.pp = {1, 2, 4};
  h.num_layers = 12;
  h.check = [](const Strategy& s, const Workload&) -> std::string_view {
    return 12 % (s.pp * s.vpp) != 0 ? "pp_divides_layers" : "";
  };
  Strategy moe = megatron_winner();
  moe.ep = 2;
  moe.moe_a2a_overlap = true;
  const Neighbour pp4 = with_value(h.around(moe), Dimension::pp, 4);
  CHECK(pp4.broken_rule.empty());
  CHECK(pp4.candidate.strategy.vpp == 1);
  CHECK_FALSE(pp4.candidate.strategy.moe_a2a_overlap);
}

TEST_CASE("a neighbour off the pinned DP is reported as not factoring, whatever the dimension") {
  // A winner given from outside the search (plan --from) at DP 4 while --fix dp=2: changing its
  // recompute keeps DP 4, which the pinned space does not allow, and only TP, PP or CP changes are
  // compensated by the other parallel sizes.
  Harness h;
  h.space.dp = {2};
  Strategy winner;
  winner.tp = 2;
  winner.dp = 4;
  const std::vector<Neighbour> recompute = along(h.around(winner), Dimension::recompute);
  REQUIRE(recompute.size() == 1);
  CHECK(recompute[0].broken_rule == "world.factorization");
}

}  // namespace
}  // namespace meshplan
