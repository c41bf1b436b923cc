#pragma once
// How Megatron-core cuts the decoder layers into pipeline stages: evenly (PP x VPP divides the
// layers), or with the first and/or last stage given its own count and the middle stages sharing
// the rest evenly (TransformerConfig num_layers_in_first/last_pipeline_stage; Megatron-LM
// --decoder-first/last-pipeline-num-layers). The first stage also holds the embedding and the
// last the LM head and loss, so giving them fewer layers balances the pipeline (seeds/000).
#include <cstdint>
#include <optional>

#include "strategy/strategy.hpp"

namespace meshplan {

struct StageLayerCounts {
  std::int64_t first = 0;
  std::int64_t middle = 0;  ///< each stage between the first and the last
  std::int64_t last = 0;
};

/// The layers of the first, middle and last stages; nullopt when Megatron-core would refuse the
/// split (PP x VPP does not divide the layers, or the layers left to the middle stages do not
/// divide evenly among them and their virtual chunks).
std::optional<StageLayerCounts> stage_layer_counts(std::int64_t num_layers, const Strategy& strategy);

/// The most layers any stage holds (the stage that sets the pipeline's pace and memory);
/// ceil(layers / PP) when the split is invalid.
std::int64_t max_stage_layers(std::int64_t num_layers, const Strategy& strategy);

/// The planner's split: even when PP x VPP divides the layers; otherwise (VPP = 1) the middle
/// stages take ceil(layers / PP) and the first and last stages give up the remainder, the last
/// (LM head and loss) the larger half. 61 layers on PP=16: 3 + 14 x 4 + 2. Interleaved, where
/// PP x VPP does not divide the layers but divides them with the embedding and the loss counted
/// as a layer each, that split (Megatron-Bridge's: 94 layers on PP 8 x VPP 3, 11 + 6 x 12 + 11).
/// Leaves the strategy without an uneven split when none exists.
void apply_balanced_split(Strategy& strategy, std::int64_t num_layers);

/// What a trained MTP module's `module_layers` layers run under: the strategy's parallelism and
/// recomputation on the one stage that holds them (the last), no pipeline split of their own, none
/// of them in BF16 by first_last_layers_bf16 nor offloaded (Megatron-core multi_token_prediction.py
/// takes get_fp8_context(config) without a layer number, and its offload_context is a
/// nullcontext), in BF16 under NVFP4 (it enters no fp4 context), no MTP of their own.
Strategy mtp_module_strategy(const Strategy& strategy, std::int64_t module_layers);

}  // namespace meshplan
