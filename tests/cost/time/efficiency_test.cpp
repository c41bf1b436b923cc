#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/efficiency.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {
namespace {

NodeGroup node_with(const char* arch) {
  NodeGroup node;
  node.gpu.arch = arch;
  node.gpu.bf16_flops = 312e12;
  return node;
}

TEST_CASE("GEMM efficiency saturates with each of its three sizes: rows, input and output widths") {
  EfficiencyConstants constants = fitted_efficiency_constants();
  constants.gemm_peak_fraction_ampere = 0.8;
  constants.gemm_half_size = 128;
  const NodeGroup a100 = node_with("Ampere");
  // 0.8 / (1 + 128/2048 + 128/1024 + 128/1024) = 0.8 / 1.3125 = 0.609524
  CHECK(gemm_efficiency(a100, Dtype::bf16, GemmShape{2048, 1024, 1024}, constants) == test::approx(0.609524));
  // The three sizes weigh alike: the forward, data- and weight-gradient GEMMs permute them.
  CHECK(gemm_efficiency(a100, Dtype::bf16, GemmShape{1024, 2048, 1024}, constants) == test::approx(0.609524));
  // Bigger GEMMs come closer to the peak fraction, never above it.
  const double big = gemm_efficiency(a100, Dtype::bf16, GemmShape{1 << 20, 16384, 16384}, constants);
  CHECK(big > 0.78);
  CHECK(big < 0.8);
  CHECK(gemm_efficiency(a100, Dtype::bf16, GemmShape{2048, 1024, 64}, constants) <
        gemm_efficiency(a100, Dtype::bf16, GemmShape{2048, 1024, 1024}, constants));
  // FP8 GEMMs reach a smaller fraction of their (doubled) peak.
  CHECK(gemm_efficiency(a100, Dtype::fp8, GemmShape{2048, 1024, 1024}, constants) ==
        test::approx(0.609524 * constants.fp8_relative_efficiency));
}

TEST_CASE("peak fraction: per generation, or the cluster's measured GEMM throughput") {
  const EfficiencyConstants constants = fitted_efficiency_constants();
  CHECK(gemm_peak_fraction(node_with("Ampere"), Dtype::bf16, constants) == constants.gemm_peak_fraction_ampere);
  CHECK(gemm_peak_fraction(node_with("hopper"), Dtype::bf16, constants) == constants.gemm_peak_fraction_hopper);
  CHECK(gemm_peak_fraction(node_with("Hopper GH100"), Dtype::bf16, constants) == constants.gemm_peak_fraction_hopper);
  CHECK(gemm_peak_fraction(node_with("Hopper GH100"), Dtype::fp8, constants) ==
        test::approx(constants.gemm_peak_fraction_hopper * constants.fp8_relative_efficiency));
  CHECK(gemm_peak_fraction(node_with("Volta"), Dtype::bf16, constants) == constants.gemm_peak_fraction_other);
  // A cluster's measured large GEMM is a best matmul like the catalog's: a training GEMM reaches
  // Hopper's fitted share of it (before its sizes' cost), 0.7483 / (794.5 / 989) = 0.932, so 256.5
  // TFLOP/s measured on a 312 TFLOP/s part (Azure ND A100 v4's 16k GEMM, gpus.md) runs training
  // GEMMs at up to 0.932 x 256.5 / 312 = 0.766 of the peak.
  NodeGroup measured = node_with("Volta");
  measured.gemm_flops = 256.5e12;
  CHECK(gemm_peak_fraction(measured, Dtype::bf16, constants) == test::approx(0.748333 / (794.5 / 989.0) * 256.5 / 312.0));
}

TEST_CASE("peak fraction of a generation the fit never saw: Hopper's, by the measured matmul") {
  const EfficiencyConstants constants = fitted_efficiency_constants();
  // The reference shares are the catalog's Hopper figures.
  const GpuSpec h100 = test::catalog_node("H100-80GB").gpu;
  CHECK(h100.matmul_share_bf16 == test::approx(constants.reference_matmul_share_bf16));
  CHECK(h100.matmul_share_fp8 == test::approx(constants.reference_matmul_share_fp8));
  // Blackwell: bf16 the mean of B200 1745, B300 1769 and GB200 1822 over 2250 = 0.7905; x 0.7483 /
  // 0.8033 = 0.7364 (for every part of the generation, GB300 too, which was not measured).
  // fp8: the mean of 3432.5, 3353.3 and 3615.6 over 4500 = 0.7705 against Hopper's 0.7216, so
  // 0.7483 x 0.75 x 0.7705 / 0.7216 = 0.5993. NVFP4 on Blackwell Ultra: that x 0.5708 of the NVFP4
  // peak, what Transformer Engine's B300 GEMM profile measures (kernels 7.161 ms MXFP8, 3.764 ms
  // NVFP4, peaks 4.5 and 15 PF: 7.161 / 3.764 x 4.5 / 15 = 0.5708), so 0.3421 (5.13 PF of 15). On
  // B200 and GB200 at the NVFP4 matmul B200 measured over its FP8 one, 5500 / 3432.5 = 1.602x:
  // 0.5993 x 1.602 x 4.5 / 10 = 0.4321 of their 10 PF (4.32 PF, where B300's share gave 3.42).
  for (const char* id : {"B200", "GB200-NVL72", "B300", "GB300-NVL72"}) {
    CAPTURE(id);
    CHECK(gemm_peak_fraction(test::catalog_node(id), Dtype::bf16, constants) == test::approx(0.7364).epsilon(0.001));
    CHECK(gemm_peak_fraction(test::catalog_node(id), Dtype::fp8, constants) == test::approx(0.5993).epsilon(0.001));
  }
  for (const char* id : {"B300", "GB300-NVL72"}) {
    CAPTURE(id);
    CHECK(gemm_peak_fraction(test::catalog_node(id), Dtype::fp4, constants) == test::approx(0.3421).epsilon(0.001));
    CHECK(gemm_peak_basis(test::catalog_node(id), Dtype::fp4) == GemmPeakBasis::measured_matmul_fp8_at_fp4_peak);
  }
  for (const char* id : {"B200", "GB200-NVL72"}) {
    CAPTURE(id);
    CHECK(gemm_peak_fraction(test::catalog_node(id), Dtype::fp4, constants) == test::approx(0.4321).epsilon(0.001));
    CHECK(gemm_peak_basis(test::catalog_node(id), Dtype::fp4) == GemmPeakBasis::measured_matmul_fp8_times_nvfp4_ratio);
  }
  // CDNA3: MI300X 668.4 and MI325X 784.9 of 1307.4 (mean 0.5559) x 0.9315 = 0.5177, where the guess
  // for an unmeasured generation says 0.70; no fp8 matmul measured: x 0.75.
  CHECK(gemm_peak_fraction(test::catalog_node("MI300X"), Dtype::bf16, constants) == test::approx(0.5177).epsilon(0.001));
  CHECK(gemm_peak_fraction(test::catalog_node("MI325X"), Dtype::fp8, constants) == test::approx(0.5177 * 0.75).epsilon(0.001));
  // CDNA4: MI355X 1565 of 2516.6 = 0.6219 x 0.9315 = 0.5793.
  CHECK(gemm_peak_fraction(test::catalog_node("MI355X"), Dtype::bf16, constants) == test::approx(0.5793).epsilon(0.001));
  // What --explain names as the fraction's basis.
  CHECK(gemm_peak_basis(test::catalog_node("B200"), Dtype::fp8) == GemmPeakBasis::measured_matmul_fp8);
  CHECK(gemm_peak_basis(test::catalog_node("MI355X"), Dtype::fp8) == GemmPeakBasis::measured_matmul_bf16);
  CHECK(gemm_peak_basis(test::catalog_node("H20-96GB"), Dtype::bf16) == GemmPeakBasis::hopper_fit);
  CHECK(gemm_peak_basis(test::catalog_node("L40S"), Dtype::bf16) == GemmPeakBasis::guess);
  // Ampere keeps its fit; a measured GEMM on Ampere is carried by Ampere's own ratio: 0.8767 over
  // the mean of A100 SXM 271.2 and PCIe 252.9 of 312 (0.8399). The fit's fraction is of an
  // unbounded GEMM, above the best measured one's share: at 8192 a side the size term takes it to
  // 0.8767 / (1 + 3 x 263 / 8192) = 0.800.
  NodeGroup a100 = test::catalog_node("A100-80GB");
  CHECK(gemm_peak_fraction(a100, Dtype::bf16, constants) == constants.gemm_peak_fraction_ampere);
  a100.gemm_flops = 256.5e12;
  CHECK(gemm_peak_fraction(a100, Dtype::bf16, constants) == test::approx(0.876667 / 0.8399 * 256.5 / 312.0).epsilon(0.001));
}

TEST_CASE("fitted constants are physically plausible") {
  // Unbounded bf16 GEMMs: 60-95% of the dense peak; NCCL reaches 70-100% of link rates; a GEMM's
  // size term between none and DeepGEMM's ~1200 (efficiency.hpp gemm_half_size).
  const EfficiencyConstants constants = fitted_efficiency_constants();
  CHECK(constants.gemm_peak_fraction_ampere > 0.6);
  CHECK(constants.gemm_peak_fraction_ampere < 0.95);
  CHECK(constants.gemm_peak_fraction_hopper > 0.6);
  CHECK(constants.gemm_peak_fraction_hopper < 0.95);
  CHECK(constants.gemm_half_size >= 4);
  CHECK(constants.gemm_half_size <= 1200);
  CHECK(constants.nic_efficiency > 0.7);
  CHECK(constants.nic_efficiency <= 1.0);
  CHECK(constants.nvlink_efficiency == test::approx(0.8));
}

}  // namespace
}  // namespace meshplan
