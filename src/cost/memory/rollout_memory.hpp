#pragma once
// The inference engine during verl's rollout: weights sharded by rollout TP, the KV cache the
// memory budget leaves, CUDA graphs, and how many sequences that KV holds versus what the step
// generates (the time model reads RolloutCapacity).
#include "core/units.hpp"
#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// CUDA graph pools of the engine: vLLM logs "Graph capturing finished in N secs, took X GiB",
/// typically 0.2-1.5 GiB for 0.5B-70B models; an assumed constant outside the memory budget
/// (vLLM captures graphs after sizing the KV cache).
inline constexpr double kCudaGraphBytes = 0.5 * kGiB;

/// KV bytes per token on one GPU of a replica: 2 * L * ceil(kv_heads / TP) * head_dim * 2 bytes
/// (vLLM replicates KV heads when TP > kv_heads); MLA caches the latent, not split by TP:
/// L * (kv_lora_rank + qk_rope_head_dim) * 2 bytes (formulas.md). L counts the attention layers
/// only (KvCacheShape::bytes_per_token_bound: no window cap, no linear-attention state).
double kv_bytes_per_token(const ModelSpec& model, int rollout_tp);

/// GPUs of one rollout replica: rollout_tp x rollout_dp (verl rollout/replica.py world_size; PP 1).
int rollout_replica_gpus(const RlSettings& rl);

/// GPUs the rollout engines run on: their own (rl.rollout_gpus) or the trainer's.
int rollout_gpus(const Strategy& trainer, const RlSettings& rl);

/// Bytes of one weight of the engine's linear layers and experts: 1 with rollout.quantization=fp8
/// (RlSettings::rollout_fp8), else the rollout dtype's 2.
double rollout_linear_weight_bytes(const RlSettings& rl);

/// Parameters outside the engine's linear layers and experts, which stay in the rollout dtype
/// under fp8 quantization: embeddings (VocabParallelEmbedding), the LM head (ParallelLMHead), learned
/// positions, the routers' gates (ReplicatedLinear built with quant_config=None: vLLM qwen3_moe.py,
/// deepseek_v2.py) and the norms.
double rollout_unquantized_params(const ModelSpec& model);

/// Engine weights on one GPU: (params - norms - routed experts) / TP + routed experts / (TP x DP) +
/// norms (norms replicated), each at 2 bytes, or 1 for the linear layers and experts with fp8
/// rollout (rollout_linear_weight_bytes).
double rollout_weight_bytes(const ModelSpec& model, const RlSettings& rl);

struct RolloutMemory {
  double weights = 0;
  double kv_cache = 0;
  double workspace = 0;
  double cuda_graphs = 0;
  double budget = 0;  ///< what the engine was told it may take
  RolloutCapacity capacity;
};

/// vLLM (>= 0.7): budget = gpu_memory_utilization x capacity; KV = budget - weights - workspace.
/// TensorRT-LLM: KV = gpu_memory_utilization x (capacity - other - weights - workspace).
/// SGLang: mem_fraction_static is taken of the memory free after the other tenants:
/// KV = mem_fraction_static x capacity - resident_other - weights (model_runner profile_max_num_token).
/// `resident_other_bytes` is what the trainer keeps on the GPU during the rollout.
RolloutMemory rollout_memory(const ModelSpec& model, const Workload& workload, int world,
                             double capacity_bytes, double resident_other_bytes, Trace* trace);

}  // namespace meshplan
