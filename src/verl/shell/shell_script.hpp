#pragma once
// Walks a lexed launch script statically, as bash would run it top to bottom: assignments,
// `export`, arrays, `unset`, `set`; every other simple command is an invocation with its
// arguments expanded and the environment it would see. An if/elif/else condition whose operands
// are all known (shell_condition.hpp) decides as bash would; every other branch is walked (a
// launch in any branch is checked; after the block a variable is known only where all paths
// agree). Loops, case on an unknown word, functions and `&&`/`||` branches are reported, never
// guessed.
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
  /// In an invocation's environment: the script itself expands the variable somewhere (other than
  /// in its own assignment, `X=${X:-0}`): a knob of the script's, whatever the program does with it.
  bool read_by_script = false;
  std::string split_from = {};  ///< one of the pieces an unquoted variable's blanks made (ShellField::split_from)
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
