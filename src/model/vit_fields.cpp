#include "model/vit_fields.hpp"

namespace meshplan {

VisionSpec read_vit_shape(const ConfigFields& vision, std::string_view kind, const VitKeys& keys) {
  VisionSpec v;
  v.kind = std::string(kind);
  v.depth = vision.positive(keys.depth, kMaxLayers);
  v.hidden_size = vision.positive("hidden_size", kMaxWidth);
  v.num_heads = vision.positive(keys.num_heads, kMaxWidth);
  v.intermediate_size = vision.positive("intermediate_size", kMaxWidth);
  v.patch_size = vision.positive("patch_size", kMaxWidth);
  v.in_channels = vision.positive(keys.in_channels, kMaxWidth);
  v.temporal_patch_size = 1;
  if (!vision.failed() && v.hidden_size % v.num_heads != 0) {
    vision.fail(keys.num_heads, "must divide the vision hidden_size");
  }
  return v;
}

void read_patch_merge(const ConfigFields& vision, std::int64_t lm_hidden, VisionSpec& v) {
  v.temporal_patch_size = vision.positive("temporal_patch_size", kMaxWidth);
  v.spatial_merge_size = vision.positive("spatial_merge_size", kMaxWidth);
  v.out_hidden_size = vision.positive("out_hidden_size", kMaxWidth);
  if (!vision.failed() && v.out_hidden_size != lm_hidden) {
    vision.fail("out_hidden_size", "must equal the language model's hidden_size");
  }
}

}  // namespace meshplan
