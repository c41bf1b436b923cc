// LoRA adapter counts: r x (in + out) per adapted linear (Hu et al. 2021 §4; PEFT's
// LoraLayer), worked by hand for GQA, Megatron's fused module names, ungated MLPs, every routed
// and shared expert, and MLA's compressed query.
#include "cost/memory/lora_params.hpp"

#include <doctest/doctest.h>

#include "cost/hand_models.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
namespace {

Lora lora_on(int rank, std::vector<std::string> modules) {
  Lora lora;
  lora.rank = rank;
  lora.target_modules = std::move(modules);
  return lora;
}

TEST_CASE("LoRA on a GQA model: k_proj and v_proj adapters are as wide as the KV heads") {
  // Qwen2.5-7B (h 3584; 28 query heads and 4 KV heads of 128): k_proj 3584 -> 512, r 16:
  // 16 x (3584 + 512) = 65,536 a layer, x 28 layers = 1,835,008.
  CHECK(lora_params_total(test::qwen25_7b(), lora_on(16, {"k_proj"})) == 1835008.0);
}

TEST_CASE("LoRA: Megatron's fused linear_qkv and linear_fc1 adapt what the HF modules do") {
  // Qwen2.5-7B, r 16: q 16 x 7168 = 114,688, k and v 65,536 each: 245,760 a layer (6,881,280);
  // gate and up 16 x (3584 + 18,944) = 360,448 each: 720,896 a layer (20,185,088).
  const ModelSpec m = test::qwen25_7b();
  CHECK(lora_params_total(m, lora_on(16, {"linear_qkv"})) == 6881280.0);
  CHECK(lora_params_total(m, lora_on(16, {"q_proj", "k_proj", "v_proj"})) == 6881280.0);
  CHECK(lora_params_total(m, lora_on(16, {"linear_fc1"})) == 20185088.0);
  CHECK(lora_params_total(m, lora_on(16, {"gate_proj", "up_proj"})) == 20185088.0);
}

TEST_CASE("LoRA on an ungated MLP: there is no gate projection to adapt") {
  // Llama-2-7B's shapes with a plain (GELU) MLP: up 4096 -> 11,008, r 8: 8 x 15,104 = 120,832 a
  // layer, x 32 = 3,866,624; gate_proj names no module.
  ModelSpec m = test::llama2_7b();
  m.dense_mlp.gated = false;
  CHECK(lora_params_total(m, lora_on(8, {"gate_proj"})) == 0.0);
  CHECK(lora_params_total(m, lora_on(8, {"up_proj"})) == 3866624.0);
}

TEST_CASE("LoRA on a MoE layer adapts every routed expert and the shared experts") {
  // Mixtral-8x7B, r 8, all seven projections: attention q 8 x 8192 = 65,536, k and v
  // 8 x 5120 = 40,960 each, o 65,536 -> 212,992; each of the 8 experts (not only the 2 a token
  // reaches) gate, up, down 8 x 18,432 = 147,456 each -> 442,368 x 8 = 3,538,944. 3,751,936 a
  // layer, x 32 = 120,061,952.
  const Lora all = lora_on(8, {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"});
  CHECK(lora_params_total(test::mixtral_8x7b(), all) == 120061952.0);
  // DeepSeek-V2-Lite's MoE layer, MLP projections only: 64 routed experts 3 x 8 x (2048 + 1408)
  // = 82,944 each -> 5,308,416, and the shared experts (2 x 1408 = 2816 wide) 3 x 8 x 4864
  // = 116,736: 5,425,152.
  CHECK(lora_params_per_layer(test::deepseek_v2_lite(), lora_on(8, {"gate_proj", "up_proj", "down_proj"}), true) ==
        5425152.0);
}

TEST_CASE("LoRA on MLA's query: q_a and q_b when the query is compressed, one q_proj when not") {
  // DeepSeek-V2-Lite (h 2048, 16 heads of 128 + 64): q_proj 8 x (2048 + 3072) = 40,960. With a
  // 1536 q_lora_rank (as DeepSeek-V2 / V3): q_a 8 x (2048 + 1536) = 28,672 + q_b
  // 8 x (1536 + 3072) = 36,864 -> 65,536.
  ModelSpec m = test::deepseek_v2_lite();
  CHECK(lora_params_per_layer(m, lora_on(8, {"q_proj"}), false) == 40960.0);
  m.attention.q_lora_rank = 1536;
  CHECK(lora_params_per_layer(m, lora_on(8, {"q_proj"}), false) == 65536.0);
}

TEST_CASE("LoRA on a Nemotron-H hybrid: each layer's own sublayer, Mamba's projections, relu2 and latent experts") {
  // Nemotron 3 Nano, all-linear, r 8:
  //   6 attention layers: q and o 8 x (2,688 + 4,096), k and v 8 x (2,688 + 256): 155,648, x 6 = 933,888;
  //   23 Mamba-2 layers: in_proj 8 x (2,688 + 2 x 4,096 + 2 x 8 x 128 + 64) = 103,936, out_proj
  //   8 x (4,096 + 2,688) = 54,272: 158,208, x 23 = 3,638,784;
  //   23 MoE layers: 128 relu2 experts (up and down, no gate) 128 x 2 x 8 x (2,688 + 1,856) =
  //   9,306,112, the shared expert 2 x 8 x (2,688 + 3,712) = 102,400: 9,408,512, x 23 = 216,395,776.
  //   No layer holds both a mixer and an MLP. 220,968,448 in all.
  Lora all = lora_on(8, {"all-linear"});
  CHECK(lora_params_total(test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16"), all) == 220968448.0);
  // Nemotron 3 Super's MoE layer: 512 experts in the latent width, 2 x 8 x (1,024 + 2,688) each
  // (30,408,704), the shared expert 2 x 8 x (4,096 + 5,376) (151,552), the latent projections
  // 2 x 8 x (4,096 + 1,024) (81,920); beside a transformer layer's attention 8 x (2 x 8,192 + 2 x
  // 4,352) = 200,704.
  const ModelSpec super = test::preset_model("nvidia-nemotron-3-super-120b-a12b-bf16");
  CHECK(lora_params_per_layer(super, all, true) == 200704.0 + 30408704.0 + 151552.0 + 81920.0);
  CHECK(lora_params_per_layer(super, lora_on(8, {"fc1_latent_proj"}), true) == 81920.0);
  CHECK(lora_params_total(super, lora_on(8, {"out_proj"})) == 40.0 * 8 * (8192 + 4096));
}

}  // namespace
}  // namespace meshplan
