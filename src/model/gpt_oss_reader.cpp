// gpt-oss: GQA with attention sinks and biased q/k/v/o, alternating sliding-window layers,
// MoE on every layer with biased experts and a biased router.
// Source: Hugging Face transformers models/gpt_oss/modeling_gpt_oss.py (GptOssAttention,
// GptOssExperts, GptOssTopKRouter) and the gpt-oss model card (arXiv 2508.10925) §2.

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

void read_gpt_oss(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_standard_attention(config, model);
  AttentionSpec& attention = model.attention;
  const bool bias = config.flag_or("attention_bias", true);  // GptOssConfig default
  attention.qkv_bias = bias;
  attention.o_bias = bias;
  attention.sinks = true;
  attention.sliding_window = config.count_or("sliding_window", 0, kMaxPositions);
  if (attention.sliding_window > 0) {
    const std::int64_t listed = count_sliding_layers(config, model.num_layers);
    // Without layer_types, GptOssConfig makes the even-numbered layers (0, 2, ...) sliding.
    attention.num_sliding_layers = listed >= 0 ? listed : (model.num_layers + 1) / 2;
  }

  const std::int64_t h = model.hidden_size;
  MoeSpec moe = read_local_experts(config);
  moe.num_moe_layers = model.num_layers;
  moe.layer_is_moe.assign(static_cast<std::size_t>(model.num_layers), true);
  moe.router_bias = true;  // GptOssTopKRouter: top-k of the biased logits, softmax over the k
  moe.expert_linear_bias = true;
  // GptOssExperts clamps the gate to swiglu_limit and the linear half to +-swiglu_limit
  // (GptOssConfig default 7.0).
  moe.glu_clamp_limit = config.number_or("swiglu_limit", 7.0);
  // gate_up_proj (h x 2I) + its bias (2I), down_proj (I x h) + its bias (h).
  const std::int64_t i = moe.expert_intermediate_size;
  moe.routed_expert_params = params_sum({params_product({3, h, i}), 2 * i, h});
  moe.router_params = params_sum({params_product({moe.num_experts, h}), moe.num_experts});  // + bias
  model.moe = moe;
  model.num_dense_layers = 0;
  count_params(model);
}

}  // namespace meshplan
