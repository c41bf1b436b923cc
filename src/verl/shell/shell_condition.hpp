#pragma once
// The exit status of an `if` / `elif` condition, as bash would find it, when every operand is
// known statically: `true`, `false`, `:`, and the tests `[ ... ]`, `test ...` and `[[ ... ]]` with
// string comparison (= == !=; in `[[ ]]` an unquoted right side is a glob pattern), integer
// comparison (-eq -ne -lt -le -gt -ge), -z, -n, a lone word, `!`, and `-a` / `-o` inside `[ ]`.
// Anything else (file tests, regexes, commands, an unknown operand) is not decided.
#include <optional>
#include <string>
#include <vector>

#include "verl/shell/shell_expansion.hpp"
#include "verl/shell/shell_lexer.hpp"

namespace meshplan {

struct ConditionValue {
  std::optional<bool> value;  ///< true when the condition succeeds; nullopt when not decided
  std::string text;           ///< the condition with its operands expanded, for messages
};

/// `words` are the condition's words (after `if` / `elif`); ${VAR:=d} assigns into `variables`.
ConditionValue evaluate_condition(const std::vector<ShellWord>& words, ShellVariables& variables);

}  // namespace meshplan
