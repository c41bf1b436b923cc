#include <doctest/doctest.h>

#include <fmt/format.h>

#include "approx.hpp"
#include "cost/time/collectives.hpp"
#include "cost/calibration/nccl_calibration.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

std::string fixture_text(const std::string& name) { return test::file_text(test::fixture("nccl/" + name)); }

/// An all_reduce_perf table whose times follow t = alpha + bytes * slope exactly.
std::string synthetic_table(int ranks, double alpha_s, double slope_s_per_byte) {
  std::string text;
  for (int rank = 0; rank < ranks; ++rank) text += fmt::format("#  Rank {} Group 0 Pid 1 on n device 0 [0x00] GPU\n", rank);
  text += "#       size         count      type   redop    root     time   algbw   busbw #wrong\n";
  for (double bytes = 1 << 20; bytes <= 8.0 * (1 << 30); bytes *= 4) {
    const double us = (alpha_s + bytes * slope_s_per_byte) * 1e6;
    text += fmt::format("{:.0f} {:.0f} float sum -1 {:.6f} 1.0 1.0 0\n", bytes, bytes / 4, us);
  }
  return text;
}

TEST_CASE("nccl-tests all_reduce_perf output parses into a size sweep") {
  auto sweep = parse_nccl_tests(fixture_text("a100_8gpu_all_reduce_perf.txt"), "a100.txt");
  REQUIRE(sweep.ok());
  CHECK(sweep->collective == NcclCollective::all_reduce);
  CHECK(sweep->ranks == 8);
  REQUIRE(sweep->points.size() == 6);
  CHECK(sweep->points[0].bytes == 1048576);
  CHECK(sweep->points[0].seconds == test::approx(50.7e-6));
}

TEST_CASE("alpha-beta fit recovers a synthetic sweep exactly") {
  // 8 ranks, 25 µs latency, 0.2 ns per byte of size.
  auto sweep = parse_nccl_tests(synthetic_table(8, 25e-6, 0.2e-9), "synthetic_all_reduce.txt");
  REQUIRE(sweep.ok());
  auto fit = fit_alpha_beta(*sweep);
  REQUIRE(fit.ok());
  CHECK(fit->alpha_s == test::approx(25e-6).epsilon(1e-4));
  CHECK(fit->seconds_per_byte == test::approx(0.2e-9).epsilon(1e-4));
}

TEST_CASE("the A100 sweep calibrates NVLink to its measured large-message bus bandwidth") {
  auto sweep = parse_nccl_tests(fixture_text("a100_8gpu_all_reduce_perf.txt"), "a100.txt");
  REQUIRE(sweep.ok());
  const GpuSpec gpu = *find_gpu(builtin_gpu_catalog(), "A100-80GB");
  auto node = calibrate_node_group({*sweep}, make_node_group(1, 8, gpu), 256.5e12);
  REQUIRE(node.ok());
  // gpus.md: 231.6 GB/s busbw at 8 GiB (the asymptote of the sweep).
  CHECK(node->intra_node_Bps == test::approx(231.6e9).epsilon(0.05));
  CHECK(node->bandwidths_measured);
  CHECK(node->gemm_flops == 256.5e12);
  // The time model with these figures reproduces the large messages of the sweep within 5%.
  const LinkPath link = intra_node_link(*node, 0.8);
  CHECK(ring_all_reduce_seconds(8589934592.0, 8, link) == test::approx(64906.7e-6).epsilon(0.05));
  CHECK(ring_all_reduce_seconds(1073741824.0, 8, link) == test::approx(8237.8e-6).epsilon(0.05));
  // The written file is a cluster file that --cluster reads back to the same figures.
  const std::string yaml = calibrated_cluster_yaml(*node, {"a100.txt"});
  auto cluster = parse_cluster_file(yaml, "calibrated.yaml", builtin_gpu_catalog());
  REQUIRE(cluster.ok());
  const NodeGroup& back = cluster->groups.front();
  CHECK(back.intra_node_Bps == test::approx(node->intra_node_Bps).epsilon(1e-5));
  CHECK(back.gemm_flops == test::approx(256.5e12).epsilon(1e-5));
  CHECK(back.bandwidths_measured);
}

TEST_CASE("a sweep across nodes calibrates the per-GPU inter-node bandwidth of the two-level model") {
  // 2 nodes x 8 GPUs. Intra: 240 GB/s bus bandwidth (8-rank sweep). Inter: 45 GB/s per GPU.
  // 16-rank all-reduce slope = 2*(7/8)/240e9 + 2*(1/2)/(8*45e9) s per byte.
  const double intra_slope = 1.75 / 240e9;
  const double slope = 2 * 7.0 / 8 / 240e9 + 2 * 0.5 / (8 * 45e9);
  auto intra = parse_nccl_tests(synthetic_table(8, 20e-6, intra_slope), "intra_all_reduce.txt");
  auto inter = parse_nccl_tests(synthetic_table(16, 40e-6, slope), "inter_all_reduce.txt");
  REQUIRE(intra.ok());
  REQUIRE(inter.ok());
  const GpuSpec gpu = *find_gpu(builtin_gpu_catalog(), "H100-80GB");
  auto node = calibrate_node_group({*inter, *intra}, make_node_group(2, 8, gpu), 0);
  REQUIRE(node.ok());
  CHECK(node->intra_node_Bps == test::approx(240e9).epsilon(1e-4));
  CHECK(node->inter_node_Bps == test::approx(45e9).epsilon(1e-4));
  CHECK(node->inter_node_latency_s == test::approx(40e-6 / 2).epsilon(1e-3));  // 2(N-1) = 2 steps
  // The time model reproduces the 16-rank, 1 GiB all-reduce (less its latency terms).
  const double model = group_all_reduce_seconds(1 << 30, *node, {16, 1}, LinkPath{node->intra_node_Bps, 0},
                                                LinkPath{node->inter_node_Bps, 0});
  CHECK(model == test::approx(slope * (1 << 30)).epsilon(1e-6));
}

TEST_CASE("bad nccl-tests input names the file, line and column") {
  auto bad = parse_nccl_tests(fixture_text("bad_time.txt"), "bad_time.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string() == "bad_time.txt:17: time: 'N/A' is not a positive time in microseconds");
  auto empty = parse_nccl_tests("", "empty.txt");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("no nccl-tests rows") != std::string::npos);
  auto headless = parse_nccl_tests("8 2 float sum -1 10 0 0 0\n", "x.txt");
  REQUIRE_FALSE(headless.ok());
  CHECK(headless.error().line == 1);
  auto one_size = parse_nccl_tests(
      "#  size count type redop root time algbw busbw #wrong\n8 2 float sum -1 10 0 0 0\n1048576 2 float sum -1 99 0 0 0\n",
      "one.txt");  // only one size within 64x of the largest
  REQUIRE(one_size.ok());
  CHECK_FALSE(fit_alpha_beta(*one_size).ok());
  auto unknown = parse_nccl_tests("#  size count type time algbw busbw error\n8 2 float 10 0 0 0\n16 4 float 11 0 0 0\n",
                                  "run.log");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().key == "redop");
  // A header naming "size" after "time" and a row that stops between them (a fuzz finding): the
  // row is short of the size column, not read past its end.
  auto short_row = parse_nccl_tests("#  time algbw busbw size\n10 0 0\n", "swapped.txt");
  REQUIRE_FALSE(short_row.ok());
  CHECK(short_row.error().to_string() == "swapped.txt:2: time: row has 3 columns, the header names 4");
}

TEST_CASE("meshplan calibrate writes a cluster file, bad input exits 2 with file:line") {
  const std::string out = (std::filesystem::temp_directory_path() / "meshplan_calibrate_test.yaml").string();
  const auto run = test::run({"calibrate", "--nccl", test::fixture("nccl/a100_8gpu_all_reduce_perf.txt").string(),
                              "--gpu", "A100-80GB", "--nodes", "4", "--gemm-tflops", "256.5", "--out", out});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("intra-node 23") != std::string::npos);
  const auto gpus = test::run({"gpus", "--cluster", out});
  CHECK(gpus.exit_code == 0);
  std::filesystem::remove(out);

  const std::string bad = test::fixture("nccl/bad_time.txt").string();
  const auto failed = test::run({"calibrate", "--nccl", bad, "--gpu", "A100-80GB"});
  CHECK(failed.exit_code == 2);
  CHECK(failed.err.find("bad_time.txt:17: time:") != std::string::npos);
  const auto unknown_gpu = test::run({"calibrate", "--nccl", bad, "--gpu", "A1000"});
  CHECK(unknown_gpu.exit_code == 2);
  CHECK(unknown_gpu.err.find("--gpu") != std::string::npos);
  const auto too_many_ranks = test::run({"calibrate", "--nccl", test::fixture("nccl/a100_8gpu_all_reduce_perf.txt").string(),
                                         "--gpu", "A100-80GB", "--gpus-per-node", "4"});
  CHECK(too_many_ranks.exit_code == 2);
  CHECK(test::run({"calibrate", "--gpu", "A100-80GB"}).exit_code == 2);  // --nccl is required
}

}  // namespace
}  // namespace meshplan
