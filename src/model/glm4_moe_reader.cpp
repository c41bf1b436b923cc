// GLM-4.5 / GLM-4.5-Air (glm4_moe): grouped-query attention with biased q/k/v (not o), optional
// q/k norms, DeepSeek-V3-style MoE (first dense layers, shared experts, sigmoid router with an
// e_score_correction_bias) and MTP layers.
// Sources: transformers models/glm4_moe/modeling_glm4_moe.py (Glm4MoeAttention, Glm4MoeTopkRouter,
// Glm4MoeMoE, Glm4MoeDecoderLayer: layer i is MoE from first_k_dense_replace on),
// configuration_glm4_moe.py (defaults); vLLM model_executor/models/glm4_moe_mtp.py (enorm, hnorm,
// eh_proj, one decoder layer, shared_head.norm).
#include <algorithm>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

void read_glm4_moe(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  read_gated_mlp(config, model);
  AttentionSpec& attention = model.attention;
  attention.qkv_bias = config.flag_or("attention_bias", false);
  attention.o_bias = false;
  attention.qk_norm = config.flag_or("use_qk_norm", false);
  const std::int64_t h = model.hidden_size;
  MoeSpec moe = read_deepseek_style_experts(config, h, 1);  // Glm4MoeConfig: n_shared_experts=1
  const std::int64_t first_dense = std::min(config.count_or("first_k_dense_replace", 1, kMaxLayers), model.num_layers);
  moe.num_moe_layers = model.num_layers - first_dense;
  for (std::int64_t layer = 0; layer < model.num_layers; ++layer) moe.layer_is_moe.push_back(layer >= first_dense);
  moe.router_params = params_sum({params_product({moe.num_experts, h}), moe.num_experts});  // + correction bias
  model.num_dense_layers = first_dense;
  model.moe = moe;
  model.num_mtp_layers = config.count_or("num_nextn_predict_layers", 0, kMaxLayers);
  count_params(model);
  // MTP layers sit after the last decoder layer, hence MoE ones.
  const std::int64_t mtp_layer =
      params_sum({model.attention_params_per_layer, model.norm_params_per_layer, moe_layer_params(moe)});
  model.params.mtp = params_product({model.num_mtp_layers, mtp_module_params(h, mtp_layer)});
}

}  // namespace meshplan
