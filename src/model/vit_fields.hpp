#pragma once
// The shape keys that CLIP-style vision configs share (transformers SiglipVisionConfig,
// Llama4VisionConfig), for the vision-language readers.
#include <string_view>

#include "model/config_fields.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// num_hidden_layers, hidden_size, num_attention_heads (must divide hidden_size),
/// intermediate_size, patch_size and num_channels of `vision`, one frame per patch; `kind` names
/// the tower. Sizes that only the tower's reader knows (out_hidden_size, merge, params) stay 0.
VisionSpec read_vit_shape(const ConfigFields& vision, std::string_view kind);

}  // namespace meshplan
