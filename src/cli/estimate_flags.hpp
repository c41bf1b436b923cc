#pragma once
// The flags of `meshplan estimate` (Megatron / verl vocabulary) and how they become a Strategy,
// a Workload and MemoryOptions, with every default that was chosen written down for the output.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "cli/cuda_graph_flags.hpp"
#include "cli/moe_dispatcher_flags.hpp"
#include "cli/rollout_placement.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace meshplan {

/// Raw flag values, as CLI11 fills them.
struct EstimateFlags {
  std::string model, cluster, gpu_catalog, workload = "pretrain", backend = "megatron", recompute = "none", recompute_modules,
                                           recompute_method = "uniform", offload, dtype = "bf16",
                                           rollout_engine = "vllm", lora_targets = "all-linear", pipeline_layout, fp8_recipe;
  CudaGraphFlags cuda_graphs;
  MoeDispatcherFlags moe_dispatcher;
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1, dp = 0, micro_batch = 1, recompute_num_layers = 1,
      zero = 0, fsdp_shard_size = 0, activation_offload_layers = 0, ulysses = 1, lora_rank = 0, first_stage_layers = 0, last_stage_layers = 0,
      mtp_num_layers = 0, bf16_start_layers = 1, bf16_end_layers = 1;
  std::int64_t global_batch = 0, seq_len = 4096, images_per_sample = 0, image_pixels = 0;
  bool sequence_parallel = false, fsdp = false, activation_offload = false, activation_func_fp8_input_store = false, megatron_fsdp = false, mtp = false, moe_a2a_overlap = false, no_distributed_optimizer = false, no_grad_reduce_in_fp32 = false, fp8_param_gather = false, fp4_param_gather = false, fp8_params = false, te_op_fuser = false, fp8_attention = false, fp8_output_proj = false, first_last_layers_bf16 = false,
       optimizer_cpu_offload = false,
       json = false,
       explain = false;
  double optimizer_offload_fraction = 1.0, overhead_gib = -1, fragmentation = -1, moe_capacity_factor = 1.0;
  bool no_flash_attention = false;
  std::string measured;  ///< verl console log to compare the time estimate with (--measured)
  bool tp_comm_overlap = false, no_overlap_grad_reduce = false, no_overlap_param_gather = false;
  bool account_for_embedding = false, account_for_loss = false;
  // RL (verl)
  int rollout_tp = 2, rollout_dp = 1, rollout_ep = 1, rollout_n = 1, mini_batch = 256, ppo_micro_batch = 0, log_prob_micro_batch = 0,
      max_num_seqs = 256;
  RolloutPlacementFlags placement;  ///< --rollout-gpus, --off-policy-steps, --in-flight-weight-updates
  std::int64_t prompt_len = 512, response_len = 512, ppo_max_token_len = 16384, log_prob_max_token_len = 0,
               max_num_batched_tokens = 8192, mean_prompt_len = 0, mean_response_len = 0,
               entropy_chunk = 2048;
  double gpu_memory_utilization = 0.5;
  std::string ref_model_dtype = "fp32";
  std::string rollout_quantization = "none";
  std::string rl_framework = "verl";
  bool dynamic_bsz = false, entropy_in_update = false, no_reference = false, critic = false,
       entropy_chunking = false, no_free_cache_engine = false, enforce_eager = false, no_async_scheduling = false, ref_offload = false,
       no_remove_padding = false;
};

/// Registers every flag on `command` (a subcommand) bound to `flags`.
void add_estimate_flags(CLI::App& command, EstimateFlags& flags);

struct EstimateInputs {
  Strategy strategy;
  Workload workload;
  MemoryOptions options;
  std::vector<std::string> chosen;  ///< defaults taken, e.g. "DP derived from the cluster = 32"
};

/// Builds the inputs from the flags for `model` on `cluster` (DP derives from the trainer's GPU
/// count; an MoE model's expert TP from TP). Errors name the flag.
Result<EstimateInputs> estimate_inputs(const CLI::App& command, const EstimateFlags& flags, const ModelSpec& model,
                                       const Cluster& cluster);

}  // namespace meshplan
