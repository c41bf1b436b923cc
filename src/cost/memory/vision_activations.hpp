#pragma once
// Activations of a VL model's vision tower (Qwen2.5-VL / Qwen3-VL style ViT) for the images of
// one micro-batch: image tokens from the resolution and patch size, then per-layer activations
// with the same per-tensor accounting as the decoder (Korthikanti et al. 2022 §4).
#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// Vision patches (ViT tokens) of one image of `pixels` pixels: pixels / patch_size^2. The tokens
/// the language model sees are this / spatial_merge_size^2.
double vision_patches_per_image(const VisionSpec& vision, double pixels);

/// Bytes the tower stores for `images` images (0 for text-only models or no images).
double vision_activation_bytes(const ModelSpec& model, const Strategy& strategy, double images, double pixels,
                               const MemoryOptions& options, Trace* trace);

}  // namespace meshplan
