#include "model/kv_cache.hpp"

#include <algorithm>

namespace meshplan {

namespace {

std::int64_t kv_elements_per_layer(const AttentionSpec& attention, std::int64_t tensor_parallel) {
  if (attention.kind == AttentionKind::mla) return attention.kv_lora_rank + attention.qk_rope_head_dim;
  const std::int64_t heads = (attention.num_kv_heads + tensor_parallel - 1) / tensor_parallel;
  return 2 * heads * attention.head_dim;
}

double linear_state_bytes(const LinearAttentionSpec& linear, int bytes_per_element, std::int64_t tp) {
  const double state_bytes = linear.state_bytes_per_element > 0 ? linear.state_bytes_per_element : bytes_per_element;
  const double value_heads = double(linear.num_value_heads) / double(tp);
  const double recurrent = value_heads * double(linear.value_head_dim * linear.key_head_dim) * state_bytes;
  if (linear.kind == LinearAttentionKind::lightning) return recurrent;
  const double conv_channels =
      double(2 * linear.num_key_heads * linear.key_head_dim + linear.num_value_heads * linear.value_head_dim) /
      double(tp);
  const double conv = double(linear.conv_kernel_size - 1) * conv_channels * bytes_per_element;
  return conv + recurrent;
}

}  // namespace

std::int64_t kv_cache_bytes_per_token(const ModelSpec& model, int bytes_per_element) {
  return model.num_attention_layers() * kv_elements_per_layer(model.attention, 1) * bytes_per_element;
}

double KvCacheShape::bytes_per_sequence(std::int64_t tokens) const {
  const std::int64_t windowed = window_tokens > 0 ? std::min(tokens, window_tokens) : tokens;
  return full_bytes_per_token * double(tokens) + window_bytes_per_token * double(windowed) + state_bytes_per_sequence;
}

KvCacheShape kv_cache_shape(const ModelSpec& model, int bytes_per_element, int tensor_parallel) {
  const std::int64_t tp = std::max(tensor_parallel, 1);
  const AttentionSpec& attention = model.attention;
  const double per_layer = double(kv_elements_per_layer(attention, tp) * bytes_per_element);
  const std::int64_t sliding = attention.sliding_window > 0 ? attention.num_sliding_layers : 0;
  KvCacheShape shape;
  shape.full_bytes_per_token = double(model.num_attention_layers() - sliding) * per_layer;
  shape.window_bytes_per_token = double(sliding) * per_layer;
  shape.window_tokens = sliding > 0 ? attention.sliding_window : 0;
  if (model.linear_attention) {
    const LinearAttentionSpec& linear = *model.linear_attention;
    shape.state_bytes_per_sequence = double(linear.num_layers) * linear_state_bytes(linear, bytes_per_element, tp);
  }
  return shape;
}

}  // namespace meshplan
