#include "model/decoder_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/param_count.hpp"

namespace meshplan {

void read_decoder_shape(const ConfigFields& config, bool tie_default, ModelSpec& model, std::int64_t num_layers) {
  model.hidden_size = config.positive("hidden_size", kMaxWidth);
  model.num_layers = num_layers > 0 ? num_layers : config.positive("num_hidden_layers", kMaxLayers);
  model.vocab_size = config.positive("vocab_size", kMaxVocab);
  model.max_position_embeddings = config.positive_or("max_position_embeddings", 0, kMaxPositions);
  model.tie_word_embeddings = config.flag_or("tie_word_embeddings", tie_default);
  model.norm = NormKind::rms_norm;
  model.position = PositionKind::rope;
  model.num_dense_layers = model.num_layers;
  read_rope_and_norm(config, model);
}

void read_rope_and_norm(const ConfigFields& config, ModelSpec& model) {
  model.norm_eps = config.number_or("rms_norm_eps", 1e-6);
  RopeSpec& rope = model.rope;
  // transformers >= 5 keeps rope_theta and the scaling in one rope_parameters object.
  const bool parameters = config.has("rope_parameters");
  if (!parameters) rope.theta = config.number_or("rope_theta", 10000.0);
  if (!parameters && !config.has("rope_scaling")) return;
  const ConfigFields scaling = config.section(parameters ? "rope_parameters" : "rope_scaling");
  if (parameters) rope.theta = scaling.number_or("rope_theta", 10000.0);
  // modeling_rope_utils.py: the type is rope_type, or the legacy `type`; "default" means none.
  std::string type = scaling.text_or_empty("rope_type");
  if (type.empty()) type = scaling.text_or_empty("type");
  rope.mrope_section = scaling.integers("mrope_section", kMaxWidth);
  if (!rope.mrope_section.empty()) type = "mrope";
  rope.scaling = type == "default" ? "" : type;
  rope.factor = scaling.number_or("factor", 1.0);
  rope.low_freq_factor = scaling.number_or("low_freq_factor", 1.0);
  rope.high_freq_factor = scaling.number_or("high_freq_factor", 4.0);
  rope.original_max_positions = scaling.count_or("original_max_position_embeddings", 0, kMaxPositions);
  rope.beta_fast = scaling.number_or("beta_fast", 32.0);
  rope.beta_slow = scaling.number_or("beta_slow", 1.0);
  rope.mscale = scaling.number_or("mscale", 1.0);
  rope.mscale_all_dim = scaling.number_or("mscale_all_dim", 0.0);
}

int state_dtype_bytes(const ConfigFields& config, std::string_view key) {
  const std::string dtype = config.text_or_empty(key);
  if (dtype.empty()) return 0;
  if (dtype == "float32") return 4;
  if (dtype == "bfloat16" || dtype == "float16") return 2;
  config.fail(key, fmt::format("\"{}\" is not float32, bfloat16 or float16", dtype));
  return 0;
}

void read_standard_attention(const ConfigFields& config, ModelSpec& model) {
  AttentionSpec& attention = model.attention;
  attention.kind = AttentionKind::standard;
  attention.num_heads = config.positive("num_attention_heads", kMaxWidth);
  attention.num_kv_heads = config.positive_or("num_key_value_heads", attention.num_heads, kMaxWidth);
  if (config.failed()) return;
  if (attention.num_kv_heads > attention.num_heads) {
    config.fail("num_key_value_heads", fmt::format("{} key/value heads exceed the {} attention heads",
                                                   attention.num_kv_heads, attention.num_heads));
  } else if (attention.num_heads % attention.num_kv_heads != 0) {
    config.fail("num_key_value_heads",
                fmt::format("{} key/value heads do not divide the {} attention heads (grouped-query "
                            "attention shares each kv head among heads / kv_heads query heads)",
                            attention.num_kv_heads, attention.num_heads));
  }
  if (config.has("head_dim")) {
    attention.head_dim = config.positive("head_dim", kMaxWidth);
  } else if (model.hidden_size % attention.num_heads != 0) {
    config.fail("num_attention_heads",
                fmt::format("{} heads do not divide hidden_size {} and the config has no head_dim",
                            attention.num_heads, model.hidden_size));
  } else {
    attention.head_dim = model.hidden_size / attention.num_heads;
  }
}

std::int64_t count_layer_type(const ConfigFields& config, std::int64_t num_layers, std::string_view type) {
  if (!config.has("layer_types")) return -1;
  const std::vector<std::string> types = config.texts("layer_types");
  if (!config.failed() && static_cast<std::int64_t>(types.size()) != num_layers) {
    config.fail("layer_types", fmt::format("has {} entries for {} layers", types.size(), num_layers));
  }
  return std::count(types.begin(), types.end(), type);
}

std::int64_t count_sliding_layers(const ConfigFields& config, std::int64_t num_layers) {
  return count_layer_type(config, num_layers, "sliding_attention");
}

std::vector<bool> qwen_moe_layers(const ConfigFields& config, std::int64_t num_layers) {
  const std::int64_t step = config.positive_or("decoder_sparse_step", 1, kMaxLayers);
  const std::vector<std::int64_t> dense_only = config.integers("mlp_only_layers", kMaxLayers);
  std::vector<bool> sparse;
  for (std::int64_t layer = 0; layer < num_layers; ++layer) {
    const bool listed_dense = std::find(dense_only.begin(), dense_only.end(), layer) != dense_only.end();
    sparse.push_back(!listed_dense && (layer + 1) % step == 0);
  }
  return sparse;
}

void check_experts_per_token(const ConfigFields& config, std::string_view key, const MoeSpec& moe) {
  if (!config.failed() && moe.experts_per_token > moe.num_experts) {
    config.fail(key, fmt::format("top-{} routing exceeds the {} experts", moe.experts_per_token, moe.num_experts));
  }
}

MoeSpec read_local_experts(const ConfigFields& config) {
  MoeSpec moe;
  moe.num_experts = config.positive("num_local_experts", kMaxWidth);
  moe.experts_per_token = config.positive("num_experts_per_tok", kMaxWidth);
  moe.expert_intermediate_size = config.positive("intermediate_size", kMaxWidth);
  check_experts_per_token(config, "num_experts_per_tok", moe);
  return moe;
}

MoeSpec read_deepseek_style_experts(const ConfigFields& config, std::int64_t hidden, std::int64_t shared_default) {
  MoeSpec moe;
  moe.num_experts = config.positive("n_routed_experts", kMaxWidth);
  moe.experts_per_token = config.positive("num_experts_per_tok", kMaxWidth);
  moe.expert_intermediate_size = config.positive("moe_intermediate_size", kMaxWidth);
  moe.num_shared_experts = config.count_or("n_shared_experts", shared_default, kMaxWidth);
  moe.shared_intermediate_size = moe.num_shared_experts * moe.expert_intermediate_size;
  check_experts_per_token(config, "num_experts_per_tok", moe);
  moe.routed_expert_params = params_product({3, hidden, moe.expert_intermediate_size});
  moe.shared_expert_params = params_product({3, hidden, moe.shared_intermediate_size});
  return moe;
}

void read_gated_mlp(const ConfigFields& config, ModelSpec& model) {
  model.dense_mlp.intermediate_size = config.positive("intermediate_size", kMaxWidth);
  model.dense_mlp.gated = true;
  model.dense_mlp.bias = config.flag_or("mlp_bias", false);
}

}  // namespace meshplan
