// Every embedded preset, with its exact counts written out here, and the published figures
// (data/models/SOURCES.md) that those counts reproduce.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

namespace {

ModelSpec preset(const std::string& name) {
  const auto text = find_model_preset_config(name);
  REQUIRE_MESSAGE(text.has_value(), "no preset " << name);
  Result<ModelSpec> model = parse_model_config(*text, name);
  REQUIRE_MESSAGE(model.ok(), (model.ok() ? "" : model.error().to_string()));
  return std::move(model).value();
}

/// `count` in units of `unit`, rounded to nearest, as published figures are ("20.91B").
std::int64_t rounded(std::int64_t count, double unit) {
  return std::llround(static_cast<double>(count) / unit);
}

struct ExpectedCounts {
  const char* name;
  std::int64_t total;
  std::int64_t active;
};

}  // namespace

TEST_CASE("every preset parses and gives its exact total and active counts") {
  // The first eight are ../shared/models/INDEX.json (checkpoint counts); the others were derived
  // by this reader and agree with the published figures checked in the next test cases.
  const ExpectedCounts expected[] = {
      {"deepseek-llm-7b-chat", 6910365696, 6910365696},
      {"deepseek-v2-lite", 15706484224, 2661150208},
      {"deepseek-v3", 671026419200, 37552297472},
      {"gemma-3-1b-it", 999885952, 999885952},
      {"gemma-3-4b-it", 4300079472, 4300079472},
      {"glm-4.5-air", 106852251264, 13424129664},
      {"gpt-oss-20b", 20914757184, 4187440704},
      {"gpt-oss-120b", 116829156672, 116829156672 - 36LL * 124 * 24891840},
      {"gpt2", 124439808, 124439808},
      {"llama-3.1-70b", 70553706496, 70553706496},
      {"llama-3.1-8b", 8030261248, 8030261248},
      {"llama-4-scout-17b-16e", 108641793536, 108641793536 - 48LL * 15 * 125829120},
      {"mixtral-8x7b", 46702792704, 12879925248},
      {"moonlight-16b-a3b-instruct", 15960110208, 15960110208 - 26LL * 58 * 8650752},
      {"nvidia-nemotron-3-nano-30b-a3b-bf16", 31577940288, 3580076352},
      {"nvidia-nemotron-3-super-120b-a12b-bf16", 120668707840, 12770237440},
      {"qwen2.5-0.5b", 494032768, 494032768},
      {"qwen2.5-32b", 32763876352, 32763876352},
      {"qwen2.5-72b-instruct", 72706203648, 72706203648},
      {"qwen2.5-7b-instruct", 7615616512, 7615616512},
      {"qwen2.5-vl-3b-instruct", 3754622976, 3754622976},
      {"qwen2.5-vl-7b-instruct", 8292166656, 8292166656},
      {"qwen3-0.6b", 596049920, 596049920},
      {"qwen3-235b-a22b", 235093634560, 22190763520},
      {"qwen3-30b-a3b", 30532122624, 3353032704},
      {"qwen3-32b", 32762123264, 32762123264},
      {"qwen3-8b", 8190735360, 8190735360},
      {"qwen3-next-80b-a3b-instruct", 79674391296, 3874929408},
      {"qwen3-vl-8b-instruct", 8767123696, 8767123696},
      {"qwen3.5-9b", 9409813744, 9409813744},
      {"seed-oss-36b-instruct", 36151104512, 36151104512},
  };
  CHECK(model_preset_names().size() == std::size(expected));
  for (const ExpectedCounts& e : expected) {
    CAPTURE(e.name);
    const ModelSpec model = preset(e.name);
    CHECK(model.total_params == e.total);
    CHECK(model.active_params == e.active);
  }
}

TEST_CASE("Nemotron 3 Nano 30B-A3B: 31.6B total, 3.6B active, counted by hand from its 52 one-sublayer layers") {
  // NVIDIA's Nemotron 3 Nano report and model card: 31.6B parameters in all, about 3.2B active a
  // token without the embedding (3.6B with it and the output head). By hand from config.json (hybrid_override_pattern: 23 M, 23 E, 6 *):
  //   embedding and the untied head 2 x 131072 x 2688 = 704,643,072;
  //   Mamba-2: in_proj 2688 x (2 x 4096 + 2 x 8 x 128 + 64) = 27,697,152, conv1d 6144 x 4 + bias
  //     6144 = 30,720, dt_bias + A_log + D 192, gated norm 4096, out_proj 4096 x 2688 = 11,010,048:
  //     38,742,208, x 23 = 891,070,784;
  //   attention: q and o 2 x 2688 x 4096, k and v 2 x 2688 x 256 = 23,396,352, x 6 = 140,378,112;
  //   MoE: 128 experts of up + down 2 x 2688 x 1856 = 9,977,856, shared expert 2 x 2688 x 3712 =
  //     19,955,712, router 128 x 2688 + 128 = 344,192: 1,297,465,472, x 23 = 29,841,705,856;
  //   one norm a layer 52 x 2688 + the final norm 2688 = 142,464.
  // Sum 31,577,940,288; active: - 23 x 122 x 9,977,856 = 3,580,076,352.
  const ModelSpec model = preset("nvidia-nemotron-3-nano-30b-a3b-bf16");
  CHECK(model.total_params == 704643072LL + 891070784LL + 140378112LL + 29841705856LL + 142464LL);
  CHECK(rounded(model.total_params, 1e8) == 316);
  CHECK(rounded(model.active_params, 1e8) == 36);
  CHECK(rounded(model.active_params - model.params.embedding, 1e8) == 32);
  CHECK(model.linear_attention->params_per_layer == 38742208);
  CHECK(model.num_attention_layers() == 6);
  CHECK(model.num_mixer_layers() == 29);
  CHECK(model.moe->num_moe_layers == 23);
  CHECK(model.num_dense_layers == 0);
  CHECK(model.moe->routed_expert_params == 9977856);
  CHECK(!model.moe->gated_experts);
  CHECK(model.position == PositionKind::none);
}

TEST_CASE("Nemotron 3 Super 120B-A12B: its LatentMoE and MTP counted by hand, to the safetensors' own total") {
  // By hand from config.json (hybrid_override_pattern: 40 M, 40 E, 8 *; moe_latent_size 1024):
  //   embedding and the untied head 2 x 131072 x 4096 = 1,073,741,824;
  //   Mamba-2: in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128) = 76,021,760, conv1d 10240 x 4 + bias
  //     10240 = 51,200, dt_bias + A_log + D 384, gated norm 8192, out_proj 8192 x 4096 = 33,554,432:
  //     109,635,968, x 40 = 4,385,438,720;
  //   attention: q and o 2 x 4096 x 4096, k and v 2 x 4096 x 256 = 35,651,584, x 8 = 285,212,672;
  //   MoE: 512 experts of up + down in the latent width, 2 x 1024 x 2688 = 5,505,024; the latent
  //     projections 2 x 4096 x 1024 = 8,388,608; shared expert 2 x 4096 x 5376 = 44,040,192; router
  //     512 x 4096 + 512 = 2,097,664: 2,873,098,752, x 40 = 114,923,950,080;
  //   one norm a layer 88 x 4096 + the final norm 4096 = 364,544.
  // Sum 120,668,707,840. The MTP module (mtp_hybrid_override_pattern "*E"): enorm + hnorm 2 x 4096,
  // eh_proj 2 x 4096 x 4096 = 33,554,432, the attention layer and the MoE layer with their norms
  // 35,655,680 + 2,873,102,848, the final norm 4096: 2,942,325,248.
  // Independent: the BF16 release's safetensors headers hold 123,611,012,096 bf16 weights and 41 x 512
  // fp32 expert biases (a model-info library's test, quoting
  // huggingface.co/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16): 123,611,033,088 = the two sums.
  // Active: - 40 x 490 x 5,505,024 = 12,770,237,440 (NVIDIA: "12B active").
  const ModelSpec model = preset("nvidia-nemotron-3-super-120b-a12b-bf16");
  CHECK(model.total_params == 1073741824LL + 4385438720LL + 285212672LL + 114923950080LL + 364544LL);
  CHECK(model.params.mtp == 2942325248LL);
  CHECK(model.total_params + model.params.mtp == 123611012096LL + 41 * 512);
  CHECK(model.active_params == model.total_params - 40LL * 490 * 5505024);
  CHECK(model.moe->latent_size == 1024);
  CHECK(model.moe->routed_expert_params == 5505024);
  CHECK(model.moe->latent_projection_params == 8388608);
  CHECK(model.params.latent_projections == 40LL * 8388608);
  CHECK(model.expert_hidden_size() == 1024);
  CHECK(model.num_mtp_layers == 1);
  CHECK(model.mtp_layer_pattern == "*E");
  CHECK(rounded(model.active_params, 1e9) == 13);
}

TEST_CASE("GPT-2 small: 124,439,808 parameters, the count Hugging Face reports for openai-community/gpt2") {
  // By hand: wte 50257*768 = 38,597,376; wpe 1024*768 = 786,432; per layer ln_1 + ln_2 4*768,
  // c_attn 768*2304 + 2304, c_proj 768*768 + 768, c_fc 768*3072 + 3072, mlp c_proj 3072*768 + 768
  // = 7,087,872; x 12 = 85,054,464; ln_f 1,536; head tied. Sum 124,439,808.
  const ModelSpec model = preset("gpt2");
  CHECK(model.total_params == 124439808);
  CHECK(model.params.position_embedding == 786432);
  CHECK(model.params.lm_head == 0);
  CHECK(model.norm == NormKind::layer_norm);
}

TEST_CASE("DeepSeek-V3 matches DeepSeek's README_WEIGHTS: 671B total, 36.6B active without the embedding") {
  const ModelSpec model = preset("deepseek-v3");
  CHECK(rounded(model.total_params, 1e9) == 671);
  // DeepSeek's "36.6B activated (including 0.9B for the output head)" leaves out the input
  // embedding, which CONVENTIONS.md keeps in active_params.
  CHECK(rounded(model.active_params - model.params.embedding, 1e8) == 366);
  CHECK(model.num_mtp_layers == 1);
  // The MTP module: one MoE layer (11,507,286,272) + eh_proj 2*7168*7168 (102,760,448) + enorm,
  // hnorm, shared_head.norm (3*7168); DeepSeek rounds its unique MTP parameters to "11.5B".
  CHECK(model.params.mtp == 11610068224);
  CHECK(model.moe->router_params == 256 * 7168 + 256);  // + noaux_tc e_score_correction_bias
  CHECK(model.moe->num_moe_layers == 58);               // first_k_dense_replace = 3
}

TEST_CASE("gpt-oss-20b matches the model card: 20.91B total, 3.61B active without the embedding") {
  const ModelSpec model = preset("gpt-oss-20b");
  CHECK(rounded(model.total_params, 1e7) == 2091);
  CHECK(rounded(model.active_params - model.params.embedding, 1e7) == 361);
  CHECK(model.attention.num_sliding_layers == 12);
  CHECK(model.attention.sliding_window == 128);
  // One expert: gate_up 2880*5760 + 5760 bias, down 2880*2880 + 2880 bias.
  CHECK(model.moe->routed_expert_params == 2880LL * 5760 + 5760 + 2880LL * 2880 + 2880);
}

TEST_CASE("published rounded counts: Qwen3-235B-A22B, Llama-3.1-70B, Qwen2.5-72B, Qwen2.5-VL-3B, Qwen2.5-32B") {
  CHECK(rounded(preset("qwen3-235b-a22b").total_params, 1e9) == 235);     // "235B"
  CHECK(rounded(preset("qwen3-235b-a22b").active_params, 1e9) == 22);     // "A22B"
  CHECK(rounded(preset("llama-3.1-70b").total_params, 1e8) == 706);       // HF "70.6B"
  CHECK(rounded(preset("qwen2.5-72b-instruct").total_params, 1e8) == 727);  // card "72.7B"
  CHECK(rounded(preset("qwen2.5-vl-3b-instruct").total_params, 1e7) == 375);  // HF "3.75B"
  // Qwen2.5-32B: hand-worked from its config, embedding and head 2 x 152064 x 5120 = 1,557,135,360;
  // a layer q/o 2 x 5120^2 + k/v 2 x 5120 x 1024 + q/k/v biases 7,168 + SwiGLU 3 x 5120 x 27648 +
  // 2 norms 10,240 = 487,605,248, x 64 = 31,206,735,872; + final norm 5,120 = 32,763,876,352, the
  // logical count a public test computes for the same config (data/models/SOURCES.md).
  CHECK(preset("qwen2.5-32b").total_params == 1557135360LL + 64LL * 487605248 + 5120);
}

TEST_CASE("DeepSeek-LLM-7B-Chat (verl's default actor model): 6,910,365,696 parameters, counted by hand") {
  // embed_tokens and an untied lm_head, 2 x 102400 x 4096 = 838,860,800; a layer: q/k/v/o
  // 4 x 4096^2 (32 heads, no GQA) + SwiGLU 3 x 4096 x 11008 + 2 norms 8,192 = 202,383,360, x 30
  // = 6,071,500,800; final norm 4,096. Sum 6,910,365,696: verl prints "LlamaForCausalLM contains
  // 6.91B parameters" for it, and a public record gives 6,910,365,696 for deepseek-llm-7b-base.
  const ModelSpec model = preset("deepseek-llm-7b-chat");
  CHECK(model.total_params == 838860800LL + 30LL * 202383360 + 4096);
  CHECK(model.params.lm_head == 102400LL * 4096);
  CHECK(model.num_layers == 30);
}

TEST_CASE("Qwen3-0.6B: 596,049,920 unique parameters, the Hub's 751,632,384 stores the tied embedding twice") {
  // A layer: q 1024 x 2048, k and v 1024 x 1024 each, o 2048 x 1024, q/k norms 2 x 128, SwiGLU
  // 3 x 1024 x 3072, 2 norms of 1024: 15,730,944; x 28 = 440,466,432; embedding 151936 x 1024 =
  // 155,582,464 (tied head); final norm 1,024. transformers' num_parameters() gives 596,049,920.
  const ModelSpec model = preset("qwen3-0.6b");
  CHECK(model.total_params == 28LL * 15730944 + 155582464 + 1024);
  CHECK(model.params.lm_head == 0);
  // Hub safetensors total of Qwen/Qwen3-0.6B: model.safetensors keeps lm_head.weight as a copy.
  CHECK(model.total_params + model.params.embedding == 751632384);
}

TEST_CASE("Qwen3-VL-8B-Instruct: 8,767,123,696 parameters, the Hub's safetensors total") {
  // Language model = Qwen3-8B's shape, 8,190,735,360 (untied); vision tower 576,388,336 as worked
  // out in config_reader_test.cpp (27 blocks, merger and 3 DeepStack mergers).
  const ModelSpec model = preset("qwen3-vl-8b-instruct");
  CHECK(model.total_params == 8190735360LL + 576388336);
  REQUIRE(model.vision.has_value());
  CHECK(model.vision->params == 576388336);
  CHECK(model.vision->num_deepstack_mergers == 3);
}

TEST_CASE("Moonlight-16B-A3B by hand, and Moonshot's 15.29B total, 2.24B active without the embeddings") {
  // MLA without q LoRA: q 2048 x 16 x 192 = 6,291,456, kv_a 2048 x 576 = 1,179,648, kv_a norm 512,
  // kv_b 512 x 16 x 256 = 2,097,152, o 2048 x 2048 = 4,194,304: 13,763,072; 2 norms 4,096. Layer 0
  // dense, 3 x 2048 x 11264 = 69,206,016. Layers 1-26: 64 experts x 3 x 2048 x 1408 (8,650,752 each)
  // = 553,648,128, 2 shared 3 x 2048 x 2816 = 17,301,504, gate 64 x 2048 + noaux_tc bias 64 =
  // 131,136. Embedding and head 2 x 163840 x 2048 = 671,088,640; final norm 2,048.
  const ModelSpec model = preset("moonlight-16b-a3b-instruct");
  const std::int64_t attention = 13763072 + 4096;
  CHECK(model.total_params ==
        attention + 69206016 + 26LL * (attention + 553648128 + 17301504 + 131136) + 671088640 + 2048);
  CHECK(model.moe->num_moe_layers == 26);
  CHECK(model.moe->routed_expert_params == 8650752);
  // The Moonlight README's table leaves the embedding parameters out: 15.29B total, 2.24B activated.
  const std::int64_t embeddings = model.params.embedding + model.params.lm_head;
  CHECK(rounded(model.total_params - embeddings, 1e7) == 1529);
  CHECK(rounded(model.active_params - embeddings, 1e7) == 224);
}

TEST_CASE("presets are found by file name or Hugging Face repo id, case-insensitively") {
  CHECK(find_model_preset_config("qwen3-8b").has_value());
  CHECK(find_model_preset_config("Qwen/Qwen3-8B").has_value());
  CHECK(find_model_preset_config("QWEN2.5-7B-INSTRUCT").has_value());
  CHECK(canonical_model_preset_name("deepseek-ai/DeepSeek-V3") == std::optional<std::string>("deepseek-v3"));
  CHECK_FALSE(find_model_preset_config("qwen3-9b").has_value());
  CHECK_FALSE(find_model_preset_config("").has_value());
}

TEST_CASE("a checkpoint path stands for the preset of its architecture: variants and Hugging Face cache dirs") {
  const auto preset_of = [](std::string_view path) {
    const auto found = model_preset_for_path(path);
    return found ? found->preset + (found->variant ? " (variant)" : "") : std::string("none");
  };
  CHECK(preset_of("/data/Qwen3-30B-A3B") == "qwen3-30b-a3b");
  CHECK(preset_of("~/models/qwen3-8b/") == "qwen3-8b");
  // verl 1dda039b's run_qwen3_30b_a3b_megatron.sh trains Qwen/Qwen3-30B-A3B-Base: the base and the
  // post-trained checkpoints share one config.json architecture (hidden 2048, 48 layers, 128 experts).
  CHECK(preset_of("Qwen/Qwen3-30B-A3B-Base") == "qwen3-30b-a3b (variant)");
  CHECK(preset_of("Qwen/Qwen3-30B-A3B-Instruct-2507") == "qwen3-30b-a3b (variant)");
  CHECK(preset_of("Qwen/Qwen2.5-7B") == "qwen2.5-7b-instruct (variant)");  // preset is the Instruct config
  CHECK(preset_of("meta-llama/Meta-Llama-3.1-8B-Instruct") == "llama-3.1-8b (variant)");
  CHECK(preset_of("deepseek-ai/DeepSeek-V3-0324") == "deepseek-v3 (variant)");
  // A dated re-release shares the architecture, not always the context: Qwen3-30B-A3B-Thinking-2507's
  // config.json has max_position_embeddings 262144 where Qwen3-30B-A3B's has 40960.
  CHECK(model_preset_for_path("Qwen/Qwen3-30B-A3B-Thinking-2507")->dated);
  CHECK_FALSE(model_preset_for_path("Qwen/Qwen3-30B-A3B-Base")->dated);
  CHECK_FALSE(model_preset_for_path("/data/Qwen3-30B-A3B")->dated);
  // verl's default actor_rollout_ref.model.path, and the other verl example models with a preset.
  CHECK(preset_of("~/models/deepseek-llm-7b-chat") == "deepseek-llm-7b-chat");
  CHECK(preset_of("deepseek-ai/deepseek-llm-7b-base") == "deepseek-llm-7b-chat (variant)");
  CHECK(preset_of("Qwen/Qwen3-0.6B") == "qwen3-0.6b");
  CHECK(preset_of("Qwen/Qwen3-VL-8B-Instruct") == "qwen3-vl-8b-instruct");
  CHECK(preset_of("moonshotai/Moonlight-16B-A3B") == "moonlight-16b-a3b-instruct (variant)");
  // A Hugging Face cache directory, with or without its snapshot (a user's DeepSeek-V3 launch).
  CHECK(preset_of("/hf/hub/models--deepseek-ai--DeepSeek-V3-bf16") == "deepseek-v3 (variant)");
  CHECK(preset_of("/hf/hub/models--Qwen--Qwen3-8B/snapshots/9c925d64d72725edaf899c6cb9c377fd0709d9c5") ==
        "qwen3-8b");
  // Quantized weights, another release or another model: no preset.
  CHECK(preset_of("Qwen/Qwen3-30B-A3B-FP8") == "none");
  CHECK(preset_of("deepseek-ai/DeepSeek-V3.1") == "none");
  CHECK(preset_of("Qwen/Qwen2.5-Math-7B") == "none");
  CHECK(preset_of("/checkpoints/global_step_100/actor") == "none");
  CHECK(preset_of("") == "none");
}

}  // namespace meshplan
