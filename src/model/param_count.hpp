#pragma once
// Exact unique parameter counts of a ModelSpec whose shape is filled in
// (../shared/models/CONVENTIONS.md). Architecture readers fill the shape and the MoE / vision
// sizes that only they know, then call count_params() for everything common.
#include <cstdint>
#include <initializer_list>

#include "model/model_spec.hpp"

namespace meshplan {

/// Counts at or above this are absurd (100 trillion parameters): the config has a typo.
inline constexpr std::int64_t kMaxParams = 100'000'000'000'000;

/// Product of the factors, saturating at kMaxParams so absurd sizes cannot overflow.
std::int64_t params_product(std::initializer_list<std::int64_t> factors);
/// Sum of the terms, saturating at kMaxParams.
std::int64_t params_sum(std::initializer_list<std::int64_t> terms);

/// Weights of one norm over `width` features: RMSNorm has a weight, LayerNorm weight + bias.
std::int64_t norm_params(NormKind norm, std::int64_t width);

/// One MLP of width `mlp.intermediate_size` on `hidden` features: gated = gate + up + down,
/// else up + down; with biases when mlp.bias.
std::int64_t mlp_params(std::int64_t hidden, const MlpSpec& mlp);

/// One decoder layer's attention block: projections, biases, q/k norms, sinks, MLA norms.
std::int64_t attention_params(std::int64_t hidden, const AttentionSpec& attention);

/// One linear-attention layer's token mixer (Gated DeltaNet or lightning attention).
std::int64_t linear_attention_params(std::int64_t hidden, const LinearAttentionSpec& linear);

/// One MoE layer's experts, shared experts, router and latent projections (all experts, not only
/// the active ones).
std::int64_t moe_layer_params(const MoeSpec& moe);

/// One multi-token-prediction module around a decoder layer of `decoder_layer_params`: the norms
/// of the hidden state and of the next token's embedding, the projection 2h -> h and the output
/// norm (DeepSeek-V3 report §2.2 Fig. 3: enorm, hnorm, eh_proj; Qwen3-Next / Qwen3.5 mtp.*:
/// pre_fc_norm_embedding, pre_fc_norm_hidden, fc, norm). Embedding and LM head are shared.
std::int64_t mtp_module_params(std::int64_t hidden, std::int64_t decoder_layer_params);

/// Fills the per-layer counts, `params`, `total_params` and `active_params` from the shape.
/// MoE sizes (routed_expert_params, router_params, shared_expert_params), the vision tower's
/// `params` and `params.mtp` must already be set.
void count_params(ModelSpec& model);

/// The unique parameters a breakdown sums to (MTP excluded): ModelSpec::total_params.
std::int64_t params_total(const ParamBreakdown& params);

}  // namespace meshplan
