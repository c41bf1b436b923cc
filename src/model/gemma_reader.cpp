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

namespace {

// Gemma3TextConfig.__init__ defaults (configuration_gemma3.py): Gemma 3 configs leave out what
// matches them (google/gemma-3-4b-it's text_config gives neither heads nor vocab_size).
constexpr std::string_view kGemma3TextDefaults = R"({"vocab_size": 262208, "hidden_size": 2304,
  "intermediate_size": 9216, "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
  "head_dim": 256, "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
  "sliding_window": 4096, "sliding_window_pattern": 6})";

}  // namespace

void read_gemma(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  if (model_type != "gemma2") config.add_defaults(kGemma3TextDefaults);
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
