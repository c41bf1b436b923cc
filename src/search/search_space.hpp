#pragma once
// The values the planner tries for every dimension of a strategy, and `--fix` pins.
// Which combinations are valid is decided by the rule table (strategy/validate), not here:
// the space only lists candidate values, in the order the search visits them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// Offload choices the planner tries, item by item: a set of these bits (verl's actor
/// param_offload / grad_offload / optimizer_offload and the reference model's param_offload,
/// `actor_rollout_ref.{actor,ref}.{megatron,fsdp_config}.*_offload`). `all` is every item.
enum class OffloadChoice : int { none = 0, params = 1, grads = 2, optimizer = 4, ref = 8, all = 15 };
/// "none", "all", or the items joined by '+': "params+optimizer+ref".
std::string offload_choice_name(OffloadChoice choice);
/// The inverse of offload_choice_name; nullopt for an unknown item.
std::optional<OffloadChoice> parse_offload_choice(const std::string& text);
/// The actor's part of a choice (the ref bit goes to RlSettings::ref_param_offload).
Offload to_offload(OffloadChoice choice);
/// The choice of an actor offload and the reference model's param_offload.
OffloadChoice offload_choice(const Offload& offload, bool ref_param_offload);
/// Sets the actor's offload and the reference model's param_offload of one choice.
void apply_offload(Strategy& strategy, Workload& workload, OffloadChoice choice);

/// Recompute choices: none, selective (core attention), full uniform (every layer, one at a
/// time), full block (the first half of each stage's layers; Megatron --recompute-method block).
/// Megatron recompute settings the search tries; selective_moe recomputes the MoE layers
/// (recompute_modules=[moe]), tried for MoE models only.
enum class RecomputeChoice { none, selective, full_uniform, full_block, selective_moe };
std::string_view recompute_choice_name(RecomputeChoice choice);

struct SearchSpace {
  std::vector<int> world_sizes;  ///< GPUs used (the whole cluster unless searching for fewer)
  std::vector<Backend> backends;
  std::vector<int> tp, pp, vpp, cp, ep, etp;
  /// Explicit (first, last) stage layer counts tried besides the balanced split for PP > 1
  /// (Megatron num_layers_in_first/last_pipeline_stage; 0 = that stage not set).
  std::vector<std::pair<int, int>> stage_splits;
  bool balanced_split = true;  ///< also the planner's split (apply_balanced_split); off when pinned
  std::vector<int> dp;  ///< empty: any (dp is derived from the world size)
  std::vector<bool> sequence_parallel;      ///< tried when tp > 1
  std::vector<bool> distributed_optimizer;  ///< Megatron
  /// Megatron-FSDP (data_parallel_sharding_strategy optim_grads_params), tried on Megatron layouts
  /// with PP 1 and DP > 1.
  std::vector<bool> megatron_fsdp;
  std::vector<int> ulysses;                 ///< FSDP Ulysses SP
  std::vector<int> fsdp_shard_size;         ///< FSDP: 0 = shard over all ranks, else HSDP group
  std::vector<OffloadChoice> offload;
  std::vector<int> micro_batch;             ///< rl: ppo_micro_batch_size_per_gpu
  std::vector<RecomputeChoice> recompute;
  /// Megatron EP all-to-all overlap (overlap_moe_expert_parallel_comm), tried on layouts with
  /// EP > 1: {false, true} for MoE models, {false} for dense ones.
  std::vector<bool> moe_a2a_overlap;
  std::vector<int> rollout_tp;              ///< rl only
  /// rl, MoE models: engines per rollout replica (rollout.data_parallel_size), the experts split
  /// over the replica's TP x DP GPUs with expert parallelism; {1} for dense models, where DP
  /// inside a replica is the same as more replicas
  std::vector<int> rollout_dp;
  std::vector<double> gpu_memory_utilization;
  std::vector<int> log_prob_micro_batch;
  bool dynamic_bsz = false;  ///< token budgets instead of micro-batches (verl use_dynamic_bsz)
  /// With dynamic_bsz: actor.ppo_max_token_len_per_gpu and log_prob_max_token_len_per_gpu values
  /// tried (by default the micro-batches times the padded sequence width, verl-rules §0 R64).
  std::vector<std::int64_t> ppo_token_budgets, log_prob_token_budgets;
  Lora lora;  ///< the adapters every candidate trains (a setting of the job, not searched)
  bool train_mtp = false;  ///< every candidate trains the model's MTP layers (a setting of the job)
  /// Megatron-core CUDA graphs every Megatron-backend candidate runs under (a setting of the job;
  /// the FSDP backend runs eagerly).
  CudaGraphImpl cuda_graph_impl = CudaGraphImpl::none;
  std::uint8_t cuda_graph_modules = 0;
  /// The MoE token dispatcher every Megatron-backend candidate runs (a setting of the job: flex needs
  /// DeepEP or HybridEP installed) and its SMs.
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  int moe_dispatcher_sms = 0;
  /// Megatron's CPU optimizer (Offload::optimizer_on_cpu, with its offloaded fraction) every
  /// Megatron-backend RL candidate runs: a setting of the job (verl plan --from a launch with it).
  bool optimizer_on_cpu = false;
  double optimizer_on_cpu_fraction = 0;
  Dtype compute_dtype = Dtype::bf16;  ///< one every GPU of the cluster supports
};

/// `--fix tp=4,pp=2,...`: dimension name -> value text, checked against the known dimensions.
using Fixes = std::map<std::string, std::string>;

/// Parses "tp=4,pp=2,recompute=full_uniform"; an Error naming the key for an unknown dimension,
/// a repeated one or a value of the wrong kind.
Result<Fixes> parse_fixes(const std::string& text);

/// Names accepted by --fix, with the values each takes ("int", "0|1", or a list).
const std::vector<std::pair<std::string, std::string>>& fixable_dimensions();

/// bf16 when every group supports it, else fp16 (V100 has no bf16: gpus.json bf16_flops = 0).
Dtype common_compute_dtype(const Cluster& cluster);

struct SpaceOptions {
  bool allow_cross_node_tp = false;
  bool search_gpu_count = false;  ///< also try fewer nodes (objective gpus, --min-gpus)
  Fixes fixes;
};

/// The default space for a model on a (homogeneous) cluster and workload, with fixes applied.
Result<SearchSpace> build_search_space(const ModelSpec& model, const Cluster& cluster,
                                       const Workload& workload, const SpaceOptions& options);

}  // namespace meshplan
