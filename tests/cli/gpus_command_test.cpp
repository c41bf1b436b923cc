#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("meshplan gpus prints an aligned table of every catalog entry") {
  const test::CliRun run = test::run({"gpus"});
  CHECK(run.exit_code == 0);
  CHECK(run.err.empty());
  // The A100-40GB row: 42405855232 B = 39.49 GiB, 1.555 TB/s, 312 dense bf16, NVLink3 300 GB/s.
  CHECK(run.out.find("A100-40GB         39.49     1.555    312.0    312.0        -    156.0  NVLink3 300") !=
        std::string::npos);
  // A derived figure is starred: MI355X's FP8 rate is counted from AMD's per-CU rate, CUs and clock.
  CHECK(run.out.find("5033.2*") != std::string::npos);
  CHECK(run.out.find("L40S ") != std::string::npos);
  CHECK(run.out.find("362.1") != std::string::npos);
}

TEST_CASE("meshplan gpus --json has explicit units and the derivations") {
  const test::CliRun run = test::run({"gpus", "--json"});
  REQUIRE(run.exit_code == 0);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  CHECK(json["schema"] == "meshplan-gpus/1");
  REQUIRE(json["gpus"].size() == 24);
  const nlohmann::json& h20 = json["gpus"][7];
  CHECK(h20["id"] == "H20-96GB");
  CHECK(h20["bf16_flops"].get<double>() == 148e12);
  CHECK(h20["intra_node_link"] == "nvlink");
  CHECK(h20["derived"].contains("memory_bytes"));
  CHECK(json["gpus"][0]["memory_bytes"].get<std::int64_t>() == 42405855232);
  CHECK(json["gpus"][4]["measured_allreduce"]["nvls"] == true);
  // The best matmul measured on a part (0: none) and its generation's mean share of the peak:
  // H20 was not measured and takes Hopper's, H100's 794.5 of 989 TFLOP/s (H200 the same).
  CHECK(h20["matmul_bf16_flops"].get<double>() == 0);
  CHECK(h20["matmul_share_bf16"].get<double>() == test::approx(794.5 / 989.0));
  // Every field the cost model reads is printed: the SMs a DeepEP / HybridEP dispatcher's share is
  // counted against (H20's 78), the NVFP4 peak, and the Grace host's measured figures.
  CHECK(h20["sm_count"] == 78);
  CHECK(h20["fp4_flops"].get<double>() == 0);
  for (const nlohmann::json& gpu : json["gpus"]) {
    if (gpu["id"] == "B200") CHECK(gpu["matmul_bf16_flops"].get<double>() == 1745e12);
    if (gpu["id"] == "B200") CHECK(gpu["fp4_flops"].get<double>() == 1e16);
    if (gpu["id"] == "GB200-NVL72") CHECK(gpu["host_op_time_ratio"].get<double>() == test::approx(2.75));
    if (gpu["id"] == "GB200-NVL72") CHECK(gpu["host_memory_Bps"].get<double>() == 763e9);
  }
}

TEST_CASE("meshplan gpus --gpu-catalog reads a user's catalog, bad ones exit 2 naming file, line and key") {
  const std::string bad = test::fixture("gpu_catalog/bad_type.json").string();
  const test::CliRun run = test::run({"gpus", "--gpu-catalog", bad});
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "meshplan: error: " + bad + ":3: gpus[0].memory_bytes: expected a number, got 'lots'\n");
  const test::CliRun missing = test::run({"gpus", "--gpu-catalog", "/no/such/catalog.json"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/catalog.json") != std::string::npos);
  // A measured matmul above the part's dense peak is a unit slip, not a measurement.
  const std::string above = test::fixture("gpu_catalog/matmul_above_peak.json").string();
  const test::CliRun matmul = test::run({"gpus", "--gpu-catalog", above});
  CHECK(matmul.exit_code == 2);
  CHECK(matmul.err.find(above + ":21: gpus[0].matmul_bf16_flops: ") != std::string::npos);
  const std::string builtin = (test::source_dir() / "data/hardware/gpus.json").string();
  CHECK(test::run({"gpus", "--gpu-catalog", builtin}).exit_code == 0);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("meshplan gpus --cluster shows the resolved cluster with catalog defaults marked") {
  const test::CliRun run = test::run({"gpus", "--cluster", "2x8xA100-80GB+2x8xV100-32GB"});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("2x8    A100-80GB  300.0 (catalog)  25.0 (catalog)") != std::string::npos);
  CHECK(run.out.find("32 GPUs in 2 groups.") != std::string::npos);
  const test::CliRun json = test::run({"gpus", "--json", "--cluster", test::fixture("cluster/hetero.json").string()});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json parsed = nlohmann::json::parse(json.out);
  CHECK(parsed["total_gpus"] == 32);
  CHECK(parsed["groups"][0]["inter_node_Bps"].get<double>() == test::approx(12.5e9));
  CHECK(parsed["groups"][0]["inter_node_Bps_from"] == "input");
  CHECK(parsed["groups"][0]["intra_node_Bps_from"] == "catalog");
}

TEST_CASE("every bad --cluster input exits 2 with one message naming the file, line and key") {
  struct Case {
    std::string arg;
    std::string expected_start;
  };
  const std::string dir = test::fixture("cluster/").string();
  for (const Case& c : {Case{"4x0xA100", "meshplan: error: --cluster: cluster group '4x0xA100': GPUs per node"},
                        Case{"axbxc", "meshplan: error: --cluster: cluster group 'axbxc': node count 'a'"},
                        Case{"4x8xA100-40G", "meshplan: error: --cluster: unknown GPU 'A100-40G'; did you mean"},
                        Case{dir + "malformed.json", "meshplan: error: " + dir + "malformed.json:4: malformed"},
                        Case{dir + "malformed.yaml", "meshplan: error: " + dir + "malformed.yaml:4: malformed"},
                        Case{dir + "unknown_key.yaml", "meshplan: error: " + dir + "unknown_key.yaml:4: groups[0]."},
                        Case{dir + "zero_nodes.yaml", "meshplan: error: " + dir + "zero_nodes.yaml:3: groups[0].nodes"},
                        Case{dir + "negative_bandwidth.json",
                             "meshplan: error: " + dir + "negative_bandwidth.json:3: groups[0].inter_node_GBps: -50"},
                        Case{dir + "unknown_gpu.yaml", "meshplan: error: " + dir + "unknown_gpu.yaml:3: groups[0].gpu"},
                        Case{"missing.yaml", "meshplan: error: missing.yaml: cannot open file"}}) {
    INFO(c.arg);
    const test::CliRun run = test::run({"gpus", "--cluster", c.arg});
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());
    CHECK(run.err.rfind(c.expected_start, 0) == 0);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  }
}

}  // namespace meshplan
