#pragma once
// KV-cache size per token, as vLLM allocates it.
#include <cstdint>

#include "model/model_spec.hpp"

namespace meshplan {

/// Bytes of KV cache one token occupies in the whole model (all decoder layers, MTP excluded),
/// with `bytes_per_element` per cached value (2 for bf16/fp16, 1 for fp8).
/// - Standard attention: 2 (K and V) x layers x kv_heads x head_dim x bytes
///   (vLLM FullAttentionSpec.page_size_bytes / block_size).
/// - MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bytes: only the compressed latent and the
///   shared rope key are cached (DeepSeek-V2 paper §2.1.3; vLLM MLAAttentionSpec).
/// - Sliding-window layers (gpt-oss, Mistral-7B-v0.1) are counted as full layers: an upper
///   bound per token; a window caps their share at `sliding_window` tokens per sequence, which
///   a per-sequence estimate may apply on top (ModelSpec::attention.num_sliding_layers).
std::int64_t kv_cache_bytes_per_token(const ModelSpec& model, int bytes_per_element);

}  // namespace meshplan
