#pragma once
// What a user tells about a launch script's environment: `--env VAR=value` (a variable the
// script reads, set before it runs), shared by check and plan --from.
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace meshplan {

/// VAR=value pairs as a map; the first pair that is not VAR=value is an error naming `--env`.
Result<std::map<std::string, std::string>> parse_env_arguments(const std::vector<std::string>& pairs);

}  // namespace meshplan
