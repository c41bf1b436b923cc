#pragma once
// Static expansion of one shell word, as bash expands it, without running anything:
// quote removal, $VAR / ${VAR}, ${VAR:-d} ${VAR-d} ${VAR:=d} ${VAR:+a}, positional $1 ${1:-x},
// $@ "$@", arrays "${A[@]}" ${A[i]} ${#A[@]}, arithmetic $(( ... )) evaluated on integers, and
// word splitting of unquoted expansions. `$(...)` and backticks are never run: their value
// is unknown. A variable the script never sets is unknown too (it would come from the
// environment), unless --env gave it.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verl/rules/finding.hpp"

namespace meshplan {

struct ShellVariable {
  std::vector<std::string> values;     ///< one value, or an array's elements
  std::vector<int> lines;              ///< line of each array element (may be empty)
  std::vector<std::optional<std::string>> element_unknown;  ///< per array element, why it is unknown
  bool exported = false;
  std::optional<std::string> unknown;  ///< why the value is not known statically
  SourceLocation location;             ///< where it was last assigned
  /// When unknown because the branches of an if set it differently, each to known values: every
  /// element (or value) some branch gives it.
  std::vector<std::string> alternatives = {};
};

using ShellVariables = std::map<std::string, ShellVariable, std::less<>>;

/// One field of an expanded word. `text` renders unknown parts as written (`$HOME`, `$(...)`).
struct ShellField {
  std::string text;
  std::optional<std::string> unknown;  ///< set when any part of the field is not known
  int line = 0;                        ///< line where it was written, when not the word's own
  std::vector<std::string> alternatives = {};  ///< the known words an unknown field may be (ShellVariable)
  /// When unknown: a variable's value known in part, its unknown parts as written
  /// ("$(pwd)/configs" for "$CONFIG_PATH"); "" otherwise.
  std::string partial = {};
  /// The field is one of several an unquoted variable's blanks split it into: "$NAME (line N: 'value')".
  std::string split_from = {};
};

struct ShellExpansion {
  std::vector<ShellField> fields;
  bool used_positional_all = false;  ///< "$@" / $* appeared (the script's own arguments)
  /// Arithmetic bash would refuse or wrap around (overflow, division by zero, too deep nesting),
  /// one line each; the fields hold such values as unknown.
  std::vector<std::string> problems;
};

/// Expands `word`; ${VAR:=d} assigns into `variables`. `split` false for assignment values.
ShellExpansion expand_shell_word(std::string_view word, ShellVariables& variables, bool split = true);

/// Evaluates a bash arithmetic expression on 64-bit integers (+ - * / % ** parentheses, unary
/// minus, variable names), every operation checked; nullopt with `why` set when a name is
/// unknown, the syntax is not, or (`*refused` set) bash would refuse or wrap the value.
std::optional<long long> evaluate_arithmetic(std::string_view expression, const ShellVariables& variables,
                                             std::string& why, bool* refused = nullptr);

}  // namespace meshplan
