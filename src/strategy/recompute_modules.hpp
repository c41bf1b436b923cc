#pragma once
// Megatron-core selective recompute of named submodules (TransformerConfig.recompute_modules with
// recompute_granularity="selective"; megatron/core/transformer/transformer_config.py). Each
// module's saved activations are dropped after the forward and rebuilt in the backward.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

/// Bit flags; a Strategy holds their union in `recompute_modules`.
enum RecomputeModule : std::uint16_t {
  kRecomputeCoreAttn = 1 << 0,       ///< "core_attn": the attention kernel (scores, softmax)
  kRecomputeMoeAct = 1 << 1,         ///< "moe_act": the routed experts' activation function
  kRecomputeLayernorm = 1 << 2,      ///< "layernorm": input / pre-MLP norms that are modules of their own
  kRecomputeMlaUpProj = 1 << 3,      ///< "mla_up_proj": MLA's q/kv up projections and RoPE
  kRecomputeMlp = 1 << 4,            ///< "mlp": the dense MLP of non-MoE layers
  kRecomputeMoe = 1 << 5,            ///< "moe": the whole MoE layer (router, dispatch, experts)
  kRecomputeSharedExperts = 1 << 6,  ///< "shared_experts": the MoE layer's shared experts
};

/// Megatron-core's default list: ["core_attn"] (TransformerConfig.__post_init__).
inline constexpr std::uint16_t kDefaultRecomputeModules = kRecomputeCoreAttn;

/// The flag of one of Megatron-core's module names; nullopt for a name this model does not cost
/// (e.g. "gdn_norm_out", "mhc") or does not know.
std::optional<RecomputeModule> recompute_module_of(std::string_view name);

/// The names of `modules` in Megatron's order.
std::vector<std::string> recompute_module_list(std::uint16_t modules);

/// The names of `modules`, comma-separated in Megatron's order ("" for none).
std::string recompute_module_names(std::uint16_t modules);

/// Every name recompute_module_of() accepts, comma-separated (for help and error messages).
std::string known_recompute_module_names();

}  // namespace meshplan
