// Nemotron-H and Nemotron 3 (nemotron_h): hybrid decoders whose layers each hold one sublayer, a
// Mamba-2 mixer (M), grouped-query attention without positions (*), a squared-ReLU MLP (-) or a
// MoE of squared-ReLU experts with one shared expert and a sigmoid router (E), in the order of
// hybrid_override_pattern.
// Sources: transformers models/nemotron_h/configuration_nemotron_h.py (fields, defaults, the
// pattern's symbols), modeling_nemotron_h.py (NemotronHBlock: one RMSNorm and one mixer per layer;
// NemotronHMamba2Mixer: in_proj to z, x, B, C, dt, conv1d over x, B, C with use_conv_bias, dt_bias,
// A_log, D, the gated RMSNorm over the inner width, out_proj; NemotronHMLP up + down;
// NemotronHTopkRouter weight + e_score_correction_bias); Megatron-core ssm/mamba_mixer.py (the same
// layer in training: d_inner = mamba_num_heads x mamba_head_dim).
#include <algorithm>

#include <fmt/format.h>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

constexpr std::string_view kLayerSymbols = "M*-E";  // mamba, attention, mlp, moe

/// layers_block_type's names (transformers 5 configs, Nemotron 3 Super and Ultra) as the pattern's
/// symbols; '?' for a name it does not use.
char symbol_of(std::string_view kind) {
  if (kind == "mamba") return 'M';
  if (kind == "attention") return '*';
  if (kind == "mlp") return '-';
  if (kind == "moe") return 'E';
  return '?';
}

/// A pattern key (`pattern_key`, e.g. hybrid_override_pattern), else its transformers-5 list of
/// names (`list_key`, e.g. layers_block_type): one symbol per layer, "" when neither is set. Sets
/// `key` to the one read; a symbol it does not know is an error on it.
std::string read_layer_kinds(const ConfigFields& config, std::string_view pattern_key, std::string_view list_key,
                             std::string_view& key) {
  key = pattern_key;
  std::string pattern = config.text_or_empty(pattern_key);
  if (pattern.empty() && config.has(list_key)) {
    key = list_key;
    for (const std::string& kind : config.texts(list_key)) pattern += symbol_of(kind);
  }
  if (config.failed()) return pattern;
  const std::size_t bad = pattern.find_first_not_of(kLayerSymbols);
  if (static_cast<std::int64_t>(pattern.size()) > kMaxLayers) {
    config.fail(key, fmt::format("has {} layers, more than {}", pattern.size(), kMaxLayers));
  } else if (bad != std::string::npos) {
    config.fail(key, fmt::format("layer {} is not a layer kind (M or mamba, * or attention, - or mlp, E or moe)", bad));
  }
  return pattern;
}

/// hybrid_override_pattern, else layers_block_type: one symbol per layer. The pattern gives the
/// layer count (transformers' NemotronH configs derive num_hidden_layers from it); a
/// num_hidden_layers that says otherwise is an error.
std::string read_pattern(const ConfigFields& config) {
  std::string_view key;
  std::string pattern = read_layer_kinds(config, "hybrid_override_pattern", "layers_block_type", key);
  if (config.failed()) return pattern;
  if (pattern.empty()) {
    config.fail("hybrid_override_pattern",
                "is required for nemotron_h (or layers_block_type): one of M, *, - or E per layer");
  } else if (config.has("num_hidden_layers") &&
             config.positive("num_hidden_layers", kMaxLayers) != static_cast<std::int64_t>(pattern.size())) {
    config.fail(key, fmt::format("has {} layers where num_hidden_layers is {}", pattern.size(),
                                 config.positive("num_hidden_layers", kMaxLayers)));
  }
  return pattern;
}

std::int64_t count_of(const std::string& pattern, char symbol) {
  return static_cast<std::int64_t>(std::count(pattern.begin(), pattern.end(), symbol));
}

/// The Mamba-2 mixer (defaults: NemotronHConfig).
LinearAttentionSpec read_mamba2(const ConfigFields& config, std::int64_t num_layers) {
  LinearAttentionSpec mamba;
  mamba.kind = LinearAttentionKind::mamba2;
  mamba.num_layers = num_layers;
  mamba.num_value_heads = config.positive_or("mamba_num_heads", 128, kMaxWidth);
  mamba.value_head_dim = config.positive_or("mamba_head_dim", 64, kMaxWidth);
  mamba.num_key_heads = config.positive_or("n_groups", 8, kMaxWidth);
  mamba.key_head_dim = config.positive_or("ssm_state_size", 128, kMaxWidth);
  mamba.conv_kernel_size = config.positive_or("conv_kernel", 4, kMaxWidth);
  mamba.state_bytes_per_element = state_dtype_bytes(config, "mamba_ssm_cache_dtype");
  mamba.chunk_size = config.positive_or("chunk_size", 128, kMaxWidth);
  mamba.conv_bias = config.flag_or("use_conv_bias", true);
  mamba.projection_bias = config.flag_or("mamba_proj_bias", false);
  if (!config.failed() && mamba.num_value_heads % mamba.num_key_heads != 0) {
    config.fail("n_groups", fmt::format("{} groups do not divide the {} mamba heads", mamba.num_key_heads,
                                        mamba.num_value_heads));
  }
  return mamba;
}

/// E layers: n_routed_experts up + down experts of moe_intermediate_size, one shared expert of
/// moe_shared_expert_intermediate_size, NemotronHTopkRouter (sigmoid, noaux_tc bias). With
/// moe_latent_size (LatentMoE, Nemotron 3 Super / Ultra; modeling_nemotron_h.py NemotronHMOE
/// fc1_latent_proj / fc2_latent_proj, Megatron-core moe_layer.py) the routed experts run in the
/// latent width between two projections; the router and the shared expert stay on h.
MoeSpec read_experts(const ConfigFields& config, std::int64_t h, bool bias) {
  MoeSpec moe;
  moe.num_experts = config.positive_or("n_routed_experts", 8, kMaxWidth);
  moe.experts_per_token = config.positive_or("num_experts_per_tok", 2, kMaxWidth);
  moe.expert_intermediate_size = config.positive_or("moe_intermediate_size", 7688, kMaxWidth);
  check_experts_per_token(config, "num_experts_per_tok", moe);
  moe.num_shared_experts = config.count_or("n_shared_experts", 1, kMaxWidth);
  moe.shared_intermediate_size =
      moe.num_shared_experts > 0 ? config.positive_or("moe_shared_expert_intermediate_size", 7688, kMaxWidth) : 0;
  moe.gated_experts = false;
  moe.score = RouterScore::sigmoid;
  moe.expert_bias = true;
  moe.normalize_top_k = config.flag_or("norm_topk_prob", true);
  moe.routed_scaling_factor = config.number_or("routed_scaling_factor", 1.0);
  moe.num_groups = config.positive_or("n_group", 1, kMaxWidth);
  moe.group_top_k = config.positive_or("topk_group", 1, kMaxWidth);
  moe.latent_size = config.count_or("moe_latent_size", 0, kMaxWidth);
  const MlpSpec expert{moe.expert_intermediate_size, false, bias, true};
  const MlpSpec shared{moe.shared_intermediate_size, false, bias, true};
  moe.routed_expert_params = mlp_params(moe.latent_size > 0 ? moe.latent_size : h, expert);
  if (moe.latent_size > 0) {
    moe.latent_projection_params =
        params_sum({params_product({2, h, moe.latent_size}), bias ? h + moe.latent_size : 0});
  }
  moe.shared_expert_params = moe.num_shared_experts > 0 ? mlp_params(h, shared) : 0;
  moe.router_params = params_sum({params_product({moe.num_experts, h}), moe.num_experts});
  return moe;
}

/// One layer of `kind` with its pre-norm (NemotronHBlock), from the shape already read.
std::int64_t block_params(const ModelSpec& model, char kind) {
  const std::int64_t norm = norm_params(model.norm, model.hidden_size);
  switch (kind) {
    case 'M': return params_sum({norm, linear_attention_params(model.hidden_size, *model.linear_attention)});
    case '*': return params_sum({norm, attention_params(model.hidden_size, model.attention)});
    case '-': return params_sum({norm, mlp_params(model.hidden_size, model.dense_mlp)});
    default: return params_sum({norm, moe_layer_params(*model.moe)});
  }
}

/// num_nextn_predict_layers MTP modules, each the layers of mtp_hybrid_override_pattern
/// (mtp_layers_block_type in transformers 5 configs) between NemotronH's enorm, hnorm, eh_proj and
/// final norm (Megatron-Bridge nemotron_h_bridge.py maps them to Megatron-core's
/// mtp_hybrid_override_pattern; Nemotron 3 Super: one module of "*E").
void read_mtp(const ConfigFields& config, ModelSpec& model) {
  model.num_mtp_layers = config.count_or("num_nextn_predict_layers", 0, kMaxLayers);
  if (model.num_mtp_layers == 0 || config.failed()) return;
  std::string_view key;
  const std::string pattern = read_layer_kinds(config, "mtp_hybrid_override_pattern", "mtp_layers_block_type", key);
  if (config.failed()) return;
  if (pattern.empty()) {
    config.fail("mtp_hybrid_override_pattern",
                "is required with num_nextn_predict_layers (or mtp_layers_block_type): the MTP module's layers");
    return;
  }
  std::int64_t layers = 0;
  for (const char kind : pattern) {
    const bool absent = (kind == 'M' && !model.linear_attention) || (kind == '-' && model.num_dense_layers == 0) ||
                        (kind == 'E' && !model.moe) || (kind == '*' && model.num_attention_layers() == 0);
    if (absent) {
      config.fail(key, fmt::format("has a '{}' layer, a kind the decoder's hybrid_override_pattern does not hold", kind));
      return;
    }
    layers = params_sum({layers, block_params(model, kind)});
  }
  model.mtp_layer_pattern = pattern;
  model.params.mtp = params_product({model.num_mtp_layers, mtp_module_params(model.hidden_size, layers)});
}

}  // namespace

void read_nemotron_h(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  // Per-layer block sizes (the Puzzle variants) change each layer's experts: not read, so refused
  // rather than miscounted.
  if (config.has("block_configs")) {
    config.fail("block_configs", "is not read yet (per-layer MoE sizes): meshplan would miscount the experts");
    return;
  }
  const std::string pattern = read_pattern(config);
  if (config.failed()) return;
  read_decoder_shape(config, false, model, static_cast<std::int64_t>(pattern.size()));
  model.norm_eps = config.number_or("layer_norm_epsilon", config.number_or("norm_eps", 1e-5));
  model.norms_per_layer = 1;  // NemotronHBlock: one pre-norm per layer
  model.hybrid_layer_pattern = pattern;  // one sublayer a layer (ModelSpec::single_sublayer_layers)
  model.position = PositionKind::none;  // NemotronHAttention applies no rotary embedding
  read_standard_attention(config, model);
  const bool attention_bias = config.flag_or("attention_bias", false);
  model.attention.qkv_bias = attention_bias;
  model.attention.o_bias = attention_bias;
  if (config.failed()) return;
  const std::int64_t h = model.hidden_size;
  const bool mlp_bias = config.flag_or("mlp_bias", false);
  const std::string activation = config.text_or_empty("mlp_hidden_act");
  if (!activation.empty() && activation != "relu2") {
    config.fail("mlp_hidden_act", fmt::format("\"{}\": nemotron_h MLPs and experts are read as relu2 (up + down)",
                                              activation));
    return;
  }
  model.linear_attention = read_mamba2(config, count_of(pattern, 'M'));
  model.num_dense_layers = count_of(pattern, '-');
  model.dense_mlp = MlpSpec{model.num_dense_layers > 0 ? config.positive_or("intermediate_size", 21504, kMaxWidth) : 0,
                            false, mlp_bias, true};
  if (count_of(pattern, 'E') > 0) {
    MoeSpec moe = read_experts(config, h, mlp_bias);
    for (const char kind : pattern) moe.layer_is_moe.push_back(kind == 'E');
    moe.num_moe_layers = count_of(pattern, 'E');
    model.moe = moe;
  }
  if (config.failed()) return;
  read_mtp(config, model);
  if (config.failed()) return;
  count_params(model);
  // The non-MoE layers (mixers and MLPs) share the MLPs' parameters in the per-layer mean.
  const std::int64_t non_moe_layers = model.num_layers - (model.moe ? model.moe->num_moe_layers : 0);
  model.dense_mlp_params_per_layer = non_moe_layers > 0 ? model.params.dense_mlp / non_moe_layers : 0;
}

}  // namespace meshplan
