#include "strategy/fp8_recipe.hpp"

namespace meshplan {

std::string_view fp8_recipe_name(Fp8Recipe recipe) {
  switch (recipe) {
    case Fp8Recipe::tensorwise: return "tensorwise";
    case Fp8Recipe::mxfp8: return "mxfp8";
    case Fp8Recipe::blockwise: return "blockwise";
    case Fp8Recipe::delayed: break;
  }
  return "delayed";
}

std::optional<Fp8Recipe> parse_fp8_recipe(std::string_view name) {
  if (name == "delayed") return Fp8Recipe::delayed;
  if (name == "tensorwise") return Fp8Recipe::tensorwise;
  if (name == "mxfp8") return Fp8Recipe::mxfp8;
  if (name == "blockwise") return Fp8Recipe::blockwise;
  return std::nullopt;
}

}  // namespace meshplan
