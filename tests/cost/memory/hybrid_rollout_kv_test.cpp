// The rollout KV budget of a hybrid linear-attention model: the fixed Gated DeltaNet state of each
// sequence plus the KV of the full-attention layers only (model/kv_cache.hpp).
#include <doctest/doctest.h>

#include "core/units.hpp"
#include "cost/memory/rollout_memory.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

TEST_CASE("rollout KV of Qwen3-Next at rollout TP 2: 17,112 B per token of a 4096-token sequence") {
  Result<ModelSpec> model =
      parse_model_config(*find_model_preset_config("qwen3-next-80b-a3b-instruct"), "qwen3-next-80b-a3b-instruct");
  REQUIRE(model.ok());
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 64;
  w.rl.rollout_tp = 2;
  w.rl.n = 8;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 3072;
  w.rl.gpu_memory_utilization = 0.9;
  w.rl.max_num_seqs = 4096;
  const RolloutMemory m = rollout_memory(*model, w, 8, 139.5 * kGiB, 0.0, nullptr);
  // Per GPU at TP 2, bf16 (hand-worked):
  //   12 full-attention layers x 2 (K, V) x 1 kv head x 256 x 2 B          = 12,288 B per token
  //   36 GDN layers x (conv 3 x 4096 x 2 B + recurrent 16 x 128 x 128 x 2 B) = 19,759,104 B per sequence
  //   one 4096-token sequence: 4096 x 12,288 + 19,759,104 = 70,090,752 B = 4096 x 17,112
  // (reading all 48 layers as full attention would be 49,152 B per token, 2.9x more).
  CHECK(m.capacity.tokens_per_sequence == 4096);
  CHECK(m.capacity.kv_bytes_per_token == 17112.0);
  REQUIRE(m.kv_cache > 0);
  const auto sequences = static_cast<std::int64_t>(m.kv_cache / 70090752.0);
  CHECK(m.capacity.concurrent_sequences_per_replica == sequences);
  CHECK(m.capacity.kv_tokens_needed == 64 * 8 * 4096);
}

}  // namespace meshplan
