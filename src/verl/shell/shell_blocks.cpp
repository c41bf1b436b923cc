#include "verl/shell/shell_blocks.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace meshplan {
namespace {

// Blocks read apart from the command stream: loops and case blocks are collected to their
// closer and then read; an `if` inside one is collected with it.
constexpr std::array<std::string_view, 5> kBlockOpeners = {"if", "for", "while", "until", "case"};
constexpr std::array<std::string_view, 3> kBlockClosers = {"fi", "done", "esac"};

}  // namespace

int block_depth_step(const std::string& first_word) {
  if (std::find(kBlockOpeners.begin(), kBlockOpeners.end(), first_word) != kBlockOpeners.end()) return 1;
  if (std::find(kBlockClosers.begin(), kBlockClosers.end(), first_word) != kBlockClosers.end()) return -1;
  return 0;
}

std::vector<CaseBranch> case_branches(const std::vector<ShellCommand>& body) {
  std::vector<CaseBranch> branches;
  int depth = 0;
  for (const ShellCommand& command : body) {
    const std::string& first = command.words.front().text;
    if (depth == 0 && command.case_pattern) {
      CaseBranch branch;
      branch.line = command.line;
      for (const ShellWord& word : command.words) branch.patterns.push_back(word.text);
      branches.push_back(std::move(branch));
      continue;
    }
    if (depth == 0 && (first == ";;" || first == ";&") && command.words.size() == 1) {
      if (!branches.empty()) branches.back().falls_through = first == ";&";
      continue;
    }
    depth += block_depth_step(first);
    if (!branches.empty()) branches.back().commands.push_back(command);
  }
  return branches;
}

std::vector<ShellCommand> branch_path(const std::vector<CaseBranch>& branches, std::size_t k) {
  std::vector<ShellCommand> path = branches[k].commands;
  while (branches[k].falls_through && k + 1 < branches.size()) {
    ++k;
    path.insert(path.end(), branches[k].commands.begin(), branches[k].commands.end());
  }
  return path;
}

bool path_exits(const std::vector<ShellCommand>& path) {
  int depth = 0;
  for (const ShellCommand& command : path) {
    const std::string& first = command.words.front().text;
    if (depth == 0 && !command.conditional && first == "exit") return true;
    depth += block_depth_step(first);
  }
  return false;
}

}  // namespace meshplan
