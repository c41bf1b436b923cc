#include "strategy/pipeline_split.hpp"

#include <algorithm>

#include "strategy/pipeline_layout.hpp"

namespace meshplan {

namespace {

// A custom layout: each PP rank's decoder layers summed over its chunks; the middle stages are
// represented by the most loaded of them (rank 1's schedule position: the memory model's middle
// stage). Megatron's other refusals (embedding, loss, MTP placement) are strategy/validate's.
std::optional<StageLayerCounts> layout_stage_counts(std::int64_t num_layers, const Strategy& s) {
  const auto layout = parse_pipeline_layout(s.pipeline_layout);
  const int pp = std::max(s.pp, 1);
  if (!layout || layout->stages.size() % static_cast<std::size_t>(pp) != 0) return std::nullopt;
  const std::vector<std::int64_t> ranks = layout_rank_layers(*layout, pp);
  std::int64_t total = 0;
  for (std::int64_t layers : ranks) total += layers;
  if (total != num_layers) return std::nullopt;
  if (pp == 1) return StageLayerCounts{num_layers, num_layers, num_layers};
  const std::int64_t middle = pp > 2 ? *std::max_element(ranks.begin() + 1, ranks.end() - 1)
                                     : std::max(ranks.front(), ranks.back());
  return StageLayerCounts{ranks.front(), middle, ranks.back()};
}

}  // namespace

// Mirrors Megatron-core TransformerConfig.__post_init__ and get_num_layers_to_build
// (megatron/core/transformer/transformer_block.py): the stages without their own count share the
// remaining layers evenly, split again into VPP equal chunks.
std::optional<StageLayerCounts> stage_layer_counts(std::int64_t num_layers, const Strategy& s) {
  const std::int64_t pp = std::max(s.pp, 1);
  const std::int64_t vpp = std::max(s.vpp, 1);
  if (!s.pipeline_layout.empty()) return layout_stage_counts(num_layers, s);
  if (pp == 1) return StageLayerCounts{num_layers, num_layers, num_layers};
  const bool first_set = s.first_stage_layers > 0;
  const bool last_set = s.last_stage_layers > 0;
  // TransformerConfig.__post_init__ refuses the first/last counts beside the embedding or the loss
  // counted as a layer.
  if ((first_set || last_set) && (s.pipeline_counts_embedding || s.pipeline_counts_loss)) return std::nullopt;
  if (!first_set && !last_set) {
    const std::int64_t embedding = s.pipeline_counts_embedding ? 1 : 0;
    const std::int64_t loss = s.pipeline_counts_loss ? 1 : 0;
    const std::int64_t counted = num_layers + embedding + loss;
    if (counted % (pp * vpp) != 0) return std::nullopt;
    const std::int64_t per_stage = counted / pp;
    return StageLayerCounts{per_stage - embedding, per_stage, per_stage - loss};
  }
  const std::int64_t special = (first_set ? 1 : 0) + (last_set ? 1 : 0);
  const std::int64_t others = pp - special;
  const std::int64_t rest = num_layers - s.first_stage_layers - s.last_stage_layers;
  if (rest < 0 || (others == 0 && rest != 0) || (others > 0 && rest % (others * vpp) != 0)) return std::nullopt;
  const std::int64_t middle = others > 0 ? rest / others : 0;
  return StageLayerCounts{first_set ? s.first_stage_layers : middle, middle, last_set ? s.last_stage_layers : middle};
}

std::int64_t max_stage_layers(std::int64_t num_layers, const Strategy& strategy) {
  const std::int64_t pp = std::max(strategy.pp, 1);
  const auto counts = stage_layer_counts(num_layers, strategy);
  if (!counts) return (num_layers + pp - 1) / pp;
  return pp == 1 ? num_layers : std::max({counts->first, counts->middle, counts->last});
}

void apply_balanced_split(Strategy& strategy, std::int64_t num_layers) {
  strategy.first_stage_layers = 0;
  strategy.last_stage_layers = 0;
  strategy.pipeline_layout.clear();
  strategy.pipeline_counts_embedding = false;
  strategy.pipeline_counts_loss = false;
  const std::int64_t pp = std::max(strategy.pp, 1);
  const std::int64_t chunks = pp * std::max(strategy.vpp, 1);
  // Interleaved, Megatron-core wants each first/last count divisible by VPP too; Megatron-Bridge's
  // recipes count the embedding and the loss as layers instead (94 layers + 2 on PP 8 x VPP 3).
  if (pp > 1 && strategy.vpp > 1 && num_layers % chunks != 0 && (num_layers + 2) % chunks == 0) {
    strategy.pipeline_counts_embedding = true;
    strategy.pipeline_counts_loss = true;
    return;
  }
  if (pp == 1 || strategy.vpp > 1 || num_layers % pp == 0) return;
  const std::int64_t middle = (num_layers + pp - 1) / pp;
  const std::int64_t short_by = pp * middle - num_layers;
  const std::int64_t last = middle - (short_by + 1) / 2;
  const std::int64_t first = middle - short_by / 2;
  if (first < 1 || last < 1) return;
  strategy.first_stage_layers = static_cast<int>(first);
  strategy.last_stage_layers = static_cast<int>(last);
}

Strategy mtp_module_strategy(const Strategy& strategy, std::int64_t module_layers) {
  Strategy module = strategy;
  module.pp = 1;
  module.vpp = 1;
  apply_balanced_split(module, module_layers);
  module.bf16_first_layers = 0;
  module.bf16_last_layers = 0;
  module.activation_offload_layers = 0;
  module.train_mtp = false;
  // NVFP4 stops at the module: "currently ignoring FP4 in MTP layers" (multi_token_prediction.py
  // MultiTokenPredictionLayer.forward enters only an fp8 context, at Megatron-LM 2edffadb5 and d98e8a64d).
  if (module.compute_dtype == Dtype::fp4) module.compute_dtype = Dtype::bf16;
  // Full recompute (multi_token_prediction.py _checkpointed_forward): "uniform" checkpoints a depth
  // whole, one chunk of its layers; "block" is "not supported for MTP yet. Skipping recompute."
  if (module.recompute == Recompute::full) {
    if (module.recompute_method == RecomputeMethod::block) {
      module.recompute = Recompute::none;
    } else {
      module.recompute_num_layers = static_cast<int>(module_layers);
    }
  }
  return module;
}

}  // namespace meshplan
