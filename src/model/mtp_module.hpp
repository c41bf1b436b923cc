#pragma once
// One multi-token-prediction depth's decoder layers, each of its own kind, as a model of their
// own: what the cost model runs to cost them the way it costs a pipeline stage's layers.
#include <cstdint>

#include "model/model_spec.hpp"

namespace meshplan {

/// Layers of `kind` (hybrid_layer_pattern's symbols: 'M' Mamba, '*' attention, '-' MLP, 'E' MoE) in
/// one MTP module: its pattern's (Nemotron-H mtp_hybrid_override_pattern, "*E"), else one decoder
/// layer of the model's softmax attention (Megatron-core multi_token_prediction.py builds it from
/// the decoder's layer spec; Qwen3-Next's is a full-attention layer, vLLM qwen3_next_mtp.py, never
/// a linear mixer) and its MoE, or its dense MLP in a dense model.
std::int64_t mtp_module_layers_of(const ModelSpec& model, char kind);

/// The MTP module's layers as a decoder of their own: those layers with the model's per-layer
/// shapes and parameters (the breakdown scaled from the model's totals, total_params and
/// active_params summed from it), the model's embedding and output layer (which the module
/// shares), no MTP and no vision tower of its own, full attention on every softmax layer.
ModelSpec mtp_module_model(const ModelSpec& model);

}  // namespace meshplan
