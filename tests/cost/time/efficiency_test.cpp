#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/efficiency.hpp"

namespace meshplan {
namespace {

NodeGroup node_with(const char* arch) {
  NodeGroup node;
  node.gpu.arch = arch;
  node.gpu.bf16_flops = 312e12;
  return node;
}

TEST_CASE("GEMM efficiency saturates with hidden/TP and tokens per micro-batch") {
  EfficiencyConstants constants = fitted_efficiency_constants();
  constants.gemm_peak_fraction_ampere = 0.8;
  constants.gemm_half_size = 128;
  const NodeGroup a100 = node_with("Ampere");
  // 0.8 / (1 + 128/1024 + 128/2048) = 0.8 / 1.1875 = 0.67368
  CHECK(gemm_efficiency(a100, Dtype::bf16, 1024, 2048, constants) == test::approx(0.673684));
  // Bigger GEMMs come closer to the peak fraction, never above it.
  const double big = gemm_efficiency(a100, Dtype::bf16, 16384, 1 << 20, constants);
  CHECK(big > 0.79);
  CHECK(big < 0.8);
  CHECK(gemm_efficiency(a100, Dtype::bf16, 64, 2048, constants) < gemm_efficiency(a100, Dtype::bf16, 1024, 2048, constants));
  // FP8 GEMMs reach a smaller fraction of their (doubled) peak.
  CHECK(gemm_efficiency(a100, Dtype::fp8, 1024, 2048, constants) ==
        test::approx(0.673684 * constants.fp8_relative_efficiency));
}

TEST_CASE("peak fraction: per generation, or the cluster's measured GEMM throughput") {
  const EfficiencyConstants constants = fitted_efficiency_constants();
  CHECK(gemm_peak_fraction(node_with("Ampere"), constants) == constants.gemm_peak_fraction_ampere);
  CHECK(gemm_peak_fraction(node_with("hopper"), constants) == constants.gemm_peak_fraction_hopper);
  CHECK(gemm_peak_fraction(node_with("Hopper GH100"), constants) == constants.gemm_peak_fraction_hopper);
  CHECK(gemm_peak_fraction(node_with("Volta"), constants) == constants.gemm_peak_fraction_other);
  NodeGroup measured = node_with("Ampere");
  measured.gemm_flops = 256.5e12;  // Azure ND A100 v4 16k GEMM (gpus.md)
  CHECK(gemm_peak_fraction(measured, constants) == test::approx(256.5 / 312.0));
}

TEST_CASE("fitted constants are physically plausible") {
  // Large bf16 GEMMs: 60-90% of the dense peak; NCCL reaches 70-100% of link rates.
  const EfficiencyConstants constants = fitted_efficiency_constants();
  CHECK(constants.gemm_peak_fraction_ampere > 0.6);
  CHECK(constants.gemm_peak_fraction_ampere < 0.9);
  CHECK(constants.gemm_peak_fraction_hopper > 0.6);
  CHECK(constants.gemm_peak_fraction_hopper < 0.9);
  CHECK(constants.nic_efficiency > 0.7);
  CHECK(constants.nic_efficiency <= 1.0);
  CHECK(constants.nvlink_efficiency == test::approx(0.8));
}

}  // namespace
}  // namespace meshplan
