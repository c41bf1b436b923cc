#pragma once
// Weights, gradients and optimizer states on one GPU: Megatron (TP/PP/EP/ETP sharding, the
// distributed optimizer over DP and expert-DP) and FSDP / ZeRO-1/2/3 (sharded over the shard
// group), LoRA (frozen base, trainable adapters) and offload. Formulas: docs/memory-model.md.
#include <cstdint>

#include "cost/trace.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// The stages whose memory can be the largest: the first (embedding, the most micro-batches in
/// flight), the second (`middle`: the most loaded stage between first and last, one micro-batch
/// fewer in flight than the first under 1F1B, and the middle stages' layer count of an uneven
/// split) and the last (LM head, logits).
enum class PipelineStage : std::uint8_t { first, middle, last };

/// Index of `stage` in the pipeline: 0, 1 or PP - 1.
int pipeline_stage_index(const Strategy& strategy, PipelineStage stage);

/// Parameters held by one rank, by the group their optimizer states are sharded over.
struct RankParams {
  double dense = 0;   ///< TP-sharded or replicated; distributed optimizer over DP x CP
  double expert = 0;  ///< routed experts, sharded by EP x ETP; optimizer over world / (ETP x EP x PP)
  /// Of both, the decoder layers' weight matrices (attention, MLP, shared and routed experts; not
  /// norms, routers, embeddings, the LM head or MTP modules): what Strategy::fp8_params holds in fp8
  /// and Strategy::fp4_param_gather as NVFP4 tensors.
  double layer_matrices = 0;
  double total() const { return dense + expert; }
};

/// MoE layers of the model's MTP modules (model/mtp_module.hpp mtp_module_layers_of).
double mtp_moe_layers(const ModelSpec& model);
/// Routed-expert parameters of the model's MTP modules (each MTP decoder layer is a MoE layer in a
/// MoE model: DeepSeek-V3, GLM-4.5); 0 for a dense model.
double mtp_expert_params(const ModelSpec& model);

/// Megatron pads the vocabulary to a multiple of 128 x TP (make-vocab-size-divisible-by).
std::int64_t megatron_padded_vocab(std::int64_t vocab, int tp);

/// Decoder layers on the most loaded stage: L / PP for an even split, the largest stage of an
/// uneven one (strategy/pipeline_split.hpp).
std::int64_t layers_per_stage(const ModelSpec& model, const Strategy& strategy);

/// Decoder layers of each kind on one rank of `stage`, each stage its own count of the split
/// (first / middle / last of an uneven one). Dense layers come first (DeepSeek's
/// first_k_dense_replace), so the first stages hold them; PP = 1 holds every layer.
struct StageLayers {
  std::int64_t dense = 0;
  std::int64_t moe = 0;
  std::int64_t total() const { return dense + moe; }
};
StageLayers stage_layers(const ModelSpec& model, const Strategy& strategy, PipelineStage stage);

/// Megatron: parameters on one rank of `stage` (the first holds the embedding and the vision
/// tower, the last the final norm and LM head; with PP = 1 one rank holds all). Routers and
/// norms are replicated across TP. FSDP: the whole model (sharding is applied to bytes).
RankParams rank_params(const ModelSpec& model, const Strategy& strategy, PipelineStage stage);

/// Parameters whose optimizer states (and step) one rank holds: Megatron's distributed optimizer
/// shards the dense ones over DP x CP and the routed experts over the expert-data-parallel group
/// world / (ETP x EP x PP) (Megatron-core distributed_data_parallel.py: the expert parameters'
/// buffers take the expert DP group); FSDP / ZeRO over its shard group; unsharded, all of them.
double optimizer_params_per_rank(const RankParams& params, const Strategy& strategy);

/// Parameters of the largest decoder layer (what ZeRO-3 / FSDP all-gathers at a time).
double largest_layer_params(const ModelSpec& model);

/// One rank's share of an RL reference policy's weights (sharded like the actor, no optimizer):
/// FSDP in ref.fsdp_config's model_dtype (RlSettings::ref_param_bytes) over its shard group,
/// Megatron in bf16. 0 without a reference, and with LoRA (verl runs the actor with its adapters
/// disabled instead of a reference model).
double reference_weight_bytes(const ModelSpec& model, const Strategy& strategy, const RlSettings& rl,
                              PipelineStage stage);

struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double lora_adapters = 0;
  double gathered = 0;        ///< ZeRO-3 / FSDP gathered units
  double host_offloaded = 0;  ///< moved to host RAM by offload (per GPU)
  double on_gpu() const { return weights + gradients + optimizer + lora_adapters + gathered; }
};

/// How offload flags are read. `training`: the step runs with them (ZeRO-Offload / FSDP
/// CPUOffload / Megatron optimizer_offload_fraction). `own_phase`: verl loads an offloaded
/// model back before the phase that uses it, so everything is on the GPU.
enum class OffloadMode : std::uint8_t { training, own_phase };

/// Model states on one GPU of `stage`. Every term is traced when `trace` is non-null.
ModelStateBytes model_state_bytes(const ModelSpec& model, const Strategy& strategy, PipelineStage stage,
                                  OffloadMode mode, Trace* trace);

}  // namespace meshplan
