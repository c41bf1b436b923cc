#include "cost/memory/vision_activations.hpp"

#include <fmt/format.h>

#include "cost/memory/activations.hpp"
#include "cost/memory/memory_trace.hpp"

namespace meshplan {

double vision_patches_per_image(const VisionSpec& vision, double pixels) {
  const double patch = double(vision.patch_size);
  return patch > 0 ? pixels / (patch * patch) : 0.0;
}

double vision_activation_bytes(const ModelSpec& model, const Strategy& s, double images, double pixels,
                               const MemoryOptions& options, Trace* trace) {
  if (!model.vision || images <= 0 || pixels <= 0) return 0;
  const VisionSpec& v = *model.vision;
  const double patches = vision_patches_per_image(v, pixels);
  LayerShape shape;
  shape.hidden = double(v.hidden_size);
  shape.heads = double(v.num_heads);
  shape.q_width = shape.k_width = shape.v_width = shape.o_width = shape.hidden;
  shape.ffn = double(v.intermediate_size);
  shape.gated = v.kind == "qwen2_5_vl";  // Qwen2.5-VL: SwiGLU; Qwen3-VL: GELU MLP
  const LayerSplit split{double(s.tp), s.sequence_parallel && s.tp > 1, 1.0};
  // Each image attends within itself: sequence = its patches, batch = the images.
  const double per_layer =
      layer_activation_bytes(shape, split, patches, patches, images, s.recompute, options);
  // Merger input: patches x hidden (2 bytes), merged to patches / merge^2 x LM hidden.
  const double merge = double(v.spatial_merge_size * v.spatial_merge_size);
  const double merger =
      2.0 * patches * images * (shape.hidden + (merge > 0 ? double(v.out_hidden_size) / merge : 0.0));
  const double bytes = double(v.depth) * per_layer + merger;
  trace_bytes(trace, "memory/vision_activations", bytes, "depth * per_layer(patches, images) + merger",
              "Korthikanti et al. 2022 §4 applied to the ViT; patches = pixels / patch_size^2", [&] {
                return fmt::format("images={:.4g} pixels={:.6g} patches_per_image={:.6g} depth={} hidden={}",
                                   images, pixels, patches, v.depth, v.hidden_size);
              });
  return bytes;
}

}  // namespace meshplan
