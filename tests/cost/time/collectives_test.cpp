#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/collectives.hpp"

namespace meshplan {
namespace {

NodeGroup eight_gpu_node(double nvlink_Bps, double nic_Bps) {
  NodeGroup node;
  node.nodes = 4;
  node.gpus_per_node = 8;
  node.gpu.intra_node_Bps = nvlink_Bps;
  node.gpu.nic_Bps = nic_Bps;
  return node;
}

TEST_CASE("ring collectives follow the 2(n-1)/n and (n-1)/n bus factors (Thakur et al. 2005)") {
  const LinkPath link{100e9, 0.0};
  // 1 GB over 8 ranks at 100 GB/s: all-reduce 2*7/8*0.01 s = 17.5 ms; all-gather 7/8*0.01 = 8.75 ms.
  CHECK(ring_all_reduce_seconds(1e9, 8, link) == test::approx(0.0175));
  CHECK(ring_all_gather_seconds(1e9, 8, link) == test::approx(0.00875));
  CHECK(ring_reduce_scatter_seconds(1e9, 8, link) == test::approx(0.00875));
  // All-to-all of 1 GB sent per rank over 4 ranks: 3/4 * 0.01 s.
  CHECK(all_to_all_seconds(1e9, 4, link) == test::approx(0.0075));
  // Latency: 2(n-1) steps of 10 µs are added to the ring all-reduce: 17.5 ms + 0.14 ms.
  CHECK(ring_all_reduce_seconds(1e9, 8, LinkPath{100e9, 1e-5}) == test::approx(0.01764));
  CHECK(ring_all_reduce_seconds(1e9, 1, link) == 0.0);
  CHECK(p2p_seconds(1e6, LinkPath{1e9, 1e-6}) == test::approx(1.001e-3));
}

TEST_CASE("NCCL picks the tree for small messages on many ranks") {
  // 1 KB over 1024 ranks, 10 µs per step: ring 2*1023 steps = 20.5 ms; tree 2*log2(1024) = 20
  // steps = 0.2 ms (+ 2 KB / 10 GB/s = 0.2 µs).
  const LinkPath link{10e9, 1e-5};
  CHECK(tree_all_reduce_seconds(1e3, 1024, link) == test::approx(2e3 / 10e9 + 20 * 1e-5));
  CHECK(all_reduce_seconds(1e3, 1024, link) == test::approx(tree_all_reduce_seconds(1e3, 1024, link)));
  // 1 GB over 8 ranks: the ring (17.5 ms at 100 GB/s) beats the tree (20 ms).
  CHECK(all_reduce_seconds(1e9, 8, LinkPath{100e9, 0}) == test::approx(0.0175));
}

TEST_CASE("hierarchical all-reduce: intra-node reduce-scatter, inter-node 1/g, intra-node all-gather") {
  // 1 GB, 8 ranks per node, 4 nodes, NVLink 200 GB/s, NIC 25 GB/s, no latency:
  // RS 7/8 * 1/200 = 4.375 ms; inter ring AR of 0.125 GB over 4: 2*3/4*0.125/25 = 7.5 ms
  // (tree 10 ms); AG 4.375 ms. Total 16.25 ms.
  const double seconds = hierarchical_all_reduce_seconds(1e9, 8, 4, LinkPath{200e9, 0}, LinkPath{25e9, 0});
  CHECK(seconds == test::approx(0.01625));
}

TEST_CASE("a group runs on NVLink when it fits in a node, else on the NIC, with NCCL efficiencies") {
  const NodeGroup node = eight_gpu_node(300e9, 25e9);
  // TP 8, stride 1: inside the node; 300 GB/s line rate x 0.8.
  CHECK(group_link(node, {8, 1}, 0.8, 0.9).bandwidth_Bps == test::approx(240e9));
  // DP 4 with stride 8 (TP fills the node): crosses nodes; 25 GB/s x 0.9.
  CHECK(group_link(node, {4, 8}, 0.8, 0.9).bandwidth_Bps == test::approx(22.5e9));
  // A measured figure from `meshplan calibrate` is taken as is.
  NodeGroup measured = node;
  measured.inter_node_Bps = 20e9;
  measured.bandwidths_measured = true;
  CHECK(inter_node_link(measured, 0.9).bandwidth_Bps == test::approx(20e9));
  // Four NICs for eight GPUs: each GPU gets half of its line rate.
  NodeGroup shared = node;
  shared.nics_per_node = 4;
  CHECK(inter_node_link(shared, 1.0).bandwidth_Bps == test::approx(12.5e9));
}

TEST_CASE("an all-to-all over nodes sends to local peers over NVLink and to remote ones through the NIC at once") {
  const NodeGroup node = eight_gpu_node(200e9, 25e9);
  const LinkPath intra{200e9, 0};
  const LinkPath inter{25e9, 0};
  // EP 32, stride 1: 8 members per node. A rank sends 1/32 of 1 GB to each member: 7 local
  // peers over NVLink, 7/32 * 1/200 = 1.09 ms, and 24 remote ones through its NIC,
  // 24/32 * 1/25 = 30 ms, concurrently: the NIC share sets the time (a flat NIC all-to-all,
  // 31/32 * 1/25 = 38.75 ms, would also send the local share through the NIC).
  CHECK(group_all_to_all_seconds(1e9, node, {32, 1}, intra, inter) == test::approx(0.03));
  // Inside one node: the plain all-to-all, 7/8 * 1/200.
  CHECK(group_all_to_all_seconds(1e9, node, {8, 1}, intra, inter) == test::approx(0.004375));
  // EP 8 with stride 2 (ETP 2): 4 members per node over 2 nodes: 3/8 over NVLink, 4/8 over the
  // NIC: max(1.875 ms, 20 ms).
  CHECK(group_all_to_all_seconds(1e9, node, {8, 2}, intra, inter) == test::approx(0.02));
}

TEST_CASE("a group spread over nodes reduces in two levels") {
  const NodeGroup node = eight_gpu_node(200e9, 25e9);
  const LinkPath intra{200e9, 0};
  const LinkPath inter{25e9, 0};
  // DP 32 with stride 2 (TP 2): 4 members per node over 8 nodes. Reduce-scatter of 1 GB:
  // intra 3/4 * 1/200 = 3.75 ms, then 0.25 GB over 8 nodes: 7/8 * 0.25/25 = 8.75 ms.
  CHECK(group_reduce_scatter_seconds(1e9, node, {32, 2}, intra, inter) == test::approx(0.0125));
  // Inside one node the plain ring: 8 ranks, 7/8 * 1/200.
  CHECK(group_reduce_scatter_seconds(1e9, node, {8, 1}, intra, inter) == test::approx(0.004375));
  // DP 12 with stride 1: 8 members in the first node and 4 in the second, so ceil(12 / 8) = 2 nodes:
  // intra 7/8 * 1/200 = 4.375 ms, then 1/8 GB over 2 nodes: 1/2 * 0.125/25 = 2.5 ms. (A flat
  // NVLink ring over 12 ranks, as if they fit one node, would be 11/12 * 1/200 = 4.58 ms.)
  CHECK(group_reduce_scatter_seconds(1e9, node, {12, 1}, intra, inter) == test::approx(0.006875));
  // One member per node: a flat ring over the NICs, 2*3/4*1/25 = 60 ms.
  CHECK(group_all_reduce_seconds(1e9, node, {4, 8}, intra, inter) == test::approx(0.06));
}

}  // namespace
}  // namespace meshplan
