#pragma once
// `meshplan plan` flags, and turning them into a Workload and search settings. Flag names follow
// `meshplan estimate` (Megatron/verl vocabulary).
#include "cli/cuda_graph_flags.hpp"
#include "cli/moe_dispatcher_flags.hpp"
#include "cli/rollout_placement.hpp"
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "model/model_spec.hpp"
#include "search/candidate.hpp"
#include "search/search_space.hpp"

namespace CLI {
class App;
}

namespace meshplan {

struct PlanOptions {
  std::string from;        ///< --from: a verl launch script (model, cluster, workload and the baseline)
  std::string gpu;         ///< --gpu: the GPU type for --from
  std::vector<std::string> from_env;  ///< --env VAR=value: set before the --from script
  std::vector<std::string> from_set;  ///< --set key=value: an override applied after the --from script's
  std::string model;
  std::string model_path;  ///< what the emitted launch loads; default: the --model argument
  std::string cluster;
  std::string gpu_catalog;
  std::string workload = "pretrain";
  std::int64_t seq_len = 4096;
  std::int64_t global_batch = 256;
  std::int64_t images_per_sample = -1;  ///< -1: 1 for vision-language models, else 0
  std::int64_t image_pixels = 448 * 448;  ///< Qwen2.5-VL's common training resolution
  std::optional<double> cpu_ms_per_image;  ///< default: from the pixels (search/data_loader.hpp)
  // RL (verl) settings.
  std::optional<int> rollout_tp;
  int rollout_n = 1;
  std::int64_t prompt_len = 1024;
  std::int64_t response_len = 1024;
  std::int64_t mean_prompt_len = 0;    ///< rl: expected real prompt tokens (0: a quarter of --prompt-len)
  std::int64_t mean_response_len = 0;  ///< rl: expected real response tokens (0: a quarter of --response-len)
  std::int64_t mini_batch = 0;
  std::optional<double> gpu_memory_utilization;
  std::string rollout_engine = "vllm";
  std::string rollout_quantization = "none";
  RolloutPlacementFlags placement;  ///< rl: engines on GPUs of their own (--rollout-gpus, ...)
  // Search and output.
  std::string fix;
  std::string objective = "throughput";
  double headroom = 0.1;
  int top = 5;
  bool allow_cross_node_tp = false;
  bool mtp = false;  ///< --mtp: train the model's MTP layers in every plan
  CudaGraphFlags cuda_graphs;  ///< pretrain/sft: every Megatron plan runs under these CUDA graphs
  MoeDispatcherFlags moe_dispatcher;  ///< every Megatron plan's MoE token dispatcher
  bool json = false;
  std::string html;
  std::string emit;
  bool explain = false;
  bool min_gpus = false;
  /// The workload flags given on the command line (flags_a_launch_sets), which --from refuses.
  std::vector<std::string> given_launch_flags;
  std::string rl_flag_given;  ///< the first RL flag given ("" when none): refused without --workload rl
  bool seq_len_given = false;  ///< --seq-len given: refused with --workload rl
};

/// The plan flags whose value a --from launch sets itself, each with the verl key that does.
struct LaunchSetFlag {
  const char* flag;
  const char* verl_key;
};
const std::vector<LaunchSetFlag>& flags_a_launch_sets();

void add_plan_flags(CLI::App& command, PlanOptions& options);

/// The workload the flags describe; an Error naming the flag for values out of range.
Result<Workload> plan_workload(const PlanOptions& options, const ModelSpec& model);

/// --fix plus the RL flags that pin a dimension (--rollout-tp, --gpu-memory-utilization).
Result<Fixes> plan_fixes(const PlanOptions& options);

Result<Objective> plan_objective(const PlanOptions& options);

}  // namespace meshplan
