#include "cli/script_values.hpp"

namespace meshplan {

Result<std::map<std::string, std::string>> parse_env_arguments(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> env;
  for (const std::string& pair : pairs) {
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) return Error{"", 0, "--env", "'" + pair + "' is not VAR=value"};
    env[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return env;
}

}  // namespace meshplan
