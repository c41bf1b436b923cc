#pragma once
// Readers of the fields every decoder-only config shares, used by the architecture readers.
#include <string_view>

#include "model/config_fields.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// hidden_size, num_hidden_layers, vocab_size, max_position_embeddings, tie_word_embeddings
/// (absent: `tie_default`, the default of the architecture's Hugging Face config class).
/// RMSNorm and rotary positions; every layer dense until a MoE reader says otherwise. A reader
/// whose config lists its layers another way passes their count as `num_layers` (0: read
/// num_hidden_layers).
void read_decoder_shape(const ConfigFields& config, bool tie_default, ModelSpec& model, std::int64_t num_layers = 0);

/// rope_theta and rope_scaling (or transformers 5's rope_parameters) into model.rope, and
/// rms_norm_eps (absent: 1e-6, LlamaConfig's and Qwen2Config's default) into model.norm_eps.
void read_rope_and_norm(const ConfigFields& config, ModelSpec& model);

/// num_attention_heads, num_key_value_heads (absent: = heads), head_dim (absent or null:
/// hidden / heads, which must divide). kv heads must divide the heads.
void read_standard_attention(const ConfigFields& config, ModelSpec& model);

/// Layers in `layer_types` whose type is `type` (Hugging Face's per-layer list; it must have one
/// entry per layer), or -1 when the config has no such list.
std::int64_t count_layer_type(const ConfigFields& config, std::int64_t num_layers, std::string_view type);
/// count_layer_type(config, num_layers, "sliding_attention").
std::int64_t count_sliding_layers(const ConfigFields& config, std::int64_t num_layers);

/// Qwen2-MoE / Qwen3-MoE / Qwen3-Next layer placement (modeling_qwen2_moe.py, modeling_qwen3_moe.py,
/// modeling_qwen3_next.py): layer i is sparse when it is not in mlp_only_layers and
/// (i + 1) % decoder_sparse_step == 0 (default 1). One entry per layer: true where sparse.
std::vector<bool> qwen_moe_layers(const ConfigFields& config, std::int64_t num_layers);

/// Records an error on `key` when the top-k exceeds the routed expert count.
void check_experts_per_token(const ConfigFields& config, std::string_view key, const MoeSpec& moe);

/// Mixtral-style experts (Mixtral, gpt-oss, MiniMax, Llama 4): num_local_experts of
/// intermediate_size, top-num_experts_per_tok (checked); sizes and layers are the caller's.
MoeSpec read_local_experts(const ConfigFields& config);

/// DeepSeek-style experts (DeepSeek-V2/V3, GLM-4.5): n_routed_experts, num_experts_per_tok,
/// moe_intermediate_size and n_shared_experts (absent: `shared_default`) SwiGLU experts of that
/// width on `hidden` features, with the sizes of one routed expert and of the shared ones filled
/// in; layer counts and the router are the caller's.
MoeSpec read_deepseek_style_experts(const ConfigFields& config, std::int64_t hidden, std::int64_t shared_default);

/// Bytes per element of a recurrent state whose dtype the config names under `key` (Qwen3.5's
/// mamba_ssm_dtype, Nemotron-H's mamba_ssm_cache_dtype, which vLLM takes when its
/// --mamba-ssm-cache-dtype is auto): 4 for float32, 2 for bfloat16 / float16, 0 (the engine's
/// dtype) when absent; another name is an error on `key`.
int state_dtype_bytes(const ConfigFields& config, std::string_view key);

/// The dense MLP of llama-style layers: SwiGLU with `intermediate_size`, bias from `mlp_bias`.
void read_gated_mlp(const ConfigFields& config, ModelSpec& model);

}  // namespace meshplan
