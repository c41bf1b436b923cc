#include "hardware/cluster_spec.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

Result<Cluster> spec(std::string_view text) { return parse_cluster_spec(text, builtin_gpu_catalog()); }
Result<Cluster> file(std::string_view text) { return parse_cluster_file(text, "c.yaml", builtin_gpu_catalog()); }

std::string message_of(const Result<Cluster>& result) {
  REQUIRE_FALSE(result.ok());
  return result.error().to_string();
}

}  // namespace

TEST_CASE("a single-group spec takes its link defaults from the catalog") {
  auto cluster = spec("4x8xA100-40GB");
  REQUIRE(cluster.ok());
  REQUIRE(cluster->groups.size() == 1);
  const NodeGroup& group = cluster->groups[0];
  CHECK(group.nodes == 4);
  CHECK(group.gpus_per_node == 8);
  CHECK(group.gpu.id == "A100-40GB");
  CHECK(group.intra_node_Bps == 300e9);   // NVLink3, per direction
  CHECK(group.inter_node_Bps == 25e9);    // 200 Gb/s HDR per GPU
  CHECK(group.nics_per_node == 0);        // one per GPU
  CHECK(cluster->total_gpus() == 32);
  CHECK_FALSE(cluster->heterogeneous());
}

TEST_CASE("a heterogeneous spec joins groups with '+' (case-insensitive names, aliases)") {
  auto cluster = spec("2x8xa100-80gb + 2x8xV100");
  REQUIRE(cluster.ok());
  REQUIRE(cluster->groups.size() == 2);
  CHECK(cluster->groups[0].gpu.id == "A100-80GB");
  CHECK(cluster->groups[1].gpu.id == "V100-32GB");
  CHECK(cluster->total_gpus() == 32);
  CHECK(cluster->heterogeneous());
  // A type containing 'x' splits only at the first two separators.
  auto amd = spec("1X8xMI300X");
  REQUIRE(amd.ok());
  CHECK(amd->groups[0].gpu.id == "MI300X");
}

TEST_CASE("bad cluster specs say what is wrong") {
  CHECK(message_of(spec("4x0xA100")) == "cluster group '4x0xA100': GPUs per node must be 1..72, got 0");
  CHECK(message_of(spec("0x8xA100")) == "cluster group '0x8xA100': node count must be 1..100000, got 0");
  CHECK(message_of(spec("1x73xA100")).find("must be 1..72, got 73") != std::string::npos);
  CHECK(message_of(spec("100001x8xA100")).find("1..100000") != std::string::npos);
  CHECK(message_of(spec("axbxc")).find("node count 'a' is not a whole number") != std::string::npos);
  CHECK(message_of(spec("4x8")).find("is not NODESxGPUSxTYPE") != std::string::npos);
  CHECK(message_of(spec("-1x8xA100")).find("must be 1..100000, got -1") != std::string::npos);
  CHECK(message_of(spec("99999999999x8xA100")).find("not a whole number") != std::string::npos);
  CHECK(message_of(spec("4x8xA100+")).find("empty group") != std::string::npos);
  CHECK(message_of(spec("")).find("empty group") != std::string::npos);
  CHECK(message_of(spec("4x8xH100-80G")).find("did you mean 'H100-80GB'?") != std::string::npos);
}

TEST_CASE("a cluster file sets links, NICs, latency and host RAM per group (YAML and JSON agree)") {
  for (const char* name : {"cluster/hetero.yaml", "cluster/hetero.json"}) {
    INFO(name);
    const std::string text = test::file_text(test::fixture(name));
    auto cluster = parse_cluster_file(text, name, builtin_gpu_catalog());
    REQUIRE_MESSAGE(cluster.ok(), (cluster.ok() ? "" : cluster.error().to_string()));
    REQUIRE(cluster->groups.size() == 2);
    const NodeGroup& a100 = cluster->groups[0];
    CHECK(a100.nics_per_node == 4);
    // 4 NICs x 200 Gb/s / 8 bit = 100 GB/s per node, shared by 8 GPUs = 12.5 GB/s per GPU
    // (the nccl-tests#119 setup: "theoretical 100 GB/s = 200G x 4 / 8").
    CHECK(a100.inter_node_Bps == test::approx(12.5e9));
    CHECK(a100.intra_node_Bps == 300e9);  // catalog default
    CHECK(a100.intra_node_latency_s == test::approx(3e-6));
    CHECK(a100.inter_node_latency_s == test::approx(8e-6));
    CHECK(a100.host_ram_bytes == 1024LL * 1024 * 1024 * 1024);
    const NodeGroup& v100 = cluster->groups[1];
    CHECK(v100.gpus_per_node == 8);  // catalog default
    CHECK(v100.gpu.id == "V100-32GB");
    CHECK(cluster->total_gpus() == 32);
  }
}

TEST_CASE("a JSON cluster file can set per-GPU bandwidths directly (decimal GB/s)") {
  auto cluster = parse_cluster_file(R"({"groups": [{"nodes": 1, "gpu": "L40S", "intra_node_GBps": 25,
    "inter_node_GBps": 12.5}]})", "c.json", builtin_gpu_catalog());
  REQUIRE(cluster.ok());
  CHECK(cluster->groups[0].intra_node_Bps == 25e9);
  CHECK(cluster->groups[0].inter_node_Bps == 12.5e9);
}

TEST_CASE("cluster file errors name the file, the line and the key") {
  CHECK(message_of(file("groups:\n  - nodes: 4\n    gpu: H100\n    inter_node_Gbps: 400\n")) ==
        "c.yaml:4: groups[0].inter_node_Gbps: unknown key 'inter_node_Gbps'; did you mean 'inter_node_GBps'? "
        "(known keys: nodes, gpus_per_node, gpu, intra_node_GBps, intra_node_latency_us, inter_node_GBps, "
        "nic_Gbps, nics_per_node, inter_node_latency_us, host_ram_GiB, gemm_TFLOPS, bandwidths_measured)");
  CHECK(message_of(file("groups:\n  - gpu: H100\n    nodes: 0\n")) ==
        "c.yaml:3: groups[0].nodes: 0 is out of range: expected 1 to 100000");
  CHECK(message_of(file("groups:\n  - gpu: H100\n    nodes: 1\n    inter_node_GBps: -50\n")) ==
        "c.yaml:4: groups[0].inter_node_GBps: -50 is out of range: expected 0.001 to 100000");
  CHECK(message_of(file("groups:\n  - nodes: 1\n    gpu: H100-80G\n")).rfind(
            "c.yaml:3: groups[0].gpu: unknown GPU 'H100-80G'; did you mean 'H100-80GB'?", 0) == 0);
  CHECK(message_of(file("groups:\n  - nodes: 1\n")) == "c.yaml:2: groups[0].gpu: missing required key");
  CHECK(message_of(file("groups:\n  - nodes: two\n    gpu: H100\n")) ==
        "c.yaml:2: groups[0].nodes: expected a number, got 'two'");
  CHECK(message_of(file("groups:\n  - nodes: 1.5\n    gpu: H100\n")) ==
        "c.yaml:2: groups[0].nodes: expected a whole number, got 1.5");
  CHECK(message_of(file("groups:\n  - {nodes: 1, gpu: H100, nic_Gbps: 400, inter_node_GBps: 50}\n"))
            .find("not both") != std::string::npos);
  CHECK(message_of(file("groups:\n  - nodes:\n    gpu: H100\n")) == "c.yaml:2: groups[0].nodes: has no value");
  CHECK(message_of(file("groups:\n  - 5\n")) == "c.yaml:2: groups[0]: expected a mapping of keys to values");
  CHECK(message_of(file("groups: []\n")).find("non-empty list") != std::string::npos);
  CHECK(message_of(file("group:\n  - nodes: 1\n")).find("did you mean 'groups'?") != std::string::npos);
  CHECK(message_of(file("")) == "c.yaml:1: the file is empty");
  CHECK(message_of(file("groups:\n  - nodes: 1\n    gpu: [H100\n")).rfind("c.yaml:", 0) == 0);
  CHECK(message_of(file("groups:\n  - nodes: 1\n    gpu: [H100\n")).find("malformed YAML/JSON") != std::string::npos);
  CHECK(message_of(file("{\"groups\": [\n {\"nodes\": 2, \"gpu\": \"A100\"\n]}\n")).find("malformed") !=
        std::string::npos);
}

TEST_CASE("a rack-scale part given host by host shares its rack's NVLink domain") {
  // GB200 NVL72: 18 compute trays of 4 GPUs on one rack's NVLink switches (the catalog's
  // gpus_per_host 4, gpus_per_node 72). Slurm, Ray and verl count the trays: trainer.nnodes=16
  // n_gpus_per_node=4 is 64 GPUs of one NVLink domain.
  auto one_rack = spec("16x4xGB200-NVL72");
  REQUIRE(one_rack.ok());
  CHECK(one_rack->groups[0].nodes == 1);
  CHECK(one_rack->groups[0].gpus_per_node == 64);
  CHECK(one_rack->groups[0].hosts_per_node == 16);
  CHECK(one_rack->groups[0].gpus_per_host() == 4);
  // 32 trays: the fewest even domains of at most 72 GPUs are two of 16 trays (NeMo RL's 2x64).
  auto two_racks = spec("32x4xGB200-NVL72");
  REQUIRE(two_racks.ok());
  CHECK(two_racks->groups[0].nodes == 2);
  CHECK(two_racks->groups[0].gpus_per_node == 64);
  // 20 trays: 2 domains of 10 (20 does not fit one rack of 18).
  auto twenty = spec("20x4xGB300-NVL72");
  REQUIRE(twenty.ok());
  CHECK(twenty->groups[0].nodes == 2);
  CHECK(twenty->groups[0].gpus_per_node == 40);
  const auto notes = cluster_topology_notes(*two_racks);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("32 hosts of 4 GB200-NVL72 GPUs read as 2x64xGB200-NVL72") != std::string::npos);

  // 19 trays (prime, above a rack) split into no even domains: each stays its own, and says so.
  auto prime = spec("19x4xGB200-NVL72");
  REQUIRE(prime.ok());
  CHECK(prime->groups[0].nodes == 19);
  CHECK(prime->groups[0].gpus_per_node == 4);
  CHECK(prime->groups[0].hosts_per_node == 0);
  const auto prime_notes = cluster_topology_notes(*prime);
  REQUIRE(prime_notes.size() == 1);
  CHECK(prime_notes[0].find("do not split evenly") != std::string::npos);

  // The domain written as such, one tray, and 8-GPU servers are read as written, without a note.
  for (const char* as_written : {"1x64xGB200-NVL72", "1x4xGB200-NVL72", "4x8xH100"}) {
    INFO(as_written);
    auto cluster = spec(as_written);
    REQUIRE(cluster.ok());
    CHECK(cluster->groups[0].hosts_per_node == 0);
    CHECK(cluster_topology_notes(*cluster).empty());
  }
}

TEST_CASE("a cluster file's per-host figures follow the hosts packed into a domain") {
  // 16 trays of 4 GPUs with 4 NICs and 480 GiB of host memory each: one domain of 64 GPUs with
  // 64 NICs and 16 x 480 GiB; the NIC share per GPU stays 400 Gb/s.
  auto cluster = file("groups:\n  - {nodes: 16, gpus_per_node: 4, gpu: GB200-NVL72, nics_per_node: 4, host_ram_GiB: 480}\n");
  REQUIRE_MESSAGE(cluster.ok(), (cluster.ok() ? "" : cluster.error().to_string()));
  const NodeGroup& group = cluster->groups[0];
  CHECK(group.nodes == 1);
  CHECK(group.gpus_per_node == 64);
  CHECK(group.nics_per_node == 64);
  CHECK(group.host_ram_bytes == 16 * 480LL * 1024 * 1024 * 1024);
  CHECK(group.inter_node_Bps == test::approx(50e9));
}

TEST_CASE("part of a node group: whole hosts of a rack repacked, else whole nodes or part of one") {
  auto rack = spec("1x64xGB200-NVL72");
  REQUIRE(rack.ok());
  // 48 of the rack's 64 GPUs: 12 trays, one domain of 48.
  const NodeGroup trainer = node_group_part(rack->groups[0], 48);
  CHECK(trainer.nodes == 1);
  CHECK(trainer.gpus_per_node == 48);
  CHECK(trainer.hosts_per_node == 12);
  // 112 of two racks' 128: 28 trays, two domains of 14.
  auto racks = spec("2x64xGB200-NVL72");
  REQUIRE(racks.ok());
  const NodeGroup most = node_group_part(racks->groups[0], 112);
  CHECK(most.nodes == 2);
  CHECK(most.gpus_per_node == 56);
  auto servers = spec("4x8xH100");
  REQUIRE(servers.ok());
  CHECK(node_group_part(servers->groups[0], 16).nodes == 2);
  CHECK(node_group_part(servers->groups[0], 2).gpus_per_node == 2);
}

}  // namespace meshplan
