#pragma once
// KV cache and recurrent state, as vLLM v1 allocates them per layer kind.
#include <cstdint>

#include "model/model_spec.hpp"

namespace meshplan {

/// Bytes of KV cache one token occupies in the softmax-attention layers (MTP excluded; a hybrid
/// model's linear-attention layers keep no per-token KV), with `bytes_per_element` per cached
/// value (2 for bf16/fp16, 1 for fp8).
/// - Standard attention: 2 (K and V) x layers x kv_heads x head_dim x bytes
///   (vLLM FullAttentionSpec.page_size_bytes / block_size).
/// - MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bytes: only the compressed latent and the
///   shared rope key are cached (DeepSeek-V2 paper §2.1.3; vLLM MLAAttentionSpec).
/// - Sliding-window layers are counted as full ones here: an upper bound per token; the window
///   cap is applied per sequence by KvCacheShape::bytes_per_sequence.
std::int64_t kv_cache_bytes_per_token(const ModelSpec& model, int bytes_per_element);

/// The cache of one sequence on one GPU of a tensor-parallel engine replica, by layer kind
/// (vLLM v1 kv_cache_interface.py: FullAttentionSpec / MLAAttentionSpec, SlidingWindowSpec,
/// MambaSpec; the hybrid allocator gives each kind its own blocks).
struct KvCacheShape {
  double full_bytes_per_token = 0;      ///< layers that keep every token (full attention, MLA)
  double window_bytes_per_token = 0;    ///< sliding-window layers, per token inside the window
  std::int64_t window_tokens = 0;       ///< their window (0: no sliding layers)
  double state_bytes_per_sequence = 0;  ///< linear-attention layers: conv + recurrent state

  /// Cache of one sequence of `tokens` tokens: full layers keep every token, sliding layers at
  /// most the window (vLLM SlidingWindowManager frees blocks that left the window), linear layers
  /// one fixed state (MambaManager: one state per request, without prefix caching).
  double bytes_per_sequence(std::int64_t tokens) const;
  /// Per token, every attention layer counted in full (no window cap, no state).
  double bytes_per_token_bound() const { return full_bytes_per_token + window_bytes_per_token; }
};

/// The cache shape on one GPU of a replica of `tensor_parallel` GPUs, `bytes_per_element` for the
/// KV and conv state (the engine's dtype) and for the recurrent state unless the model fixes it:
/// - KV heads split over TP, replicated when TP exceeds them: ceil(kv_heads / TP) per GPU (vLLM
///   QKVParallelLinear); the MLA latent is not split.
/// - Gated DeltaNet per layer: conv state (conv_kernel - 1) x (2 x key heads x key_dim + value
///   heads x value_dim) / TP, recurrent state value_heads / TP x value_dim x key_dim (vLLM
///   mamba_utils.MambaStateShapeCalculator.gated_delta_net_state_shape).
/// - Lightning attention per layer: heads / TP x head_dim x head_dim (linear_attention_state_shape).
KvCacheShape kv_cache_shape(const ModelSpec& model, int bytes_per_element, int tensor_parallel);

}  // namespace meshplan
