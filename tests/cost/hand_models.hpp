#pragma once
// Model and GPU specs written out by hand for the cost-model tests, with their parameter counts
// worked in the comments (each matches the published total).
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"

namespace meshplan::test {

/// The fields every hand model below fills alike, each value as worked in that model's comment.
struct HandModel {
  const char* name = "";
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t vocab = 0;
  AttentionSpec attention = {};
  MlpSpec dense_mlp = {};
  std::int64_t dense_layers = 0;
  std::int64_t attention_per_layer = 0;
  std::int64_t norms_per_layer = 0;
  std::int64_t dense_mlp_per_layer = 0;
  std::int64_t embedding = 0;  ///< vocab x h, and as much again for the untied LM head
  std::int64_t total = 0;
};

/// A model with an untied LM head, a final norm of h and `norms_per_layer` in every layer; every
/// parameter active (MoE models lower `active_params`).
inline ModelSpec untied_model(const HandModel& hand) {
  ModelSpec m;
  m.name = hand.name;
  m.hidden_size = hand.hidden;
  m.num_layers = hand.layers;
  m.vocab_size = hand.vocab;
  m.attention = hand.attention;
  m.dense_mlp = hand.dense_mlp;
  m.num_dense_layers = hand.dense_layers;
  m.attention_params_per_layer = hand.attention_per_layer;
  m.norm_params_per_layer = hand.norms_per_layer;
  m.dense_mlp_params_per_layer = hand.dense_mlp_per_layer;
  m.params.embedding = hand.embedding;
  m.params.lm_head = hand.embedding;
  m.params.layer_norms = hand.layers * hand.norms_per_layer;
  m.params.final_norm = hand.hidden;
  m.total_params = hand.total;
  m.active_params = hand.total;
  return m;
}

/// Llama-2-7B: h 4096, 32 layers, 32 heads (MHA, head_dim 128), SwiGLU 11008, vocab 32000, untied.
/// attention 4*h^2 = 67,108,864; MLP 3*h*ffn = 135,266,304; norms 2h = 8,192 -> 202,383,360/layer;
/// x32 = 6,476,267,520 + embedding 131,072,000 + LM head 131,072,000 + final norm 4,096
/// = 6,738,415,616 (the published 6.74B).
inline ModelSpec llama2_7b() {
  ModelSpec m = untied_model({.name = "llama-2-7b", .hidden = 4096, .layers = 32, .vocab = 32000,
                              .attention = {AttentionKind::standard, 32, 32, 128},
                              .dense_mlp = {11008, true, false}, .dense_layers = 32,
                              .attention_per_layer = 67108864, .norms_per_layer = 8192,
                              .dense_mlp_per_layer = 135266304, .embedding = 131072000, .total = 6738415616});
  m.params.attention = 32LL * 67108864;
  m.params.dense_mlp = 32LL * 135266304;
  return m;
}

/// Qwen2.5-7B: h 3584, 28 layers, 28 heads, 4 KV heads (head_dim 128), qkv bias, SwiGLU 18944,
/// vocab 152064, untied. attention: q 3584*3584+3584, k and v 3584*512+512 each, o 3584*3584
/// = 29,364,736; MLP 3*3584*18944 = 203,685,888; norms 7,168 -> 233,057,792/layer; x28
/// = 6,525,618,176 + 2 x 544,997,376 (embedding, LM head) + 3,584 = 7,615,616,512.
inline ModelSpec qwen25_7b() {
  ModelSpec m = untied_model({.name = "qwen2.5-7b", .hidden = 3584, .layers = 28, .vocab = 152064,
                              .attention = {AttentionKind::standard, 28, 4, 128},
                              .dense_mlp = {18944, true, false}, .dense_layers = 28,
                              .attention_per_layer = 29364736, .norms_per_layer = 7168,
                              .dense_mlp_per_layer = 203685888, .embedding = 544997376, .total = 7615616512});
  m.attention.qkv_bias = true;
  m.params.attention = 28LL * 29364736;
  m.params.dense_mlp = 28LL * 203685888;
  return m;
}

/// Mixtral-8x7B: h 4096, 32 layers, 32 heads, 8 KV heads, 8 experts top-2 of width 14336, vocab
/// 32000, untied. attention 2*4096^2 + 2*4096*1024 = 41,943,040; expert 3*4096*14336
/// = 176,160,768; router 8*4096 = 32,768; norms 8,192 -> 1,451,270,144/layer; x32
/// = 46,440,644,608 + 262,144,000 + 4,096 = 46,702,792,704 (the published 46.7B).
/// MoeSpec::layer_is_moe of `dense` dense layers followed by `moe` MoE layers.
inline std::vector<bool> dense_then_moe(std::size_t dense, std::size_t moe) {
  std::vector<bool> layers(dense, false);
  layers.insert(layers.end(), moe, true);
  return layers;
}

inline ModelSpec mixtral_8x7b() {
  ModelSpec m = untied_model({.name = "mixtral-8x7b", .hidden = 4096, .layers = 32, .vocab = 32000,
                              .attention = {AttentionKind::standard, 32, 8, 128},
                              .dense_mlp = {14336, true, false}, .dense_layers = 0,
                              .attention_per_layer = 41943040, .norms_per_layer = 8192,
                              .dense_mlp_per_layer = 0, .embedding = 131072000, .total = 46702792704});
  m.moe = MoeSpec{.num_experts = 8, .experts_per_token = 2, .expert_intermediate_size = 14336,
                  .num_moe_layers = 32, .routed_expert_params = 176160768, .router_params = 32768,
                  .layer_is_moe = dense_then_moe(0, 32)};
  m.params.attention = 32LL * 41943040;
  m.params.routed_experts = 32LL * 8 * 176160768;
  m.params.routers = 32LL * 32768;
  m.active_params = m.total_params - 32LL * 6 * 176160768;
  return m;
}

/// DeepSeek-V2-Lite: h 2048, 27 layers (the first dense, 10944 wide), MLA with 16 heads,
/// q_lora_rank none, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128; 64 routed experts top-6
/// of width 1408, 2 shared experts (2816 wide); vocab 102400, untied.
/// MLA: q 2048*16*192 = 6,291,456; kv_a 2048*576 = 1,179,648; kv norm 512; kv_b 512*16*256
/// = 2,097,152; o 16*128*2048 = 4,194,304 -> 13,763,072. Dense layer: + 3*2048*10944 + 4,096
/// = 81,007,104. MoE layer: + shared 17,301,504 + router 131,072 + 64 x 8,650,752 + 4,096
/// = 584,847,872; x26 = 15,206,044,672. Total with 2 x 209,715,200 + 2,048 = 15,706,484,224.
inline ModelSpec deepseek_v2_lite() {
  ModelSpec m = untied_model({.name = "deepseek-v2-lite", .hidden = 2048, .layers = 27, .vocab = 102400,
                              .attention = {AttentionKind::mla, 16, 16, 192, 0, 512, 128, 64, 128},
                              .dense_mlp = {10944, true, false}, .dense_layers = 1,
                              .attention_per_layer = 13763072, .norms_per_layer = 4096,
                              .dense_mlp_per_layer = 67239936, .embedding = 209715200, .total = 15706484224});
  m.moe = MoeSpec{.num_experts = 64, .experts_per_token = 6, .expert_intermediate_size = 1408,
                  .num_shared_experts = 2, .shared_intermediate_size = 2816, .num_moe_layers = 26,
                  .routed_expert_params = 8650752, .router_params = 131072, .shared_expert_params = 17301504,
                  .normalize_top_k = false, .layer_is_moe = dense_then_moe(1, 26)};
  m.active_params = m.total_params - 26LL * 58 * 8650752;
  return m;
}

/// A GPU with `gib` GiB (other fields unused by the memory model).
inline GpuSpec gpu_with_memory(double gib, const char* id = "test-gpu") {
  GpuSpec gpu;
  gpu.id = id;
  gpu.memory_bytes = static_cast<std::int64_t>(gib * 1024.0 * 1024.0 * 1024.0);
  return gpu;
}

/// `nodes` x `per_node` identical GPUs.
inline Cluster cluster_of(const GpuSpec& gpu, int nodes, int per_node) {
  Cluster c;
  NodeGroup g;
  g.nodes = nodes;
  g.gpus_per_node = per_node;
  g.gpu = gpu;
  c.groups.push_back(g);
  return c;
}

}  // namespace meshplan::test
