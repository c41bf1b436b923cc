#pragma once
// Whether an environment variable's value has the syntax its reader parses: the value types of
// data/verl/env_vars.json ("int", "c_int", "yes_no", "alloc_conf", "enum:A|B", ...).
#include <string>
#include <string_view>

namespace meshplan {

/// Why `value` is not a valid value of `type`, or "" when it is (and for unknown types).
std::string env_value_problem(std::string_view type, std::string_view value);

}  // namespace meshplan
