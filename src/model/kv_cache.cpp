#include "model/kv_cache.hpp"

namespace meshplan {

std::int64_t kv_cache_bytes_per_token(const ModelSpec& model, int bytes_per_element) {
  const AttentionSpec& attention = model.attention;
  const std::int64_t elements_per_layer =
      attention.kind == AttentionKind::mla ? attention.kv_lora_rank + attention.qk_rope_head_dim
                                           : 2 * attention.num_kv_heads * attention.head_dim;
  return model.num_layers * elements_per_layer * bytes_per_element;
}

}  // namespace meshplan
