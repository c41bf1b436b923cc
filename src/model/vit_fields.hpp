#pragma once
// The shape keys that vision towers share, for the vision-language readers: CLIP-style configs
// (transformers SiglipVisionConfig, Llama4VisionConfig) and the patch-merging towers of Qwen-VL
// (Qwen2_5_VLVisionConfig, Qwen3VLVisionConfig) and GLM-V (Glm4vVisionConfig).
#include <cstdint>
#include <string_view>

#include "model/config_fields.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// The keys a vision config names its depth, heads and input channels by.
struct VitKeys {
  std::string_view depth;
  std::string_view num_heads;
  std::string_view in_channels;
};
/// SiglipVisionConfig, Llama4VisionConfig.
inline constexpr VitKeys kClipVitKeys{"num_hidden_layers", "num_attention_heads", "num_channels"};
/// Glm4vVisionConfig, Qwen3VLVisionConfig, Qwen3_5VisionConfig.
inline constexpr VitKeys kMergerVitKeys{"depth", "num_heads", "in_channels"};
/// Qwen2_5_VLVisionConfig (its config.json files say in_chans).
inline constexpr VitKeys kQwen2_5VitKeys{"depth", "num_heads", "in_chans"};

/// depth, hidden_size, heads (must divide hidden_size), intermediate_size, patch_size and input
/// channels of `vision` under `keys`, one frame per patch; `kind` names the tower. Sizes that only
/// the tower's reader knows (merge, out_hidden_size, params) stay 0. The caller adds the config
/// class's defaults first.
VisionSpec read_vit_shape(const ConfigFields& vision, std::string_view kind, const VitKeys& keys);

/// A tower that merges spatial_merge_size^2 patches of temporal_patch_size frames into one token
/// of out_hidden_size, the language model's width `lm_hidden` (Qwen-VL, GLM-V): reads those
/// three into `v`; another out_hidden_size is an error.
void read_patch_merge(const ConfigFields& vision, std::int64_t lm_hidden, VisionSpec& v);

}  // namespace meshplan
