// Mixture-of-experts llama-style decoders: mixtral, qwen2_moe, qwen3_moe.
#include <algorithm>

#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

void read_moe_decoder(const ConfigFields& config, std::string_view model_type, ModelSpec& model) {
  read_llama_style_layers(config, model_type, model);
  const std::int64_t h = model.hidden_size;
  MoeSpec moe;
  moe.experts_per_token = config.positive("num_experts_per_tok", kMaxWidth);
  if (model_type == "mixtral" || model_type == "minimax_m2") {
    // Mixtral, MiniMax-M2: every layer is sparse and its experts use intermediate_size (MiniMax-M2's
    // shared_intermediate_size is 0: no shared expert).
    moe.num_experts = config.positive("num_local_experts", kMaxWidth);
    moe.expert_intermediate_size = config.positive("intermediate_size", kMaxWidth);
    moe.num_moe_layers = model.num_layers;
    moe.layer_is_moe.assign(static_cast<std::size_t>(model.num_layers), true);
    model.num_dense_layers = 0;
  } else {
    // Some re-saved Qwen3-VL-MoE text configs name the expert count num_local_experts.
    const bool local_name = !config.has("num_experts") && config.has("num_local_experts");
    moe.num_experts = config.positive(local_name ? "num_local_experts" : "num_experts", kMaxWidth);
    moe.expert_intermediate_size = config.positive("moe_intermediate_size", kMaxWidth);
    moe.layer_is_moe = qwen_moe_layers(config, model.num_layers);
    moe.num_moe_layers = std::count(moe.layer_is_moe.begin(), moe.layer_is_moe.end(), true);
    // Qwen2MoeConfig / Qwen3MoeConfig default norm_topk_prob to false: softmax over every expert,
    // then the top-k weights as they are.
    moe.normalize_top_k = config.flag_or("norm_topk_prob", false);
    model.num_dense_layers = model.num_layers - moe.num_moe_layers;
    if (model.num_dense_layers > 0) read_gated_mlp(config, model);
  }
  check_experts_per_token(config, "num_experts_per_tok", moe);
  if (model_type == "qwen2_moe") {
    // One shared expert of shared_expert_intermediate_size plus its sigmoid gate (hidden -> 1).
    moe.num_shared_experts = 1;
    moe.shared_expert_gate = true;
    moe.shared_intermediate_size = config.positive("shared_expert_intermediate_size", kMaxWidth);
    moe.shared_expert_params = params_sum({params_product({3, h, moe.shared_intermediate_size}), h});
  }
  // MiniMax-M2 routes by sigmoid scores with a per-expert e_score_correction_bias (use_routing_bias).
  moe.expert_bias = model_type == "minimax_m2" && config.flag_or("use_routing_bias", true);
  moe.routed_expert_params = params_product({3, h, moe.expert_intermediate_size});
  // gate: hidden -> experts, no bias; plus the routing bias
  moe.router_params = params_product({moe.num_experts, h}) + (moe.expert_bias ? moe.num_experts : 0);
  model.moe = moe;
  count_params(model);
}

}  // namespace meshplan
