// DeepSeek-V2 / V3 / V3.2 and Kimi K2 (DeepSeek-V3 layers under model_type kimi_k2): multi-head
// latent attention (V3.2: plus its lightning indexer), shared + routed experts, first dense layers,
// noaux_tc router bias and multi-token-prediction layers.
// Sources: DeepSeek-V2 paper (arXiv 2405.04434) §2.1-2.2; DeepSeek-V3 report (arXiv 2412.19437)
// §2.1-2.2; Hugging Face modeling_deepseek.py (DeepseekV2Attention, DeepseekV2MoE, MoEGate).
#include "model/architectures.hpp"
#include "model/decoder_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

void read_mla(const ConfigFields& config, ModelSpec& model) {
  AttentionSpec& a = model.attention;
  a.kind = AttentionKind::mla;
  a.num_heads = config.positive("num_attention_heads", kMaxWidth);
  a.num_kv_heads = a.num_heads;  // every head gets its own k and v from the shared latent
  a.q_lora_rank = config.positive_or("q_lora_rank", 0, kMaxWidth);  // null: q not compressed
  a.kv_lora_rank = config.positive("kv_lora_rank", kMaxWidth);
  a.qk_nope_head_dim = config.positive("qk_nope_head_dim", kMaxWidth);
  a.qk_rope_head_dim = config.positive("qk_rope_head_dim", kMaxWidth);
  a.v_head_dim = config.positive("v_head_dim", kMaxWidth);
  a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  if (config.has("index_n_heads")) {  // deepseek_v32: DeepSeek Sparse Attention's indexer
    a.index_heads = config.positive("index_n_heads", kMaxWidth);
    a.index_head_dim = config.positive("index_head_dim", kMaxWidth);
    if (!config.failed() && a.q_lora_rank == 0) config.fail("q_lora_rank", "the indexer (index_n_heads) needs a q_lora_rank");
  }
  if (config.flag_or("attention_bias", false)) {
    config.fail("attention_bias", "true is not supported for MLA (no published DeepSeek model has it)");
  }
}

/// DeepseekV2DecoderLayer: layer i is MoE when n_routed_experts is set, i >= first_k_dense_replace
/// and i % moe_layer_freq == 0.
bool is_moe_layer(std::int64_t layer, std::int64_t first_dense, std::int64_t frequency) {
  return layer >= first_dense && layer % frequency == 0;
}

/// The decoder layer inside one MTP module (DeepSeek-V3 report §2.2, Fig. 3).
std::int64_t mtp_layer_params(const ModelSpec& model, bool moe_layer) {
  const std::int64_t layer = params_sum({model.attention_params_per_layer, model.norm_params_per_layer});
  return params_sum({layer, moe_layer && model.moe ? moe_layer_params(*model.moe) : model.dense_mlp_params_per_layer});
}

}  // namespace

void read_deepseek(const ConfigFields& config, std::string_view /*model_type*/, ModelSpec& model) {
  read_decoder_shape(config, false, model);
  read_mla(config, model);
  read_gated_mlp(config, model);
  const std::int64_t h = model.hidden_size;
  const std::int64_t first_dense = config.count_or("first_k_dense_replace", 0, kMaxLayers);
  const std::int64_t frequency = config.positive_or("moe_layer_freq", 1, kMaxLayers);
  model.num_mtp_layers = config.count_or("num_nextn_predict_layers", 0, kMaxLayers);
  const bool has_experts = config.has("n_routed_experts");
  if (has_experts) {
    MoeSpec moe = read_deepseek_style_experts(config, h, 0);
    for (std::int64_t layer = 0; layer < model.num_layers; ++layer) {
      moe.layer_is_moe.push_back(is_moe_layer(layer, first_dense, frequency));
      if (moe.layer_is_moe.back()) ++moe.num_moe_layers;
    }
    // MoEGate: scoring_func softmax (V2) or sigmoid (V3); topk_method greedy, group_limited_greedy
    // or noaux_tc (groups, and a score correction bias for noaux_tc); norm_topk_prob and
    // routed_scaling_factor (DeepseekV2Config / DeepseekV3Config defaults: false, 1.0).
    moe.score = config.text_or_empty("scoring_func") == "sigmoid" ? RouterScore::sigmoid : RouterScore::softmax;
    moe.normalize_top_k = config.flag_or("norm_topk_prob", false);
    moe.routed_scaling_factor = config.number_or("routed_scaling_factor", 1.0);
    const std::string topk_method = config.text_or_empty("topk_method");
    moe.expert_bias = topk_method == "noaux_tc";
    const std::int64_t groups = config.positive_or("n_group", 1, kMaxWidth);
    if (topk_method != "greedy" && !topk_method.empty() && groups > 1) {
      moe.num_groups = groups;
      moe.group_top_k = config.positive_or("topk_group", 1, kMaxWidth);
    }
    // MoEGate weight (experts x hidden); noaux_tc adds e_score_correction_bias (one per expert).
    moe.router_params = params_product({moe.num_experts, h}) + (moe.expert_bias ? moe.num_experts : 0);
    model.num_dense_layers = model.num_layers - moe.num_moe_layers;
    model.moe = moe;
  }
  count_params(model);
  for (std::int64_t k = 0; k < model.num_mtp_layers; ++k) {
    const bool moe_layer = has_experts && is_moe_layer(model.num_layers + k, first_dense, frequency);
    model.params.mtp =
        params_sum({model.params.mtp, mtp_module_params(model.hidden_size, mtp_layer_params(model, moe_layer))});
  }
}

}  // namespace meshplan
