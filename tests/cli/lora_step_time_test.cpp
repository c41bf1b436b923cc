// LoRA's step time against measurement: Megatron-Bridge's performance summary (NVIDIA-NeMo/
// Megatron-Bridge docs/performance-summary-archive.md at 067f987df, "26.06 NeMo Container", SFT
// and LoRA tables, Llama 3 70B on DGX-H100, FP8, sequence length 4096, GBS 32, MBS 1): SFT on 32
// GPUs (TP 4, PP 4, VP 5) 1638 tokens/s/GPU, LoRA on 8 GPUs (TP 2, PP 4, VP 20) 2643. Before the
// frozen base's GEMMs skipped their weight gradients the LoRA row was predicted at 1923 (-27%).
#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

double tokens_per_second_per_gpu(const std::vector<std::string>& args) {
  const test::CliRun run = test::run(args);
  // Both layouts ran, and the memory model says they fit (the SFT layout was 0.64 GiB over an
  // H100 while FP8 linear inputs were counted at 2 bytes).
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string marker = "Throughput: ";
  const auto at = run.out.find(marker);
  REQUIRE(at != std::string::npos);
  return std::stod(run.out.substr(at + marker.size()));
}

const std::vector<std::string> kCommon = {"--workload", "sft", "--sequence-parallel", "--global-batch", "32",
                                          "--micro-batch", "1", "--seq-len", "4096", "--dtype", "fp8",
                                          "--tp-comm-overlap"};

std::vector<std::string> estimate(const std::vector<std::string>& layout) {
  std::vector<std::string> args = {"estimate", "--model", "llama-3.1-70b"};
  args.insert(args.end(), layout.begin(), layout.end());
  args.insert(args.end(), kCommon.begin(), kCommon.end());
  return args;
}

TEST_CASE("LoRA and SFT step time of Llama 3 70B on H100 against Megatron-Bridge's measured rows") {
  const double sft = tokens_per_second_per_gpu(
      estimate({"--cluster", "4x8xH100", "--tp", "4", "--pp", "4", "--vpp", "5"}));
  const double lora = tokens_per_second_per_gpu(
      estimate({"--cluster", "1x8xH100", "--tp", "2", "--pp", "4", "--vpp", "20", "--lora-rank", "16"}));
  MESSAGE("SFT " << sft << " (measured 1638), LoRA " << lora << " (measured 2643) tokens/s/GPU");
  CHECK(sft == test::approx(1638).epsilon(0.15));   // today +10%
  CHECK(lora == test::approx(2643).epsilon(0.10));  // today -2.6%
}

// MLPerf Training v5.1, Llama 2 70B LoRA (rank 16) on one node of 8 GPUs, FP8, TP 1, PP 1, CP 1,
// micro-batch 1, global batch 8, packed sequences of 8192 (mlcommons/training_results_v5.1 at
// 4da2d1cd): AMD's submissions (AMD/benchmarks/llama2_70b_lora/implementations/<GPU>_EPYC_9575F_
// pytorch_llama2_70b, config_<GPU>_1x8x1.sh; MI300X with ACG=full ACM=block ACL=21) log
// 2.117 / 2.836 / 5.876 samples/s on MI300X / MI325X / MI355X, the median of ten runs, and Dell's
// 8 H200 (NeMo 25.09, the same layout) a 3.1468 s step: 2168, 2904, 6017 and 2603 tokens/s/GPU.
// No AMD part is in any fit. With the unmeasured-generation guess (0.70 of the peak for a large
// bf16 GEMM) the AMD parts were predicted at 3124, 3534 and 6518 (+44%, +22%, +8%); carried over
// from Hopper by their measured matmul (efficiency.cpp gemm_peak_fraction) they are 2251, 2546 and
// 5164 (+4%, -12%, -14%); the H200 row, the control, is 2546 (-2%) either way. The memory verdict is
// not checked: the estimate holds the frozen base in BF16 and calls each layout OOM, and they ran.
double mlperf_lora_tokens_per_second_per_gpu(const std::string& gpu, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"estimate", "--model", test::fixture("models/llama-2-70b").string(), "--cluster", "1x8x" + gpu,
                                   "--workload", "sft", "--lora-rank", "16", "--global-batch", "8", "--micro-batch", "1",
                                   "--seq-len", "8192", "--dtype", "fp8", "--tp", "1", "--pp", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code <= 1, run.err);
  const std::string marker = "Throughput: ";
  const auto at = run.out.find(marker);
  REQUIRE(at != std::string::npos);
  return std::stod(run.out.substr(at + marker.size()));
}

TEST_CASE("LoRA step time across vendors: MLPerf Training v5.1 Llama 2 70B LoRA on 8 MI300X, MI325X, MI355X, H200") {
  const double h200 = mlperf_lora_tokens_per_second_per_gpu("H200-141GB");
  const double mi300x = mlperf_lora_tokens_per_second_per_gpu(
      "MI300X", {"--recompute", "full", "--recompute-method", "block", "--recompute-num-layers", "21"});
  const double mi325x = mlperf_lora_tokens_per_second_per_gpu("MI325X");
  const double mi355x = mlperf_lora_tokens_per_second_per_gpu("MI355X");
  MESSAGE("H200 " << h200 << " (2603), MI300X " << mi300x << " (2168), MI325X " << mi325x << " (2904), MI355X "
                  << mi355x << " (6017) tokens/s/GPU");
  CHECK(h200 == test::approx(2603).epsilon(0.05));
  CHECK(mi300x == test::approx(2168).epsilon(0.15));
  CHECK(mi325x == test::approx(2904).epsilon(0.15));
  CHECK(mi355x == test::approx(6017).epsilon(0.15));
}

}  // namespace
}  // namespace meshplan
