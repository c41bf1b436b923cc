#pragma once
// Megatron-LM's names for Transformer Engine's FP8 recipes (arguments.py --fp8-recipe choices;
// TransformerConfig.fp8_recipe).
#include <optional>
#include <string_view>

#include "strategy/strategy.hpp"

namespace meshplan {

std::string_view fp8_recipe_name(Fp8Recipe recipe);
/// "delayed", "tensorwise", "mxfp8" or "blockwise"; any other name gives nullopt.
std::optional<Fp8Recipe> parse_fp8_recipe(std::string_view name);

}  // namespace meshplan
