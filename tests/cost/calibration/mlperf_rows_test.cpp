// Dense training runs of a second source that no constant was fit on: MLPerf Training v5.1's
// closed-division NVIDIA-platform submissions (mlcommons/training_results_v5.1 at 4da2d1cd), all
// NeMo with FP8 (delayed or per-tensor current scaling; the FP4 ones are left out), 8192 tokens:
// Llama 3.1 405B and 8B pre-training and Llama 2 70B LoRA (rank 16) on H100, H200, B200, B300, GB200
// and GB300, 8 to 1024 GPUs. The dense groups' figures come from Megatron-Bridge's tables
// (held_out_training_test.cpp); these are what estimate and plan print beside them
// (time_accuracy.cpp kSecondSources). Each run's layout is its log's where the log prints it (the
// Nebius, HPE, Oracle, Dell and Supermicro ones), else its config script's (NVIDIA's own, the
// University of Florida's and Cisco's logs print only the batch sizes and times). Step time: the
// median over the runs of each run's median `train_step_time` block; tokens/s/GPU = global batch x
// 8192 / step / GPUs. Rows, paths and caveats: docs/accuracy-held-out-training.md, session 44.
#include <doctest/doctest.h>

#include <algorithm>
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

// FP8, 8192 tokens, micro-batch 1 unless the layout says otherwise; main gradients in bf16 (every
// submission's pretrain.py / train.py: MegatronMixedPrecision(grad_reduce_in_fp32=False)).
std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& layout) {
  args.insert(args.end(), layout.begin(), layout.end());
  args.insert(args.end(), {"--dtype", "fp8", "--seq-len", "8192", "--no-grad-reduce-in-fp32"});
  if (std::find(args.begin(), args.end(), "--micro-batch") == args.end()) args.insert(args.end(), {"--micro-batch", "1"});
  return args;
}

// The pre-training runs gather the weights in fp8 (config_common.sh: FP8_PARAM_GATHER=True with
// FP8_RECIPE="tensorwise", or the older FP8_PARAMS=True with the delayed recipe: Cisco's, Nebius's);
// the LoRA runs do not (FP8_PARAM_GATHER=0).
const std::string kFp8ParamGather = "--fp8-param-gather";

// Llama 3.1 405B at TP 4, PP 8 x VPP 8, CP 2, SP: the embedding and the loss each count as a layer
// of the pipeline split (Megatron account_for_embedding/loss_in_pipeline_split), so the first and
// last of the 64 virtual stages hold one decoder layer.
std::vector<std::string> llama405b(const std::string& cluster, int global_batch, const std::string& extra) {
  return with({"--model", test::fixture("models/llama-3.1-405b-mlperf").string(), "--cluster", cluster, "--workload",
               "pretrain", "--tp", "4", "--pp", "8", "--vpp", "8", "--pipeline-layout", "Et|(tt|)*62tL", "--cp", "2",
               "--sequence-parallel", "--global-batch", std::to_string(global_batch), kFp8ParamGather, extra},
              {});
}

std::vector<std::string> llama8b(const std::string& cluster, int global_batch, std::vector<std::string> layout) {
  std::vector<std::string> args = {"--model", "llama-3.1-8b", "--cluster", cluster, "--workload", "pretrain",
                                   "--global-batch", std::to_string(global_batch), kFp8ParamGather};
  return with(args, layout);
}

std::vector<std::string> lora70b(const std::string& cluster, int global_batch, std::vector<std::string> layout) {
  std::vector<std::string> args = {"--model", test::fixture("models/llama-2-70b").string(), "--cluster", cluster,
                                   "--workload", "sft", "--lora-rank", "16", "--global-batch",
                                   std::to_string(global_batch)};
  return with(args, layout);
}

const std::vector<std::string> kGraphs = {"--cuda-graph-impl", "full_iteration"};

TEST_CASE("MLPerf Training v5.1's dense NVIDIA runs: the dense groups' second source") {
  // NVIDIA's own 8B layouts on one NVL72 rack and on eight, run alike on GB200 and GB300.
  const std::vector<std::string> rack_8b = plus({"--tp", "1", "--cp", "2"}, kGraphs);
  const std::vector<std::string> racks_8b =
      plus({"--tp", "2", "--cp", "4", "--sequence-parallel", "--tp-comm-overlap"}, kGraphs);
  const std::vector<std::string> lora_cp8 = plus({"--tp", "1", "--cp", "8"}, kGraphs);
  const std::map<std::string, std::vector<MeasuredRun>> by_group = {
      {"dense-training-hopper",
       {
           {"nebius_h200_512gpu_llama31_405b", llama405b("64x8xH200-141GB", 1152, "--tp-comm-overlap"), 368},
           {"nebius_h200_1024gpu_llama31_405b", llama405b("128x8xH200-141GB", 1152, "--tp-comm-overlap"), 363},
           {"cisco_h100_64gpu_llama31_8b", llama8b("8x8xH100-80GB", 64, {"--tp", "1"}), 11043},
           {"cisco_h100_128gpu_llama31_8b",
            llama8b("16x8xH100-80GB", 64, {"--tp", "2", "--sequence-parallel", "--tp-comm-overlap"}), 7767},
           {"hpe_h200_64gpu_llama31_8b", llama8b("8x8xH200-141GB", 32, plus({"--tp", "1", "--cp", "2"}, kGraphs)),
            11573},
           {"cisco_h100_64gpu_llama2_70b_lora",
            lora70b("8x8xH100-80GB", 8, {"--tp", "4", "--cp", "2", "--sequence-parallel", "--tp-comm-overlap"}), 1885},
           {"dell_h200_8gpu_llama2_70b_lora",
            lora70b("1x8xH200-141GB", 8, {"--tp", "2", "--sequence-parallel", "--tp-comm-overlap"}), 2603},
       }},
      {"dense-training-blackwell",
       {
           {"uf_b200_256gpu_llama31_405b", llama405b("32x8xB200", 576, "--cuda-graph-impl=full_iteration"), 667},
           {"uf_b200_448gpu_llama31_405b", llama405b("56x8xB200", 1008, "--cuda-graph-impl=full_iteration"), 659},
           {"uf_b200_8gpu_llama31_8b", llama8b("1x8xB200", 16, plus({"--tp", "1", "--micro-batch", "2"}, kGraphs)),
            30050},
           {"oracle_b200_64gpu_llama31_8b", llama8b("8x8xB200", 32, plus({"--tp", "1", "--cp", "2"}, kGraphs)), 21445},
           {"dell_b300_8gpu_llama31_8b", llama8b("1x8xB300", 16, plus({"--tp", "1", "--micro-batch", "2"}, kGraphs)),
            29868},
           {"nvidia_gb200_72gpu_llama31_8b", llama8b("18x4xGB200-NVL72", 36, rack_8b), 23875},
           {"nvidia_gb200_512gpu_llama31_8b", llama8b("128x4xGB200-NVL72", 64, racks_8b), 11360},
           {"nvidia_gb300_72gpu_llama31_8b", llama8b("18x4xGB300-NVL72", 36, rack_8b), 27571},
           {"nvidia_gb300_512gpu_llama31_8b", llama8b("128x4xGB300-NVL72", 64, racks_8b), 11820},
           {"supermicro_b200_8gpu_llama2_70b_lora", lora70b("1x8xB200", 8, {"--tp", "1"}), 6287},
           {"nvidia_gb200_72gpu_llama2_70b_lora", lora70b("18x4xGB200-NVL72", 9, lora_cp8), 5135},
           {"nvidia_gb200_512gpu_llama2_70b_lora", lora70b("128x4xGB200-NVL72", 64, lora_cp8), 4861},
           {"nvidia_gb300_72gpu_llama2_70b_lora", lora70b("18x4xGB300-NVL72", 9, lora_cp8), 5944},
       }},
  };
  std::ostringstream table;
  test::check_source_groups(by_group, "mlperf", table);
  MESSAGE(table.str());
}

TEST_CASE("MLPerf's H200 LoRA layout fits once its SwiGLU input is kept in fp8, as the run did") {
  // Dell's log: activation_func_fp8_input_store 1 (Megatron-core). Without it the estimate keeps the
  // 2 x 28672 / TP 2 wide SwiGLU input of 8192 tokens x 80 layers at 2 bytes, 17.5 GiB more, and is
  // 7 GiB over the H200's 139.5 GiB.
  const std::vector<std::string> layout = {"--tp", "2", "--sequence-parallel", "--tp-comm-overlap"};
  std::vector<std::string> args = {"estimate"};
  const std::vector<std::string> run = lora70b("1x8xH200-141GB", 8, layout);
  args.insert(args.end(), run.begin(), run.end());
  CHECK(test::run(args).exit_code == 1);
  args.push_back("--activation-func-fp8-input-store");
  const test::CliRun stored = test::run(args);
  CHECK(stored.exit_code == 0);
  CHECK(stored.out.find("MLP activation input kept in fp8") != std::string::npos);
}

}  // namespace
}  // namespace meshplan
