#include "cli/rl_flag_group.hpp"

#include <CLI/CLI.hpp>

namespace meshplan {

void group_rl_flags_from(CLI::App& command, std::size_t first) {
  const std::vector<CLI::Option*> options = command.get_options();
  for (std::size_t i = first; i < options.size(); ++i) options[i]->group(kRlFlagGroup);
}

std::size_t registered_options(const CLI::App& command) { return command.get_options().size(); }

std::string first_rl_flag_given(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group() == kRlFlagGroup && option->count() > 0) return option->get_name();
  }
  return "";
}

}  // namespace meshplan
