#pragma once
// Where the paths through an if or a case block meet again: a variable keeps its value only where
// every path that goes on agrees (bash runs one of them; which one is not known statically).
#include <string>
#include <vector>

#include "verl/shell/shell_expansion.hpp"

namespace meshplan {

/// The variables after a block whose paths end with `ends` (at least one): a variable the paths
/// set differently becomes unknown, said by "$NAME is set differently in the branches of the
/// `kind` at line `line`", keeping every value the paths give it as alternatives, or, for an
/// array every path starts alike, its common first elements.
ShellVariables merge_path_ends(const std::vector<ShellVariables>& ends, const std::string& kind, int line);

}  // namespace meshplan
