#pragma once
// The architecture readers behind parse_model_config (config_reader.cpp dispatches on
// model_type). Each fills `model` from `config` and calls count_params(); problems are
// recorded in `config` (ConfigFields keeps the first one).
#include <string_view>

#include "model/config_fields.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// Shape, attention and sliding window of a llama-style decoder (no MLP): llama, mistral,
/// qwen2, qwen3 and the MoE variants mixtral, qwen2_moe, qwen3_moe. `model_type` picks the
/// family's implied biases and q/k norms.
void read_llama_style_layers(const ConfigFields& config, std::string_view model_type, ModelSpec& model);

/// llama, mistral, qwen2, qwen3 (and the language model of qwen2_5_vl / qwen3_vl).
void read_dense_decoder(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// MiMo: a Qwen2 decoder with num_nextn_predict_layers multi-token-prediction modules.
void read_mimo(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// mixtral, qwen2_moe, qwen3_moe (and the language model of qwen3_vl_moe).
void read_moe_decoder(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// deepseek_v2, deepseek_v3: MLA, shared experts, first dense layers, MTP.
void read_deepseek(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// gpt_oss: sinks, biases, alternating sliding window, expert and router biases.
void read_gpt_oss(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// qwen3_next, qwen3_5_text, qwen3_5_moe_text: Gated DeltaNet + gated attention hybrids.
void read_qwen3_next(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// nemotron_h: one Mamba-2, attention, relu2 MLP or relu2 MoE sublayer per layer (hybrid_override_pattern).
void read_nemotron_h(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// minimax, minimax_m1: lightning attention hybrid with a Mixtral-style MoE.
void read_minimax(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// glm4_moe: GQA with q/k/v bias, DeepSeek-V3-style MoE, MTP layers.
void read_glm4_moe(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// gemma2, gemma3_text: sandwich norms, GeGLU, interleaved sliding-window layers.
void read_gemma(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// llama4_text, llama4: chunked-attention GQA, MoE layers with a shared expert interleaved with dense
/// ones; llama4 adds its vision tower, pixel-shuffle adapter and projector.
void read_llama4(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// glm4v (GLM-4.1V), glm4v_moe (GLM-4.5V): the GLM vision tower + the language model of text_config.
void read_glm4v(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// gemma3: SigLIP vision tower + multimodal projector + the Gemma 3 language model of text_config.
void read_gemma3_vision(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// qwen2_5_vl, qwen3_vl, qwen3_vl_moe: vision tower + merger(s) + language model.
void read_vision_language(const ConfigFields& config, std::string_view model_type, ModelSpec& model);
/// gpt2, gpt_neox: LayerNorm with bias, 4h GeLU MLP with bias, biased attention.
void read_classic_gpt(const ConfigFields& config, std::string_view model_type, ModelSpec& model);

}  // namespace meshplan
