#pragma once
// The nesting of a script's blocks (if, loops, case) and the branches of a case block, as bash
// reads them: what the walker (shell_script.cpp) collects before it reads a block.
#include <cstddef>
#include <string>
#include <vector>

#include "verl/shell/shell_lexer.hpp"

namespace meshplan {

/// +1 for a command that opens a block (if, for, while, until, case), -1 for one that closes it
/// (fi, done, esac), 0 otherwise.
int block_depth_step(const std::string& first_word);

/// One branch of a case block: its patterns as written, its commands, and whether it falls into the
/// next branch (ended by `;&`).
struct CaseBranch {
  std::vector<std::string> patterns;
  int line = 0;
  std::vector<ShellCommand> commands;
  bool falls_through = false;
};

/// The branches of a case block's body (pattern commands and `;;` markers at its own depth).
std::vector<CaseBranch> case_branches(const std::vector<ShellCommand>& body);

/// Branch `k`'s commands with those of the branches it falls into (`;&`).
std::vector<ShellCommand> branch_path(const std::vector<CaseBranch>& branches, std::size_t k);

/// Whether a path runs `exit` outside any nested block (one inside an if or a loop may not run):
/// the commands after the block never see its variables.
bool path_exits(const std::vector<ShellCommand>& path);

}  // namespace meshplan
