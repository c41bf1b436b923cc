// Real config.json files of the new families that the readers were not written against
// (tests/fixtures/models/<name>/config.json; where each came from: SOURCES.md there), each against
// the total its public checkpoint stores: the Hugging Face Hub's safetensors total
// (https://huggingface.co/api/models/<repo>?expand[]=safetensors) as recorded in debaditc/kvfit
// scripts/build_registry.py and src/kvfit/data/models.json (commit bd4ccabf), and for Gemma 2
// also keras-team/keras-hub's Gemma 2 presets ("params"). Each count is also worked by hand below.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "model/config_reader.hpp"
#include "parsed_model.hpp"
#include "test_support.hpp"

namespace meshplan {

namespace {

ModelSpec fixture_model(const std::string& name) {
  std::ifstream in(test::fixture("models/" + name + "/config.json"));
  REQUIRE_MESSAGE(in.good(), "missing fixture " << name);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return test::parsed_model(text, name.c_str());
}

}  // namespace

TEST_CASE("unseen gemma2: Gemma-2-9B-it, 9,241,705,984 parameters (google/gemma-2-9b-it safetensors total)") {
  // Embedding 256000 x 3584 = 917,504,000 (tied). Per layer: q 3584 x 16 x 256, k + v
  // 2 x 3584 x 8 x 256, o 4096 x 3584 = 44,040,192; GeGLU 3 x 3584 x 14336 = 154,140,672; four
  // norms 14,336; 42 x 198,195,200 = 8,324,198,400; final norm 3584.
  const ModelSpec model = fixture_model("gemma-2-9b-it");
  CHECK(model.total_params == 9241705984);
  CHECK(model.tie_word_embeddings);
  CHECK(model.attention.num_sliding_layers == 21);  // Gemma2Config: every other layer slides
  CHECK(model.attention.sliding_window == 4096);
}

TEST_CASE("unseen gemma2: Gemma-2-27B-it, 27,227,128,320 parameters (google/gemma-2-27b-it safetensors total)") {
  // head_dim 128 (not hidden / heads = 144). Embedding 256000 x 4608 = 1,179,648,000. Per layer:
  // q 4608 x 4096 + k, v 2 x 4608 x 2048 + o 4096 x 4608 = 56,623,104; GeGLU 3 x 4608 x 36864 =
  // 509,607,936; norms 18,432; 46 x 566,249,472 = 26,047,475,712; final norm 4608.
  const ModelSpec model = fixture_model("gemma-2-27b-it");
  CHECK(model.total_params == 27227128320);
  CHECK(model.attention.head_dim == 128);
}

TEST_CASE("unseen gemma3: Gemma-3-12B-it, 12,187,325,040 parameters (google/gemma-3-12b-it safetensors total)") {
  // text_config names only its widths; Gemma3TextConfig gives head_dim 256 and vocab 262,208.
  // Text: embedding 262208 x 3840 = 1,006,878,720; per layer q 3840 x 4096 + k, v 2 x 3840 x 2048
  // + o 4096 x 3840 + q/k norms 512 = 47,186,432, GeGLU 3 x 3840 x 15360 = 176,947,200, norms
  // 15,360; 48 x 224,148,992 + final 3840 = 11,766,034,176. SigLIP tower 416,866,032 (as in
  // gemma-3-4b-it) + projector 1152 x 3840 + norm 1152 = 4,424,832.
  const ModelSpec model = fixture_model("gemma-3-12b-it");
  CHECK(model.total_params == 12187325040);
  REQUIRE(model.vision.has_value());
  CHECK(model.params.vision == 416866032 + 4424832);
  CHECK(model.attention.num_sliding_layers == 40);  // sliding_window_pattern 6: layers 5, 11, ... global
}

TEST_CASE("unseen glm4_moe: GLM-4.5, 358,337,791,296 stored = 352,797,829,024 + MTP + its tables") {
  // zai-org/GLM-4.5 (Hub total 358,337,791,296). Embedding and head 2 x 151552 x 5120 =
  // 1,551,892,480. Attention per layer: q 5120 x 12288 + bias, k, v 2 x (5120 x 1024 + bias), o
  // 12288 x 5120, q/k norms 256 = 136,325,376; norms 10,240. Layers 0-2 dense (SwiGLU
  // 3 x 5120 x 12288); 89 MoE layers: 160 experts + 1 shared x 3 x 5120 x 1536, router 160 x 5120
  // + correction bias 160. MTP layer: enorm, hnorm, eh_proj 10240 x 5120, one MoE layer, its
  // head norm = 3,988,069,792; the checkpoint's MTP layer also stores its own embedding and head
  // (as GLM-4.5-Air's does).
  const ModelSpec model = fixture_model("glm-4.5");
  CHECK(model.total_params == 352797829024);
  CHECK(model.params.mtp == 3988069792);
  CHECK(model.total_params + model.params.mtp + model.params.embedding + model.params.lm_head == 358337791296);
  CHECK(model.attention.qk_norm);
  CHECK(model.moe->num_moe_layers == 89);
  // zai-org/GLM-4.6 has GLM-4.5's layers (its config.json differs in max_position_embeddings
  // 202752), and its MTP layer leaves the copies out: Hub total 356,785,898,816 = total + MTP.
  CHECK(model.total_params + model.params.mtp == 356785898816);
}

TEST_CASE("unseen gpt_oss: gpt-oss-120b, 116,829,156,672 parameters (openai/gpt-oss-120b safetensors total)") {
  // Embedding and head 2 x 201088 x 2880 = 1,158,266,880. Per layer: biased q (2880 x 4096), k, v
  // (2 x 2880 x 512), o (4096 x 2880) and 64 sinks = 26,550,144; norms 5760; 128 experts x
  // (3 x 2880 x 2880 + 2 x 2880 + 2880 biases) = 3,186,155,520 + router 128 x 2880 + 128; 36
  // layers + final norm 2880.
  const ModelSpec model = fixture_model("gpt-oss-120b");
  CHECK(model.total_params == 116829156672);
  CHECK(model.attention.num_sliding_layers == 18);
  // Active: total - 36 x (128 - 4) experts of 24,891,840 = 5,711,982,912 (OpenAI: 5.1B active,
  // counted without the embedding: 5,711,982,912 - 579,133,440 = 5.13B).
  CHECK(model.active_params == 116829156672 - 36LL * 124 * 24891840);
}

TEST_CASE("unseen qwen3_5_text: the 27B hybrid, 27,781,427,952 stored = language + MTP + vision tower") {
  // The text config kvfit records for Qwen/Qwen3.8-27B (Qwen3.5-27B's shapes), trimmed to the text
  // model: 48 Gated DeltaNet + 16 gated full-attention layers, hidden 5120, ffn 17408, vocab
  // 248,320. Published total 27,781,427,952 = language 26,895,998,464 + MTP 424,699,392 + vision:
  // MTP by hand: fc 2 x 5120 x 5120 + its two norms 10,240 + one full-attention layer (q with gate
  // 5120 x 12288, k, v 2 x 5120 x 1024, o 6144 x 5120, q/k norms 512 = 104,858,112; SwiGLU
  // 3 x 5120 x 17408; norms 10,240) + final norm 5120. Vision: the Qwen3.5 tower of
  // qwen3.5-9b (456,010,480) with its last merger projection 4608 -> 5120 instead of 4096:
  // + 4608 x 1024 + 1024 = 460,730,096.
  const ModelSpec model = fixture_model("qwen3.8-27b");
  CHECK(model.total_params == 26895998464);
  CHECK(model.linear_attention->num_layers == 48);
  std::ifstream in(test::fixture("models/qwen3.8-27b/config.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = "\"vocab_size\": 248320";
  const std::size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.insert(at, "\"mtp_num_hidden_layers\": 1, ");
  const ModelSpec with_mtp = test::parsed_model(text, "qwen3.8-27b with MTP");
  CHECK(with_mtp.params.mtp == 424699392);
  CHECK(with_mtp.total_params + with_mtp.params.mtp + 460730096 == 27781427952);
}

TEST_CASE("unseen qwen3_5: Qwen3.5-0.8B, 873,438,784 stored = 852,985,920 + MTP 20,452,864 (safetensors total)") {
  // Qwen/Qwen3.5-0.8B's config.json (tied head, a 12-block vision tower of width 768). Vision by
  // hand: Conv3d 3 x 2 x 16 x 16 x 768 + 768, positions 2304 x 768, 12 blocks x 7,087,872 (two
  // LayerNorms, qkv 768 x 2304 + bias, proj, fc1 768 x 3072, fc2, biases), merger LayerNorm 768 +
  // fc1 3072 x 3072 + fc2 3072 x 1024 with biases = 100,592,896. MTP: fc 2 x 1024 x 1024, two
  // norms, one gated full-attention layer (q 1024 x 4096, k, v 2 x 1024 x 512, o 2048 x 1024, q/k
  // norms 512; SwiGLU 3 x 1024 x 3584; norms 2048) and a final norm = 20,452,864.
  const ModelSpec model = fixture_model("qwen3.5-0.8b");
  CHECK(model.total_params == 852985920);
  CHECK(model.params.vision == 100592896);
  CHECK(model.params.mtp == 20452864);
  CHECK(model.total_params + model.params.mtp == 873438784);
  CHECK(model.tie_word_embeddings);
}

TEST_CASE("unseen qwen3_5_moe: Qwen3.6-35B-A3B, 35,951,822,704 stored = 35,107,181,936 + MTP 844,640,768") {
  // Qwen/Qwen3.6-35B-A3B's config.json at revision 995ad96e (the Hub's safetensors total at that
  // revision: 35,951,822,704). The shapes of Qwen3.5-35B-A3B (tests/model/hybrid_models_test.cpp
  // works them by hand): 30 Gated DeltaNet + 10 gated full-attention layers, 256 experts of 512
  // + one shared, the 27-block vision tower, one MTP layer.
  const ModelSpec model = fixture_model("qwen3.6-35b-a3b");
  CHECK(model.total_params == 35107181936);
  CHECK(model.params.mtp == 844640768);
  CHECK(model.total_params + model.params.mtp == 35951822704);
  CHECK(model.moe->num_experts == 256);
}

TEST_CASE("unseen deepseek_v32: DeepSeek-V3.2, 685,355,329,792 stored = main + MTP + the MTP layer's tables") {
  // deepseek-ai/DeepSeek-V3.2's config.json at revision a7e62ac0 (quantization_config left out by
  // the copy). DeepSeek-V3's 671,026,419,200 + 61 lightning indexers of 13,959,424 (wq_b 1536 x
  // 64 x 128, wk 7168 x 128, k_norm 256, weights_proj 7168 x 64) = 671,877,944,064; MTP 11,610,068,224
  // + its indexer = 11,624,027,648; the MTP layer's own embedding and head 2 x 129280 x 7168 =
  // 1,853,358,080. (V3.2-Exp's published 685,396,921,376 adds 41,591,584 fp8 block scales.)
  const ModelSpec model = fixture_model("deepseek-v3.2");
  CHECK(model.total_params == 671877944064);
  CHECK(model.params.mtp == 11624027648);
  CHECK(model.total_params + model.params.mtp + model.params.embedding + model.params.lm_head == 685355329792);
}

}  // namespace meshplan
