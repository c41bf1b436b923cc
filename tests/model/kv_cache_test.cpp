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

}  // namespace meshplan
