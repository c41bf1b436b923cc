#pragma once
// Typing of Hydra override values and YAML plain scalars, following Hydra's override grammar
// (hydra/grammar/OverrideParser.g4, Hydra 1.3): null, true/false (any case), ints, floats
// (1e-6, inf, nan), quoted strings, [lists], {dicts}; interpolations `${...}` stay strings.
#include <string_view>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"

namespace meshplan {

/// The typed value of the right-hand side of `key=value` as Hydra reads it.
Result<ConfigNode> parse_override_value(std::string_view text);

/// A plain (unquoted) scalar typed as null, bool, int, float or string.
ConfigNode type_plain_scalar(std::string_view text);

}  // namespace meshplan
