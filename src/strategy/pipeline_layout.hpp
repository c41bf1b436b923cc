#pragma once
// Megatron-core's custom pipeline layout (TransformerConfig.pipeline_model_parallel_layout;
// Megatron-LM --pipeline-model-parallel-layout; verl override_transformer_config): which layers each
// pipeline stage builds, e.g. "Et*4|(t*4|)*14tmL" (E embedding, t decoder layer, m MTP layer,
// L loss; '|' ends a stage). Stage i runs on PP rank i % PP as its virtual chunk i / PP, so the
// layout also fixes VPP = stages / PP. Mirrors megatron/core/transformer/
// pipeline_parallel_layer_layout.py (PipelineParallelLayerLayout.parse_str_to_list, __init__,
// validate_layer_layout) at d98e8a64dd.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace meshplan {

struct LayoutStage {
  int decoder = 0;  ///< 't'
  int mtp = 0;      ///< 'm'
  int embedding = 0;
  int loss = 0;
};

struct PipelineLayout {
  std::vector<LayoutStage> stages;  ///< in the layout's order (virtual chunk-major)
  /// The layer kinds in layer-id order ("EtttL"): what validate_layer_layout walks.
  std::string flat;
};

/// parse_str_to_list: commas dropped, "(...)*n" then "x*n" unrolled, '|' splits the stages; an
/// unknown character is an error naming it (Megatron's "Invalid layer character").
Result<PipelineLayout> parse_pipeline_layout(std::string_view text);

/// The list form (Megatron-Bridge's recipes: [["embedding", "decoder"], ..., ["mtp", "loss"]]) as
/// the string form: layer-type names stripped and lower-cased as Megatron-core reads them; a name it
/// does not know becomes '?', which parse_pipeline_layout refuses.
std::string pipeline_layout_from_names(const std::vector<std::vector<std::string>>& stages);

/// What Megatron-core refuses for this layout with `pp` stages per virtual chunk, `vpp` given
/// (0: not set, the layout decides), `num_layers` decoder layers and `mtp_layers` MTP layers
/// built (0 when MTP is off): its message, or nullopt when the layout is valid.
std::optional<std::string> pipeline_layout_error(const PipelineLayout& layout, int pp, int vpp, std::int64_t num_layers,
                                                 int mtp_layers);

/// VPP the layout implies: stages / PP (1 when the division is not exact, which
/// pipeline_layout_error reports).
int layout_vpp(const PipelineLayout& layout, int pp);

/// Decoder layers each PP rank builds, summed over its virtual chunks.
std::vector<std::int64_t> layout_rank_layers(const PipelineLayout& layout, int pp);

}  // namespace meshplan
