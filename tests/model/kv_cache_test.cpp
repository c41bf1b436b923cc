// KV-cache bytes per token against hand-worked vLLM accounting.
#include <doctest/doctest.h>

#include "model/config_reader.hpp"
#include "model/kv_cache.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

namespace {

ModelSpec preset(const char* name) {
  Result<ModelSpec> model = parse_model_config(*find_model_preset_config(name), name);
  REQUIRE(model.ok());
  return std::move(model).value();
}

}  // namespace

TEST_CASE("KV cache per token, standard attention: 2 x layers x kv_heads x head_dim x bytes") {
  CHECK(kv_cache_bytes_per_token(preset("qwen2.5-7b-instruct"), 2) == 2 * 28 * 4 * 128 * 2);  // 57344
  CHECK(kv_cache_bytes_per_token(preset("qwen2.5-7b-instruct"), 2) == 57344);
  CHECK(kv_cache_bytes_per_token(preset("llama-3.1-8b"), 1) == 2 * 32 * 8 * 128);            // fp8
  CHECK(kv_cache_bytes_per_token(preset("qwen3-30b-a3b"), 2) == 98304);
}

TEST_CASE("KV cache per token, MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bytes") {
  CHECK(kv_cache_bytes_per_token(preset("deepseek-v2-lite"), 2) == 27 * (512 + 64) * 2);  // 31104
  CHECK(kv_cache_bytes_per_token(preset("deepseek-v2-lite"), 2) == 31104);
  CHECK(kv_cache_bytes_per_token(preset("deepseek-v3"), 2) == 61 * 576 * 2);  // MTP layer excluded
}

TEST_CASE("KV cache per token counts gpt-oss sliding layers as full ones") {
  CHECK(kv_cache_bytes_per_token(preset("gpt-oss-20b"), 2) == 2 * 24 * 8 * 64 * 2);  // 49152
}

TEST_CASE("KV cache shape, gpt-oss: sliding layers capped at the window per sequence") {
  // 12 full + 12 sliding layers (window 128), 8 kv heads x 64 x 2 (K, V) x 2 B = 2048 B per layer.
  const KvCacheShape shape = kv_cache_shape(preset("gpt-oss-20b"), 2, 1);
  CHECK(shape.full_bytes_per_token == 12 * 2048);
  CHECK(shape.window_bytes_per_token == 12 * 2048);
  CHECK(shape.window_tokens == 128);
  CHECK(shape.state_bytes_per_sequence == 0);
  // 4096 tokens: 12 x 2048 x 4096 + 12 x 2048 x 128 = 103,809,024 B.
  CHECK(shape.bytes_per_sequence(4096) == 103809024.0);
  CHECK(shape.bytes_per_sequence(100) == 24 * 2048 * 100.0);  // shorter than the window
  // TP 8 = kv heads: one head per GPU.
  CHECK(kv_cache_shape(preset("gpt-oss-20b"), 2, 8).full_bytes_per_token == 12 * 2 * 64 * 2);
}

TEST_CASE("KV cache shape, Qwen3-Next: KV of the 12 full-attention layers, fixed GDN state of the 36 others") {
  const ModelSpec model = preset("qwen3-next-80b-a3b-instruct");
  CHECK(kv_cache_bytes_per_token(model, 2) == 12 * 2 * 2 * 256 * 2);  // 24576: linear layers keep none
  // TP 1, bf16. Full layers: 12 x 2 (K, V) x 2 kv heads x 256 x 2 B = 24,576 B per token.
  // Per GDN layer (vLLM gated_delta_net_state_shape): conv (4 - 1) x (2 x 16 x 128 + 32 x 128) x 2 B
  // = 49,152; recurrent 32 heads x 128 x 128 x 2 B = 1,048,576; 36 layers x 1,097,728 = 39,518,208.
  const KvCacheShape tp1 = kv_cache_shape(model, 2, 1);
  CHECK(tp1.full_bytes_per_token == 24576);
  CHECK(tp1.window_bytes_per_token == 0);
  CHECK(tp1.state_bytes_per_sequence == 39518208);
  // One 4096-token sequence: 4096 x 24,576 + 39,518,208 = 140,181,504 B (a dense-attention reading of
  // all 48 layers would be 4096 x 98,304 = 402,653,184 B).
  CHECK(tp1.bytes_per_sequence(4096) == 140181504.0);
  // TP 2: one kv head per GPU; the GDN state halves (16 value heads, 4096 conv channels).
  const KvCacheShape tp2 = kv_cache_shape(model, 2, 2);
  CHECK(tp2.full_bytes_per_token == 12288);
  CHECK(tp2.state_bytes_per_sequence == 36 * (3 * 4096 * 2 + 16 * 128 * 128 * 2));  // 19,759,104
  // TP 4: the 2 kv heads are replicated (one per GPU), the state keeps splitting.
  const KvCacheShape tp4 = kv_cache_shape(model, 2, 4);
  CHECK(tp4.full_bytes_per_token == 12288);
  CHECK(tp4.state_bytes_per_sequence == 36 * (3 * 2048 * 2 + 8 * 128 * 128 * 2));  // 9,879,552
}

TEST_CASE("KV cache shape, Qwen3.5-9B: the recurrent state in fp32 as its config's mamba_ssm_dtype says") {
  // 24 GDN layers x (conv 3 x 8192 x 2 B + recurrent 32 x 128 x 128 x 4 B) = 24 x 2,146,304.
  const KvCacheShape shape = kv_cache_shape(preset("qwen3.5-9b"), 2, 1);
  CHECK(shape.state_bytes_per_sequence == 24 * (3 * 8192 * 2 + 32 * 128 * 128 * 4));
  CHECK(shape.full_bytes_per_token == 8 * 2 * 4 * 256 * 2);  // 8 full layers, 4 kv heads
}

}  // namespace meshplan
