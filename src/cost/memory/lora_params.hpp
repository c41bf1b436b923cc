#pragma once
// LoRA adapter parameter counts (Hu et al. 2021: a rank-r adapter on a d_in x d_out linear adds
// r * (d_in + d_out) parameters). Target modules follow PEFT / verl names.
#include <cstdint>

#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// Adapter parameters of one decoder layer (dense MLP when `moe_layer` is false; shared and all
/// routed experts otherwise) for the strategy's LoRA rank and target modules. 0 when rank is 0.
double lora_params_per_layer(const ModelSpec& model, const Lora& lora, bool moe_layer);

/// Adapter parameters of the whole model (decoder layers only; PEFT's all-linear skips the LM head).
double lora_params_total(const ModelSpec& model, const Lora& lora);

/// The share of the model's parameters that train: the adapters' over the whole model with LoRA,
/// 1 without (what gradient reduction and the optimizer step move).
double trainable_share(const ModelSpec& model, const Lora& lora);

}  // namespace meshplan
