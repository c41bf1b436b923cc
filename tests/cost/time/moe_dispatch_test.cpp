// A MoE layer's dispatch as each token dispatcher moves it (cost/time/moe_dispatch.cpp), worked by
// hand for Qwen3-30B-A3B (128 experts, top-8, h = 2048) routing 4096 tokens of 2 bytes a value.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/efficiency.hpp"
#include "cost/time/moe_dispatch.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {
namespace {

NodeGroup h100_nodes(int nodes) {
  NodeGroup node;
  node.nodes = nodes;
  node.gpus_per_node = 8;
  return node;
}

constexpr double kTokenBytes = 2048 * 2.0;
constexpr double kTokens = 4096;

}  // namespace

TEST_CASE("expert miss probability: C(E - held, k) / C(E, k) for uniform top-k routing") {
  // One GPU of EP 16 holds 8 of 128 experts: prod_{i<8} (120 - i)/(128 - i) = 0.5877.
  CHECK(expert_miss_probability(128, 8, 8) == test::approx(0.58771).epsilon(1e-4));
  // One node of 8 such GPUs holds 64: prod_{i<8} (64 - i)/(128 - i) = 0.0030959.
  CHECK(expert_miss_probability(128, 64, 8) == test::approx(0.0030959).epsilon(1e-4));
  // Fewer experts left than a token picks: every token hits the holder.
  CHECK(expert_miss_probability(16, 10, 8) == 0.0);
  CHECK(expert_miss_probability(128, 0, 8) == 1.0);
}

TEST_CASE("flex dispatch over two nodes sends a token once per node it reaches, alltoall once per expert") {
  const LinkPath nvlink{360e9, 0.0};
  const LinkPath nic{50e9, 0.0};
  const GroupPlacement ep16{16, 1};
  ExpertDispatch dispatch{kTokens, kTokenBytes, 128, 8, MoeDispatcher::alltoall, 0};
  // alltoall: 8 rows a token, half of the 16 ranks on the other node: 8/16 * 4096 * 8 * 4096 B =
  // 67.1 MB through the NIC at 50 GB/s = 1.342 ms (NVLink's 7/16 at 360 GB/s is faster).
  const double rows = kTokens * kTokenBytes * 8;
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(2), ep16, nvlink, nic) == test::approx(0.5 * rows / 50e9));
  // flex: the other node is hit with chance 1 - 0.0030959, once: 16.73 MB at 50 GB/s = 0.3346 ms.
  // NVLink: 7 local peers hit with chance 1 - 0.58771 = 0.41229 each (48.4 MB), and as much
  // again forwarded from the NIC (16.73 MB x 7 x 0.41229 / 0.99690), on 20 SMs x 15.4 GB/s =
  // 308 GB/s: 96.8 MB / 308 GB/s = 0.3144 ms. The NIC sets the time.
  dispatch.dispatcher = MoeDispatcher::flex;
  const double token_bytes = kTokens * kTokenBytes;
  const double rdma = (1 - 0.0030959) * token_bytes;
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(2), ep16, nvlink, nic) == test::approx(rdma / 50e9).epsilon(1e-4));
  // On 8 SMs the NVLink stage is slower (123.2 GB/s: 0.786 ms) and sets the time.
  dispatch.sms = 8;
  const double nvlink_bytes = 7 * 0.41229 * token_bytes + rdma * 7 * 0.41229 / (1 - 0.0030959);
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(2), ep16, nvlink, nic) ==
        test::approx(nvlink_bytes / (8 * 15.4e9)).epsilon(1e-4));
}

TEST_CASE("flex dispatch between nodes at the rate HybridEP's kernels measure on H100 (400G NICs)") {
  // deepseek-ai/DeepEP hybrid-ep docs/README_Hybrid-EP.md, H100: tests/test_hybrid_ep.py's default
  // shape, 4096 tokens of 7168 BF16 a rank, 8 experts a GPU, top-8 picked uniformly; kernel time =
  // its "RDMA" bytes (one copy per node a token reaches, its own node included: 212.2 MB at EP 32,
  // 309.6 MB at EP 64) over the GB/s it prints: EP 32 (4 nodes, 16 SMs) 57.69 GB/s -> 3.678 ms,
  // EP 64 (8 nodes, 8 SMs) 50.55 GB/s -> 6.125 ms.
  // The model: the NIC at ep_nic_efficiency of 50 GB/s carries one copy to each other node hit.
  // EP 32, 256 experts, a node holds 64: hit 1 - prod_{i<8} (192 - i)/(256 - i) = 0.90355, 3 nodes
  // x 0.90355 x 58.72 MB = 159.2 MB. EP 64, 512 experts: hit 0.65907, 7 x 0.65907 x 58.72 MB = 270.9 MB.
  NodeGroup node = h100_nodes(4);
  node.inter_node_Bps = 50e9;
  const LinkPath nvlink{360e9, 0.0};
  const LinkPath nic = inter_node_link(node, fitted_efficiency_constants().ep_nic_efficiency);
  const double hidden_bytes = 7168 * 2.0;
  const ExpertDispatch ep32{kTokens, hidden_bytes, 256, 8, MoeDispatcher::flex, 16};
  CHECK(expert_dispatch_seconds(ep32, node, GroupPlacement{32, 1}, nvlink, nic) == test::approx(3.678e-3).epsilon(0.02));
  node.nodes = 8;
  const ExpertDispatch ep64{kTokens, hidden_bytes, 512, 8, MoeDispatcher::flex, 8};
  CHECK(expert_dispatch_seconds(ep64, node, GroupPlacement{64, 1}, nvlink, nic) == test::approx(6.125e-3).epsilon(0.03));
}

TEST_CASE("allgather dispatch: a two-level all-gather of the group's tokens, reduce-scattered back") {
  const LinkPath nvlink{360e9, 0.0};
  const LinkPath nic{50e9, 0.0};
  const double tokens = kTokens * kTokenBytes;  // 16.78 MB a rank
  ExpertDispatch dispatch{kTokens, kTokenBytes, 128, 8, MoeDispatcher::allgather, 0};
  // EP 16 over two nodes: 16 x 16.78 MB gathered; inside the node 7/8 of it over NVLink (234.9 MB
  // at 360 GB/s = 0.6524 ms), between the nodes 1/2 of the node's 1/8 (16.78 MB at 50 GB/s =
  // 0.3355 ms): 0.988 ms, against alltoall's 1.342 ms.
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(2), GroupPlacement{16, 1}, nvlink, nic) ==
        test::approx(7.0 / 8 * 16 * tokens / 360e9 + 0.5 * 2 * tokens / 50e9));
  // Inside one node of 8: a ring all-gather of 8 x 16.78 MB, 7/8 of it over NVLink.
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(1), GroupPlacement{8, 1}, nvlink, nic) ==
        test::approx(7.0 / 8 * 8 * tokens / 360e9));
}

TEST_CASE("flex dispatch inside a node: once per GPU hit, at the kernel's SM rate or NVLink's, the lower") {
  const LinkPath nvlink{360e9, 0.0};
  const GroupPlacement ep8{8, 1};
  // EP 8: 16 experts a GPU, hit with chance 1 - prod_{i<8} (112 - i)/(128 - i) = 1 - 0.33258;
  // 7 peers: 4.672 copies of the token against alltoall's 7/8 x 8 = 7 rows.
  const double hit = 1 - 0.33258;
  ExpertDispatch dispatch{kTokens, kTokenBytes, 128, 8, MoeDispatcher::flex, 32};
  // 32 SMs x 15.4 GB/s = 492.8 GB/s, above NVLink's 360: NVLink sets the rate.
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(1), ep8, nvlink, LinkPath{}) ==
        test::approx(7 * hit * kTokens * kTokenBytes / 360e9).epsilon(1e-4));
  dispatch.dispatcher = MoeDispatcher::alltoall;
  CHECK(expert_dispatch_seconds(dispatch, h100_nodes(1), ep8, nvlink, LinkPath{}) ==
        test::approx(7.0 / 8 * kTokens * kTokenBytes * 8 / 360e9));
}

TEST_CASE("flex dispatch inside a GB200 NVL72 domain at the rate HybridEP measures there, 8 to 36 ranks") {
  // deepseek-ai/DeepEP's Hybrid-EP intra-node document (Hybrid-EP_Intra-node_Implementation.md, fork
  // shifangx/DeepEP at 1242eb4f), GB200, tests/test_hybrid_ep.py's shape: 4096 tokens of 7168 BF16 a
  // rank, 8 experts a rank, top-8 picked uniformly, 32 SMs. Its "algorithm bandwidth" is the tokens a
  // rank receives (once per rank a token reaches, its own included: dispatched_hidden.numel() x 2)
  // over the Torch API's time. Measured dispatch / combine GB/s: 8 ranks 545.71 / 568.94, 16 523.48 /
  // 521.55, 24 507.32 / 483.76, 32 484.22 / 464.54, 36 479.02 / 447.89.
  // The model: the NVL72 domain is one node; each of r - 1 peers is hit with chance
  // 1 - prod_{i<8} (8r - 8 - i)/(8r - i), the copies at 32 SMs x 15.4 GB/s = 492.8 GB/s (below NVLink's
  // 900 x 0.8), plus 3 us a peer. EP 8: hit 0.6791, 7 x 0.6791 x 58.72 MB / 492.8 GB/s + 21 us =
  // 587.4 us, so 8 x 0.6791 x 58.72 MB / 587.4 us = 543.1 GB/s; EP 36: hit 0.2040, 955.9 us, 451.2 GB/s.
  // Within 7% of every figure (0.93-1.01 of them). At 16 SMs HybridEP's TMA copies measure about the
  // same rates (550.10 at 8 ranks) where the model's DeepEP per-SM rate gives half: not modelled
  // (docs/accuracy-held-out-training.md, session 57).
  NodeGroup node = test::catalog_node("GB200-NVL72");
  node.gpus_per_node = node.gpu.gpus_per_node;
  REQUIRE(node.gpus_per_node == 72);
  const LinkPath nvlink = intra_node_link(node, fitted_efficiency_constants().nvlink_efficiency);
  const double token_bytes = 4096 * 7168 * 2.0;
  struct Measured {
    int ranks;
    double dispatch_GBps, combine_GBps;
  };
  for (const Measured& m : {Measured{8, 545.71, 568.94}, Measured{16, 523.48, 521.55}, Measured{24, 507.32, 483.76},
                            Measured{32, 484.22, 464.54}, Measured{36, 479.02, 447.89}}) {
    CAPTURE(m.ranks);
    const ExpertDispatch dispatch{4096, 7168 * 2.0, 8 * m.ranks, 8, MoeDispatcher::flex, 32};
    const double seconds = expert_dispatch_seconds(dispatch, node, GroupPlacement{m.ranks, 1}, nvlink, LinkPath{});
    const double received = m.ranks * (1.0 - expert_miss_probability(8 * m.ranks, 8, 8)) * token_bytes;
    CHECK(received / seconds / 1e9 == test::approx(m.dispatch_GBps).epsilon(0.07));
    CHECK(received / seconds / 1e9 == test::approx(m.combine_GBps).epsilon(0.07));
  }
  // The worked figures of the comment.
  const ExpertDispatch ep8{4096, 7168 * 2.0, 64, 8, MoeDispatcher::flex, 32};
  CHECK(expert_dispatch_seconds(ep8, node, GroupPlacement{8, 1}, nvlink, LinkPath{}) == test::approx(587.4e-6).epsilon(1e-3));
}

}  // namespace meshplan
