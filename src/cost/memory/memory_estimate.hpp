#pragma once
// Per-GPU memory of a training job or of each phase of a verl RL step: every term its own
// named component, the most loaded rank (pipeline stage), the peak, capacity and headroom.
// docs/memory-model.md lists every term with its formula and source.
//
// Hot path: with a null Trace, estimate_memory allocates nothing (fixed arrays indexed by
// enums, names from static tables), so the planner can call it millions of times.
#include <array>
#include <cstdint>

#include "cost/trace.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// One named line of a phase's memory. Order is the display order.
enum class MemoryComponent : std::uint8_t {
  weights,             ///< the trained model's 16-bit weights on this rank (LoRA: frozen base)
  gradients,           ///< gradients (Megatron: fp32 main grads; ZeRO: 16-bit)
  optimizer_states,    ///< fp32 master weights + Adam m and v (LoRA: adapters only)
  lora_adapters,       ///< LoRA A/B weights + their grads + optimizer states
  gathered_params,     ///< ZeRO-3/FSDP all-gathered layers (current + prefetched)
  activations,         ///< transformer-layer activations of the micro-batches in flight
  logits,              ///< output layer + loss / log-prob / entropy tensors
  vision_activations,  ///< vision tower of VL models
  reference_model,     ///< verl reference policy weights (KL)
  critic_model,        ///< verl critic states kept on the GPU outside its update
  rollout_weights,     ///< inference engine (vLLM/SGLang) weights, sharded by rollout TP
  kv_cache,            ///< inference engine KV cache
  engine_workspace,    ///< inference engine activation peak (profiled forward + sampler)
  cuda_graphs,         ///< inference engine CUDA graph pools
  resharding_buffer,   ///< weight sync: gathered full tensors on their way to the engine
  cuda_context,        ///< CUDA context + kernels of each process on the GPU
  nccl_buffers,        ///< NCCL communicator buffers
  fragmentation,       ///< caching-allocator fragmentation (fraction of torch allocations)
  kCount
};
inline constexpr int kMemoryComponentCount = static_cast<int>(MemoryComponent::kCount);

/// Stable snake_case name of a component ("kv_cache").
const char* memory_component_name(MemoryComponent component);

enum class MemoryPhaseKind : std::uint8_t {
  train,         ///< pretrain / SFT step
  rollout,       ///< verl generation
  old_log_prob,  ///< actor forward for the old log-probs
  ref_log_prob,  ///< reference forward for the KL term
  update_actor,
  update_critic,
  weight_sync,  ///< actor -> rollout engine weights
  kCount
};
inline constexpr int kMaxMemoryPhases = static_cast<int>(MemoryPhaseKind::kCount);

const char* memory_phase_name(MemoryPhaseKind kind);

struct PhaseMemory {
  MemoryPhaseKind kind = MemoryPhaseKind::train;
  std::array<double, kMemoryComponentCount> bytes{};
  int stage = 0;  ///< pipeline stage of the most loaded rank in this phase (0 = first)

  double& operator[](MemoryComponent c) { return bytes[static_cast<int>(c)]; }
  double operator[](MemoryComponent c) const { return bytes[static_cast<int>(c)]; }
  double peak_bytes() const;
};

/// What the rollout engine's KV budget holds versus what the step needs (RL only).
struct RolloutCapacity {
  int replicas = 0;               ///< engine instances = GPUs / rollout TP
  double kv_bytes_per_token = 0;  ///< per GPU of one replica
  double kv_cache_bytes = 0;      ///< per GPU
  std::int64_t kv_tokens_per_replica = 0;
  std::int64_t tokens_per_sequence = 0;               ///< prompt + response (max lengths)
  std::int64_t concurrent_sequences_per_replica = 0;  ///< min(KV-held sequences, max_num_seqs)
  std::int64_t sequences_per_step = 0;                ///< n x train_batch_size
  std::int64_t kv_tokens_needed = 0;                  ///< sequences_per_step x tokens_per_sequence
  bool kv_holds_all = false;                          ///< every sequence of the step fits in the KV at once
  std::int64_t max_model_len = 0;                     ///< the engine's max_model_len (verl: prompt + response)
  /// vLLM refuses to start when one max_model_len sequence does not fit in the KV cache
  /// (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory).
  bool holds_one_sequence = true;
  double gpu_memory_utilization_for_one_sequence = 0;  ///< the smallest that holds one (vLLM)
};

struct MemoryEstimate {
  std::array<PhaseMemory, kMaxMemoryPhases> phases{};
  int phase_count = 0;
  int peak_phase = 0;               ///< index into phases
  double peak_bytes = 0;            ///< the largest phase peak
  double capacity_bytes = 0;        ///< usable memory of the smallest GPU of the cluster
  double headroom_bytes = 0;        ///< capacity - peak (negative: OOM)
  bool fits = false;                ///< peak <= capacity and (RL) the engine has room for a KV cache
  bool kv_cache_exhausted = false;  ///< RL: the engine's budget leaves no KV cache (vLLM refuses to start)
  bool kv_below_one_sequence = false;  ///< RL (vLLM): KV holds less than one max_model_len sequence
  RolloutCapacity rollout;          ///< RL only
  double host_bytes_per_node = 0;   ///< offloaded states, activations (and sleeping engine weights) in the RAM
                                    ///< of one host (a node, or a tray of a rack-scale NVLink domain)

  const PhaseMemory& peak() const { return phases[peak_phase]; }
};

/// Assumptions a user may override (CLI: --overhead-gib, --fragmentation, ...).
struct MemoryOptions {
  double overhead_bytes = -1;   ///< < 0: CUDA context + NCCL from the documented constants
  double fragmentation = -1;    ///< < 0: kDefaultFragmentation; else fraction of torch allocations
  bool flash_attention = true;  ///< attention scores never stored (FlashAttention); false: Table 2's 5as/h
  bool dropout = false;         ///< store every dropout mask (GPT-2/3 style) whatever the model's rates
  double moe_capacity_factor = 1.0;  ///< tokens per expert relative to a uniform routing
  /// RL: the rollout and weight-sync phases only (what a planner's rollout option changes); the
  /// log-prob and update phases are left out.
  bool rollout_phases_only = false;
};

/// The memory of every phase on the most loaded rank. `trace` may be null (no strings built).
MemoryEstimate estimate_memory(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                               const Workload& workload, const MemoryOptions& options, Trace* trace);

}  // namespace meshplan
