#pragma once
// Splits a bash launch script into simple commands of raw words, the way bash's parser does
// for the subset launch scripts use: comments, `\`-newline continuations, quotes, `$(...)`,
// `${...}`, `$((...))`, arrays `A=(...)`, `;` `&&` `||` `|` `&` separators, redirections,
// here-documents (dropped) and the patterns and branch ends of `case` blocks. Nothing is
// executed. Words keep their quotes for expansion.
#include <string>
#include <string_view>
#include <vector>

#include "verl/rules/finding.hpp"

namespace meshplan {

struct ShellWord {
  std::string text;  ///< raw, quotes included
  int line = 0;      ///< 1-based line where the word starts
};

struct ShellCommand {
  std::vector<ShellWord> words;
  int line = 0;
  bool conditional = false;  ///< runs only depending on the previous one (after `&&` / `||`)
  bool after_or = false;     ///< conditional after `||` (runs when the previous one failed)
  /// Inside `case WORD in ... esac`: the words are the alternatives of one pattern (`a|b*)`).
  /// A branch ends with a command of the one word ";;" (or ";&", which falls through, or ";;&").
  bool case_pattern = false;
};

struct ShellLexResult {
  std::vector<ShellCommand> commands;
  std::vector<Finding> findings;  ///< broken continuations (`shell.broken-continuation`), subshells
};

ShellLexResult lex_shell(std::string_view text, const std::string& file_name);

}  // namespace meshplan
