#pragma once
// Derived numbers ({d:NAME} placeholders) that need the model (--model) or the GPU (--gpu):
// valid parallel sizes for its heads, the rollout engine's weight share of the GPU, the fp32
// logits of one micro-batch, and (with the job from --config) the memory model's peak of the
// failed phase before and after halving its micro-batch.
#include <optional>
#include <string>
#include <string_view>

#include "diagnose/fix_renderer.hpp"

namespace meshplan {

/// nullopt when `name` is not one of these or its inputs are unknown.
std::optional<std::string> derive_from_model(std::string_view name, const Numbers& numbers, std::string_view phase,
                                             const FixContext& context);

}  // namespace meshplan
