// Gemma 2 / Gemma 3 language models: four RMSNorms per layer (pre/post attention, pre/post
// feed-forward), a GeGLU MLP, tied embeddings, interleaved sliding-window and global layers;
// Gemma 3 adds q/k norms.
// Sources: transformers models/gemma2/modeling_gemma2.py (Gemma2Attention, Gemma2DecoderLayer),
// configuration_gemma2.py (layer_types default: every other layer slides), models/gemma3/
// modeling_gemma3.py (Gemma3Attention q_norm/k_norm), configuration_gemma3.py (layer_types from
// sliding_window_pattern, default 6: every sixth layer global).
#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

void read_gemma(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  read_decoder_shape(config, true, model);  // Gemma2Config / Gemma3TextConfig: tie_word_embeddings=True
  read_standard_attention(config, model);
  read_gated_mlp(config, model);
  model.norms_per_layer = 4;
  AttentionSpec& attention = model.attention;
  const bool bias = config.flag_or("attention_bias", false);
  attention.qkv_bias = bias;
  attention.o_bias = bias;
  attention.qk_norm = model_type != "gemma2";
  attention.sliding_window = config.count_or("sliding_window", 4096, kMaxPositions);
  const std::int64_t listed = count_sliding_layers(config, model.num_layers);
  const std::int64_t pattern =
      model_type == "gemma2" ? 2 : config.positive_or("sliding_window_pattern", 6, kMaxLayers);
  // Layer i is global when (i + 1) % pattern == 0, sliding otherwise.
  attention.num_sliding_layers = listed >= 0 ? listed : model.num_layers - model.num_layers / pattern;
  if (attention.sliding_window == 0 || attention.num_sliding_layers == 0) {
    attention.sliding_window = 0;
    attention.num_sliding_layers = 0;
  }
  count_params(model);
}

}  // namespace meshplan
