// Classic GPT: LayerNorm with bias, biased multi-head attention, a 4h GeLU MLP with biases.
// gpt2 (learned absolute positions, tied head; transformers models/gpt2/modeling_gpt2.py: wte,
// wpe, c_attn, c_proj, c_fc, ln_1, ln_2, ln_f) and gpt_neox (rotary positions, untied head
// by default; models/gpt_neox/modeling_gpt_neox.py: embed_in, query_key_value, dense,
// dense_h_to_4h, dense_4h_to_h, embed_out). The shape of Megatron-LM's GPT (Narayanan et al.
// 2021 §5.1 counts 12*L*h^2 weights per layer) is the gpt2 one.
#include <fmt/format.h>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

void read_gpt2_shape(const ConfigFields& config, ModelSpec& model) {
  model.hidden_size = config.positive("n_embd", kMaxWidth);
  model.num_layers = config.positive("n_layer", kMaxLayers);
  model.vocab_size = config.positive("vocab_size", kMaxVocab);
  model.max_position_embeddings = config.positive("n_positions", kMaxPositions);
  model.tie_word_embeddings = config.flag_or("tie_word_embeddings", true);  // GPT2LMHeadModel ties
  model.position = PositionKind::learned;
  AttentionSpec& attention = model.attention;
  attention.num_heads = config.positive("n_head", kMaxWidth);
  attention.num_kv_heads = attention.num_heads;
  if (!config.failed() && model.hidden_size % attention.num_heads != 0) {
    config.fail("n_head", fmt::format("{} heads do not divide n_embd {}", attention.num_heads, model.hidden_size));
  }
  attention.head_dim = model.hidden_size / attention.num_heads;
  attention.qkv_bias = true;
  attention.o_bias = true;
  model.dense_mlp.intermediate_size = config.positive_or("n_inner", 4 * model.hidden_size, kMaxWidth);
  model.norm_eps = config.number_or("layer_norm_epsilon", 1e-5);  // GPT2Config default
}

void read_gpt_neox_shape(const ConfigFields& config, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  if (!config.failed() && model.attention.head_dim * model.attention.num_heads != model.hidden_size) {
    config.fail("num_attention_heads", "must divide hidden_size (GPT-NeoX has no head_dim)");
  }
  const bool bias = config.flag_or("attention_bias", true);  // GPTNeoXConfig default
  model.attention.qkv_bias = bias;
  model.attention.o_bias = bias;
  model.dense_mlp.intermediate_size = config.positive("intermediate_size", kMaxWidth);
  // GPTNeoXConfig: rotary_emb_base (10000), rotary_pct (0.25) of each head rotated, layer_norm_eps (1e-5).
  model.rope.theta = config.number_or("rotary_emb_base", 10000.0);
  model.rope.fraction = config.number_or("rotary_pct", 0.25);
  model.norm_eps = config.number_or("layer_norm_eps", 1e-5);
}

}  // namespace

void read_classic_gpt(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  if (model_type == "gpt2") {
    read_gpt2_shape(config, model);
  } else {
    read_gpt_neox_shape(config, model);
  }
  model.norm = NormKind::layer_norm;
  model.dense_mlp.gated = false;
  model.dense_mlp.bias = true;
  model.num_dense_layers = model.num_layers;
  count_params(model);
}

}  // namespace meshplan
