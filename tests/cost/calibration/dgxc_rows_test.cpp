// Training runs of a third source that no constant was fit on: NVIDIA's DGX Cloud benchmarking
// recipes (NVIDIA/dgxc-benchmarking), whose READMEs publish the step time of each recipe at each
// scale (weak scaling: the global batch grows with the GPUs). Releases v25.04.x (commit 741c886:
// Llama 3.1 8B, 70B and 405B on H100, NeMo 25.02.01), v25.05 (68eaf7e: Llama 3.1 405B on GB200,
// Nemotron-H 56B on H100, NeMo 25.04.01) and v25.05.04 (1f6d9f4: Llama 3.1 405B on 512 H100,
// DeepSeek-V3 in BF16 on H100 and GB200). Each row runs with the settings its launch resolved to
// in NeMo 2 at the commit the recipe pins (launch.sh, setup.sh's NEMO_COMMIT; NeMo's
// scripts/performance and recipes at that commit): every FP8 run per-tensor delayed scaling with
// FP8 weights gathered in FP8, main gradients reduced in bf16 (the perf scripts' plugin), the
// recipes' TP overlap (none for Nemotron-H, whose perf script leaves performance_mode off, nor for
// DeepSeek-V3, whose script turns it off). tokens/s/GPU = global batch x sequence / GPUs / step.
// Rows, settings and caveats: docs/accuracy-held-out-training.md, section "NVIDIA's DGX Cloud
// benchmarking recipes (session 57)".
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runs.hpp"
#include "cost/calibration/time_accuracy.hpp"

namespace meshplan {
namespace {

using test::MeasuredRun;
using test::plus;

double tokens_per_gpu(double global_batch, double seq_len, double gpus, double step_seconds) {
  return global_batch * seq_len / gpus / step_seconds;
}

// Main gradients in bf16: NeMo's perf scripts set the precision plugin's grad_reduce_in_fp32=False
// (scripts/performance/utils.py set_primary_perf_configs; the Llama recipes' performance mode).
const std::vector<std::string> kPretrain8k = {"--workload", "pretrain", "--seq-len", "8192", "--micro-batch", "1",
                                              "--no-grad-reduce-in-fp32"};
const std::vector<std::string> kBf16 = {"--dtype", "bf16"};
// bf16_with_fp8_mixed: fp8 "hybrid", delayed scaling, FP8 weights gathered in FP8.
const std::vector<std::string> kFp8 = {"--dtype", "fp8", "--fp8-recipe", "delayed", "--fp8-param-gather"};

std::string cluster(int nodes, const char* gpu) {
  return std::to_string(nodes) + (std::string(gpu) == "GB200-NVL72" ? "x4x" : "x8x") + gpu;
}

// Llama 3.1 8B: TP 1, CP 2, global batch 16 x GPUs (dgxc 741c886 llama3.1/README.md).
MeasuredRun llama8b(const char* id, int gpus, const std::vector<std::string>& precision, double step) {
  std::vector<std::string> args = {"--model", "llama-3.1-8b", "--cluster", cluster(gpus / 8, "H100-80GB"), "--tp", "1",
                                   "--cp", "2", "--global-batch", std::to_string(16 * gpus)};
  return {id, plus(plus(args, kPretrain8k), precision), tokens_per_gpu(16.0 * gpus, 8192, gpus, step)};
}

// Llama 3.1 70B: BF16 at TP 4, PP 4 x VPP 5, CP 2; FP8 at TP 4, PP 8 x VPP 5; global batch 2 x GPUs;
// TP overlap with the H100 userbuffer configs.
MeasuredRun llama70b(const char* id, int gpus, bool fp8, double step) {
  std::vector<std::string> args = {"--model", "llama-3.1-70b", "--cluster", cluster(gpus / 8, "H100-80GB"), "--tp", "4",
                                   "--pp", fp8 ? "8" : "4", "--cp", fp8 ? "1" : "2", "--vpp", "5",
                                   "--sequence-parallel", "--tp-comm-overlap", "--global-batch",
                                   std::to_string(2 * gpus)};
  return {id, plus(plus(args, kPretrain8k), fp8 ? kFp8 : kBf16), tokens_per_gpu(2.0 * gpus, 8192, gpus, step)};
}

// Llama 3.1 405B (126 layers): PP 8 x VPP 8, CP 2, the embedding and the loss counted as layers of
// the pipeline split; global batch GPUs / 2; TP 8 on H100, 4 on GB200; TP overlap.
MeasuredRun llama405b(const char* id, const char* gpu, int gpus, bool fp8, double step) {
  const bool gb200 = std::string(gpu) == "GB200-NVL72";
  std::vector<std::string> args = {"--model", test::fixture("models/llama-3.1-405b-mlperf").string(), "--cluster",
                                   cluster(gpus / (gb200 ? 4 : 8), gpu), "--tp", gb200 ? "4" : "8", "--pp", "8",
                                   "--vpp", "8", "--cp", "2", "--account-for-embedding-in-pipeline-split",
                                   "--account-for-loss-in-pipeline-split", "--sequence-parallel", "--tp-comm-overlap",
                                   "--global-batch", std::to_string(gpus / 2)};
  return {id, plus(plus(args, kPretrain8k), fp8 ? kFp8 : kBf16), tokens_per_gpu(gpus / 2.0, 8192, gpus, step)};
}

// Nemotron-H 56B (54 Mamba-2, 54 MLP and 10 attention layers): TP 8, SP, global batch 3 x GPUs, FP8;
// no TP overlap and the parameter all-gather not overlapped (recipes/nemotronh_56b.py ddp config).
MeasuredRun nemotron_h_56b(const char* id, int gpus, double step) {
  std::vector<std::string> args = {"--model", test::fixture("models/nemotron-h-56b").string(), "--cluster",
                                   cluster(gpus / 8, "H100-80GB"), "--tp", "8", "--sequence-parallel",
                                   "--no-overlap-param-gather", "--global-batch", std::to_string(3 * gpus)};
  return {id, plus(plus(args, kPretrain8k), kFp8), tokens_per_gpu(3.0 * gpus, 8192, gpus, step)};
}

// DeepSeek-V3 in BF16, 4096 tokens, TP 2 (ETP 1), SP, one MTP layer trained, the alltoall dispatcher,
// main gradients in fp32, selective recomputation (mla_up_proj on H100, core_attn on GB200), the
// perf script's uneven pipeline split (first stage 64 / PP - 1 layers, last 64 / PP - 2), global batch
// 8 x GPUs (scripts/performance/llm/pretrain_deepseek_v3.py at NeMo 7a8f1cc7).
MeasuredRun deepseek_v3(const char* id, const char* gpu, int gpus, int pp, int ep, double step) {
  const bool gb200 = std::string(gpu) == "GB200-NVL72";
  const int mid = 64 / pp;
  std::vector<std::string> args = {
      "--model", "deepseek-v3", "--cluster", cluster(gpus / (gb200 ? 4 : 8), gpu), "--workload", "pretrain",
      "--seq-len", "4096", "--micro-batch", "1", "--dtype", "bf16", "--tp", "2", "--etp", "1", "--sequence-parallel",
      "--pp", std::to_string(pp), "--ep", std::to_string(ep), "--first-stage-layers", std::to_string(mid - 1),
      "--last-stage-layers", std::to_string(mid - 2), "--mtp", "--recompute", "selective", "--recompute-modules",
      gb200 ? "core_attn" : "mla_up_proj", "--global-batch", std::to_string(8 * gpus)};
  return {id, args, tokens_per_gpu(8.0 * gpus, 4096, gpus, step)};
}

TEST_CASE("NVIDIA's DGX Cloud benchmarking recipes: a third source for the training groups") {
  const std::map<std::string, std::vector<MeasuredRun>> by_group = {
      {"dense-training-hopper",
       {
           llama8b("h100_8gpu_llama31_8b_bf16", 8, kBf16, 12.27),
           llama8b("h100_16gpu_llama31_8b_bf16", 16, kBf16, 12.3),
           llama8b("h100_32gpu_llama31_8b_bf16", 32, kBf16, 12.32),
           llama8b("h100_64gpu_llama31_8b_bf16", 64, kBf16, 12.33),
           llama8b("h100_128gpu_llama31_8b_bf16", 128, kBf16, 12.33),
           llama8b("h100_8gpu_llama31_8b_fp8", 8, kFp8, 9.33),
           llama8b("h100_16gpu_llama31_8b_fp8", 16, kFp8, 9.36),
           llama8b("h100_32gpu_llama31_8b_fp8", 32, kFp8, 9.43),
           llama8b("h100_64gpu_llama31_8b_fp8", 64, kFp8, 9.48),
           llama8b("h100_128gpu_llama31_8b_fp8", 128, kFp8, 9.54),
           llama70b("h100_64gpu_llama31_70b_bf16", 64, false, 14.66),
           llama70b("h100_128gpu_llama31_70b_bf16", 128, false, 14.67),
           llama70b("h100_256gpu_llama31_70b_bf16", 256, false, 14.68),
           llama70b("h100_512gpu_llama31_70b_bf16", 512, false, 14.67),
           llama70b("h100_1024gpu_llama31_70b_bf16", 1024, false, 14.65),
           llama70b("h100_2048gpu_llama31_70b_bf16", 2048, false, 14.66),
           llama70b("h100_64gpu_llama31_70b_fp8", 64, true, 9.86),
           llama70b("h100_128gpu_llama31_70b_fp8", 128, true, 9.95),
           llama70b("h100_256gpu_llama31_70b_fp8", 256, true, 10.0),
           llama70b("h100_512gpu_llama31_70b_fp8", 512, true, 10.07),
           llama70b("h100_1024gpu_llama31_70b_fp8", 1024, true, 10.08),
           llama70b("h100_2048gpu_llama31_70b_fp8", 2048, true, 10.15),
           llama405b("h100_512gpu_llama31_405b_bf16", "H100-80GB", 512, false, 19.78),
           llama405b("h100_1024gpu_llama31_405b_bf16", "H100-80GB", 1024, false, 19.84),
           llama405b("h100_2048gpu_llama31_405b_bf16", "H100-80GB", 2048, false, 19.87),
           llama405b("h100_512gpu_llama31_405b_fp8", "H100-80GB", 512, true, 12.37),
           llama405b("h100_1024gpu_llama31_405b_fp8", "H100-80GB", 1024, true, 12.42),
           llama405b("h100_2048gpu_llama31_405b_fp8", "H100-80GB", 2048, true, 12.56),
           llama405b("v25.05.04_h100_512gpu_llama31_405b_bf16", "H100-80GB", 512, false, 19.81),
           llama405b("v25.05.04_h100_512gpu_llama31_405b_fp8", "H100-80GB", 512, true, 13.02),
           nemotron_h_56b("h100_32gpu_nemotron_h_56b_fp8", 32, 15.119),
           nemotron_h_56b("h100_64gpu_nemotron_h_56b_fp8", 64, 15.058),
           nemotron_h_56b("h100_128gpu_nemotron_h_56b_fp8", 128, 15.496),
           nemotron_h_56b("h100_256gpu_nemotron_h_56b_fp8", 256, 15.892),
           nemotron_h_56b("h100_512gpu_nemotron_h_56b_fp8", 512, 15.586),
           nemotron_h_56b("h100_1024gpu_nemotron_h_56b_fp8", 1024, 15.678),
           nemotron_h_56b("h100_2048gpu_nemotron_h_56b_fp8", 2048, 15.723),
       }},
      {"dense-training-blackwell",
       {
           llama405b("gb200_128gpu_llama31_405b_bf16", "GB200-NVL72", 128, false, 9.347),
           llama405b("gb200_256gpu_llama31_405b_bf16", "GB200-NVL72", 256, false, 9.484),
           llama405b("gb200_512gpu_llama31_405b_bf16", "GB200-NVL72", 512, false, 9.508),
           llama405b("gb200_128gpu_llama31_405b_fp8", "GB200-NVL72", 128, true, 6.131),
           llama405b("gb200_256gpu_llama31_405b_fp8", "GB200-NVL72", 256, true, 6.183),
           llama405b("gb200_512gpu_llama31_405b_fp8", "GB200-NVL72", 512, true, 6.244),
       }},
      {"moe-training-hopper",
       {
           deepseek_v3("h100_512gpu_deepseek_v3_bf16", "H100-80GB", 512, 8, 64, 48.948),
           deepseek_v3("h100_1024gpu_deepseek_v3_bf16", "H100-80GB", 1024, 16, 64, 52.04),
       }},
      {"moe-training-blackwell",
       {
           deepseek_v3("gb200_128gpu_deepseek_v3_bf16", "GB200-NVL72", 128, 4, 32, 34.168),
           deepseek_v3("gb200_256gpu_deepseek_v3_bf16", "GB200-NVL72", 256, 4, 64, 34.194),
           deepseek_v3("gb200_512gpu_deepseek_v3_bf16", "GB200-NVL72", 512, 4, 64, 34.274),
       }},
  };
  std::ostringstream table;
  test::check_source_groups(by_group, "dgxc", table);
  MESSAGE(table.str());
}

}  // namespace
}  // namespace meshplan
