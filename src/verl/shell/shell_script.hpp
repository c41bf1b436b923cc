#pragma once
// Walks a lexed launch script statically, as bash would run it top to bottom: assignments,
// `export`, arrays, `unset`, `set`; every other simple command is an invocation with its
// arguments expanded and the environment it would see. Every branch of an if/elif/else block is
// walked (a launch in any branch is checked; after the block a variable is known only where all
// paths agree); the conditions are not evaluated. Loops, case, functions and `&&`/`||` branches
// are not evaluated: they are reported, never guessed.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verl/shell/shell_expansion.hpp"

namespace meshplan {

struct ShellArgument {
  std::string text;
  std::optional<std::string> unknown;  ///< why the value is not known statically
  SourceLocation location;
  std::vector<std::string> alternatives = {};  ///< when unknown: the known words it may stand for (may be empty)
  std::string partial = {};  ///< when unknown: the value known in part (ShellField::partial)
};

struct ShellInvocation {
  std::vector<ShellArgument> args;
  std::map<std::string, ShellArgument> environment;  ///< exported variables and VAR=value prefixes
  SourceLocation location;
  bool uses_script_arguments = false;  ///< "$@" appeared: the script's arguments would be appended
};

struct ShellScript {
  std::vector<ShellInvocation> invocations;
  std::vector<Finding> findings;  ///< shell.* findings
};

/// `environment` are variables set before the script runs (check --env), exported.
ShellScript evaluate_shell_script(std::string_view text, const std::string& file_name,
                                  const std::map<std::string, std::string>& environment);

}  // namespace meshplan
