#include "model/vit_fields.hpp"

namespace meshplan {

VisionSpec read_vit_shape(const ConfigFields& vision, std::string_view kind) {
  VisionSpec v;
  v.kind = std::string(kind);
  v.depth = vision.positive("num_hidden_layers", kMaxLayers);
  v.hidden_size = vision.positive("hidden_size", kMaxWidth);
  v.num_heads = vision.positive("num_attention_heads", kMaxWidth);
  v.intermediate_size = vision.positive("intermediate_size", kMaxWidth);
  v.patch_size = vision.positive("patch_size", kMaxWidth);
  v.in_channels = vision.positive("num_channels", kMaxWidth);
  v.temporal_patch_size = 1;
  if (!vision.failed() && v.hidden_size % v.num_heads != 0) {
    vision.fail("num_attention_heads", "must divide the vision hidden_size");
  }
  return v;
}

}  // namespace meshplan
