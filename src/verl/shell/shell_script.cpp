#include "verl/shell/shell_script.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "verl/shell/shell_blocks.hpp"
#include "verl/shell/shell_condition.hpp"
#include "verl/shell/shell_lexer.hpp"
#include "verl/shell/shell_paths.hpp"

namespace meshplan {
namespace {

constexpr std::array<std::string_view, 6> kDeclarations = {"export", "declare", "typeset", "local", "readonly",
                                                            "unset"};

// Length of the NAME in "NAME=..." / "NAME+=..." (0 when the word is not an assignment).
std::size_t assignment_name_length(std::string_view word) {
  if (word.empty() || !(std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '_')) return 0;
  std::size_t i = 0;
  while (i < word.size() && (std::isalnum(static_cast<unsigned char>(word[i])) || word[i] == '_')) ++i;
  if (i < word.size() && word[i] == '=') return i;
  if (i + 1 < word.size() && word[i] == '+' && word[i + 1] == '=') return i;
  return 0;
}

class Walker {
 public:
  Walker(const std::string& file, const std::map<std::string, std::string>& environment) : file_(file) {
    for (const auto& [name, value] : environment) {
      ShellVariable& variable = variables_[name];
      variable.values = {value};
      variable.exported = true;
      variable.location = SourceLocation{"--env", 0};
    }
  }

  ShellScript run(std::string_view text) {
    ShellLexResult lexed = lex_shell(text, file_);
    result_.findings = std::move(lexed.findings);
    for (const ShellCommand& command : lexed.commands) {
      note_reads(command);
      evaluate(command);
    }
    for (ShellInvocation& call : result_.invocations) {
      for (auto& [name, value] : call.environment) value.read_by_script = reads_.count(name) > 0;
    }
    return std::move(result_);
  }

 private:
  void note(int line, Severity severity, const std::string& message, const char* rule = "shell.unsupported") {
    Finding finding;
    finding.severity = severity;
    finding.rule = rule;
    finding.message = message;
    finding.location = SourceLocation{file_, line};
    result_.findings.push_back(std::move(finding));
  }

  // expand_shell_word, with a warning for each arithmetic bash would refuse or wrap around: the
  // value is then unknown, and whatever reads it is not judged.
  ShellExpansion expand(std::string_view word, bool split, int line) {
    ShellExpansion expanded = expand_shell_word(word, variables_, split);
    for (const std::string& problem : expanded.problems) {
      Finding finding;
      finding.severity = Severity::warning;
      finding.rule = "shell.arithmetic";
      finding.message = problem + "; the value is left unknown";
      finding.location = SourceLocation{file_, line};
      result_.findings.push_back(std::move(finding));
    }
    return expanded;
  }

  // An if/elif/else block: each branch that may run starts from the variables before the block;
  // afterwards a variable keeps its value only where every path agrees. A condition known
  // statically decides as bash would: a false one's branch never runs, and after a true one's no
  // later branch does.
  struct IfBlock {
    int line = 0;
    ShellVariables before;
    std::vector<ShellVariables> ends;  ///< the variables at the end of each branch that may run
    bool has_else = false;
    std::string kind = "if";  ///< "if", or "case" for a case block whose word is not known
    bool awaiting_then = false;      ///< between `if`/`elif` and `then`: the condition is being read
    bool condition_undecidable = false;  ///< a command that is not a test joined it
    std::optional<bool> condition;   ///< that condition's status, when known statically
    ConditionValue condition_read;   ///< it, as read (for messages)
    int condition_line = 0;
    bool taken = false;   ///< a branch whose condition is true has been read: no later branch runs
    bool dead = false;    ///< the current branch never runs: its commands are skipped
    int dead_depth = 0;   ///< blocks opened inside that branch, while skipping it
  };

  void evaluate(const ShellCommand& command) {
    const std::string& first = command.words.front().text;
    // `function name { ...; }` is read like `name() { ...; }`: its body's commands in order (it
    // ends at `}`, not at a block closer).
    const bool opener = block_depth_step(first) > 0;
    const bool closer = block_depth_step(first) < 0;
    if (skipped_depth_ > 0) {
      skipped_depth_ += opener ? 1 : closer ? -1 : 0;
      if (dead_loop_) {
        dead_loop_ = skipped_depth_ > 0;
        return;
      }
      note_assigned(command);
      if (skipped_depth_ == 0 && reading_loop_) {
        replay_loop();
      } else if (skipped_depth_ == 0 && reading_case_) {
        read_case();
      } else if (skipped_depth_ == 0) {
        forget_assigned();
      } else if (reading_loop_ || reading_case_) {
        loop_body_.push_back(command);
      }
      return;
    }
    if (!ifs_.empty() && ifs_.back().dead && skip_dead_branch(first)) return;
    // A condition that is a list of tests joined by && / || (`[ a ] && [ b ]`) is decided as bash
    // runs it, left to right; any other command before `then` (`{ ...; }`, `[[ a && b ]]`, a
    // program, a second line) leaves it undecided.
    if (!ifs_.empty() && ifs_.back().awaiting_then && first != "then") {
      if (command.conditional && is_test(first)) {
        extend_condition(command);
        return;
      }
      ifs_.back().condition.reset();
      ifs_.back().condition_undecidable = true;
    }
    if (first == "if" && !command.conditional) {
      IfBlock block;
      block.line = command.line;
      block.before = variables_;
      ifs_.push_back(std::move(block));
      read_condition(command);
      return;
    }
    if (!ifs_.empty() && (first == "elif" || first == "else")) {
      next_branch(command);
      return;
    }
    if (first == "then") {
      if (!ifs_.empty() && ifs_.back().awaiting_then && !enter_branch()) return;
      evaluate_rest(command);
      return;
    }
    if (first == "fi" && !ifs_.empty()) {
      close_if();
      return;
    }
    if (opener && first == "for" && empty_word_list(command)) {
      // `for N in ; do` (a sweep written out with its list expanded to nothing): bash runs the body
      // zero times and assigns nothing, so nothing in it runs and nothing after it changes.
      skipped_depth_ = 1;
      dead_loop_ = true;
      note(command.line, Severity::warning,
           "'for' loop over an empty word list: bash never runs its body, so no command in it (a launch "
           "included) runs or is checked",
           "shell.empty-loop");
      return;
    }
    if (opener) {
      skipped_depth_ = 1;
      skipped_block_ = "the '" + first + "' block at line " + std::to_string(command.line);
      note_assigned(command);
      // Loops and case blocks nested deeper than kMaxLoopNesting are skipped, not read (bounded recursion).
      reading_loop_ = (first == "for" || first == "while" || first == "until") && replaying_ < kMaxLoopNesting;
      reading_case_ = first == "case" && command.words.size() == 3 && replaying_ < kMaxLoopNesting;
      if (reading_case_) case_command_ = command;
      loop_body_.clear();
      if (reading_case_) {
        // read_case() says how it is read, once the block is complete.
      } else if (reading_loop_) {
        note(command.line, Severity::info,
             "'" + first + "' loop: its body is read once, with every variable the loop assigns unknown in it and "
             "after it");
      } else {
        note(command.line, Severity::info,
             "'" + first + "' block is not evaluated: assignments and commands inside it are skipped, and the "
             "variables they assign are unknown after it");
      }
      return;
    }
    if (closer) return;  // a stray closer
    if (command.conditional) {
      note(command.line, Severity::info,
           "a command after '&&' or '||' runs only depending on the previous one: what it assigns is unknown "
           "after it; a program it runs is read");
      skipped_block_ = "the command after '&&'/'||' at line " + std::to_string(command.line);
      note_assigned(command);
      forget_assigned();
      // `[[ done ]] || ray job submit ... -- python -m verl.trainer.main_ppo ...` (ACuRL): the
      // launch is what such a line is for; its arguments are read like any other's.
      std::size_t verb = 0;
      while (verb < command.words.size() && assignment_name_length(command.words[verb].text) > 0) ++verb;
      if (verb < command.words.size() && !is_builtin(command.words[verb].text)) {
        std::vector<std::pair<std::string, ShellArgument>> prefix;
        for (std::size_t k = 0; k < verb; ++k) prefix.push_back(assignment(command.words[k]));
        invocation(command, verb, prefix);
      }
      return;
    }
    std::size_t i = 0;
    std::vector<std::pair<std::string, ShellArgument>> prefix;
    while (i < command.words.size() && assignment_name_length(command.words[i].text) > 0) {
      prefix.push_back(assignment(command.words[i]));
      ++i;
    }
    if (i == command.words.size()) {
      for (auto& [name, value] : prefix) set_variable(name, value, false);
      return;
    }
    const std::string& verb = command.words[i].text;
    if (std::find(kDeclarations.begin(), kDeclarations.end(), verb) != kDeclarations.end()) {
      declaration(command, i);
      return;
    }
    if (is_builtin(verb) && verb != "source" && verb != ".") return;  // no effect here
    if (verb == "source" || verb == ".") {
      note(command.line, Severity::info,
           "'" + verb + "' is not followed: variables set by the sourced file are unknown");
      return;
    }
    invocation(command, i, prefix);
  }

  // The variables a command expands ($NAME, ${NAME...}), but a variable in its own assignment.
  void note_reads(const ShellCommand& command) {
    for (const ShellWord& word : command.words) {
      const std::string_view text = word.text;
      const std::size_t own = assignment_name_length(text);
      for (std::size_t at = text.find('$'); at != std::string_view::npos; at = text.find('$', at + 1)) {
        std::size_t begin = at + 1;
        if (begin < text.size() && text[begin] == '{') ++begin;
        std::size_t end = begin;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
        if (end == begin || std::isdigit(static_cast<unsigned char>(text[begin]))) continue;
        const std::string_view name = text.substr(begin, end - begin);
        if (own > 0 && name == text.substr(0, own)) continue;
        reads_.insert(std::string(name));
      }
    }
  }

  // In a branch that never runs, commands are skipped up to the elif / else / fi of its own if.
  bool skip_dead_branch(const std::string& first) {
    IfBlock& block = ifs_.back();
    if (block.dead_depth == 0 && (first == "elif" || first == "else" || first == "fi")) return false;
    block.dead_depth += block_depth_step(first);
    return true;
  }

  static bool is_test(const std::string& word) {
    return word == "[" || word == "[[" || word == "test" || word == "!" || word == "true" || word == "false";
  }

  // `&& TEST` / `|| TEST` continuing the condition: bash runs TEST only when the list so far
  // succeeded (&&) or failed (||); an unknown part decides nothing the known part does not.
  void extend_condition(const ShellCommand& command) {
    IfBlock& block = ifs_.back();
    const ConditionValue next = evaluate_condition(command.words, variables_);
    block.condition_read.text += (command.after_or ? " || " : " && ") + next.text;
    if (block.condition_undecidable) return;
    const std::optional<bool> left = block.condition;
    if (command.after_or) {
      if (left == true || next.value == true) block.condition = true;
      else if (left == false) block.condition = next.value;
      else block.condition.reset();
    } else {
      if (left == false || next.value == false) block.condition = false;
      else if (left == true) block.condition = next.value;
      else block.condition.reset();
    }
  }

  // The condition after `if` / `elif`, read before its `then`.
  void read_condition(const ShellCommand& command) {
    IfBlock& block = ifs_.back();
    block.condition_read = evaluate_condition({command.words.begin() + 1, command.words.end()}, variables_);
    block.condition = block.condition_read.value;
    block.condition_line = command.line;
    block.awaiting_then = true;
    block.condition_undecidable = false;
  }

  // At `then`: whether the branch may run. A condition known statically decides it.
  bool enter_branch() {
    IfBlock& block = ifs_.back();
    block.awaiting_then = false;
    if (!block.condition) return true;
    const std::string where = "'" + block.condition_read.text + "' at line " + std::to_string(block.condition_line);
    note(block.condition_line, Severity::info,
         *block.condition ? "the condition " + where + " is true: its branch is read, and no later branch of the if runs"
                          : "the condition " + where + " is false: its branch never runs and is not read",
         "shell.condition");
    if (*block.condition) {
      block.taken = true;
      return true;
    }
    block.dead = true;
    block.dead_depth = 0;
    return false;
  }

  // `elif COND` / `else`: the branch before ends; this one starts from the variables before the
  // block, unless a true condition before it means it never runs.
  void next_branch(const ShellCommand& command) {
    IfBlock& block = ifs_.back();
    if (!block.dead) block.ends.push_back(variables_);
    variables_ = block.before;
    block.awaiting_then = false;
    block.dead = block.taken;
    block.dead_depth = 0;
    if (block.dead) return;
    if (command.words.front().text == "else") {
      block.has_else = true;
      evaluate_rest(command);
    } else {
      read_condition(command);
    }
  }

  // Builtins that change the shell, not programs: a declaration, `set`, `cd`, `source` ...
  static bool is_builtin(const std::string& verb) {
    return std::find(kDeclarations.begin(), kDeclarations.end(), verb) != kDeclarations.end() || verb == "set" ||
           verb == "shopt" || verb == "cd" || verb == "pushd" || verb == "popd" || verb == "source" || verb == ".";
  }

  // The names a command that is not evaluated would assign: `X=...` (also before a command, or
  // after export/declare/local/readonly), `read X`, and a `for X in` loop variable.
  void note_assigned(const ShellCommand& command) {
    const auto& words = command.words;
    if (words.size() >= 2 && (words[0].text == "for" || words[0].text == "select" || words[0].text == "read")) {
      for (std::size_t k = 1; k < words.size() && words[k].text != "in" && words[k].text != ";"; ++k) {
        if (words[k].text.empty() || words[k].text[0] == '-') continue;
        if (assignment_name_length(words[k].text + "=") == words[k].text.size()) assigned_.push_back(words[k].text);
      }
      return;
    }
    bool declaring = false;
    for (const ShellWord& word : words) {
      const std::string& text = word.text;
      const std::size_t length = assignment_name_length(text);
      if (length > 0) {
        assigned_.push_back(text.substr(0, length));
      } else if (std::find(kDeclarations.begin(), kDeclarations.end(), text) != kDeclarations.end()) {
        declaring = true;
      } else if (declaring || text == "do" || text == "then" || text == "else" || text == "{" ||
                 (!text.empty() && text.back() == ')')) {
        continue;  // options and names of a declaration; keywords and case patterns before a command
      } else {
        break;  // a command: the words after it are its arguments
      }
    }
  }

  // After a block that is not evaluated: what it may have assigned is unknown, never the value
  // from before the block.
  void forget_assigned() {
    for (const std::string& name : assigned_) {
      ShellVariable& variable = variables_[name];
      variable.values = {"$" + name};  // as written, like every unknown part of a value
      variable.lines.clear();
      variable.element_unknown.clear();
      variable.unknown = "$" + name + " may be set in " + skipped_block_ + ", which is not evaluated";
      variable.alternatives.clear();
    }
    assigned_.clear();
  }

  // `for NAME in WORDS`: the words expand to no field at all (none written, or each an unquoted
  // expansion of a variable known to be empty). Unknown values, `for NAME` ("$@"), C-style
  // `for ((...))`, and positional parameters or arrays (which the script's arguments may fill:
  // `A=("$@"); for x in "${A[@]}"`, read here without arguments) are not empty.
  bool empty_word_list(const ShellCommand& command) {
    const auto& words = command.words;
    if (words.size() < 3 || words[2].text != "in") return false;
    for (std::size_t k = 3; k < words.size() && words[k].text != "do"; ++k) {
      const std::string& text = words[k].text;
      if (text.find_first_of("@*[") != std::string::npos) return false;
      for (std::size_t at = text.find('$'); at != std::string::npos; at = text.find('$', at + 1)) {
        const std::size_t name = at + 1 < text.size() && text[at + 1] == '{' ? at + 2 : at + 1;
        if (name < text.size() && std::isdigit(static_cast<unsigned char>(text[name]))) return false;
      }
      ShellVariables scratch = variables_;  // ${X:=d} assigns: not in a loop that never starts
      const ShellExpansion expanded = expand_shell_word(words[k].text, scratch, true);
      if (!expanded.fields.empty() || !expanded.problems.empty()) return false;
    }
    return true;
  }

  // `then cmd` / `else cmd` on one line: the words after the keyword are a command of their own.
  // A loop's body, read once at its `done`: what the loop assigns (its variable, what the body
  // sets) is unknown in the body and after it, so a launch inside a sweep is found and checked with
  // the swept values unknown (ACuRL's run.sh launches inside `for ((iter...))`).
  void replay_loop() {
    std::vector<ShellCommand> body = std::move(loop_body_);
    loop_body_.clear();
    reading_loop_ = false;
    const std::vector<std::string> names = assigned_;
    const std::string block = skipped_block_;
    forget_assigned();
    ++replaying_;
    read_commands(body);
    --replaying_;
    assigned_ = names;
    skipped_block_ = block;
    forget_assigned();
  }

  // Commands of a loop body or a case branch, in order; a block they leave open (a malformed
  // body) is closed at their end, never one opened before them.
  void read_commands(const std::vector<ShellCommand>& commands) {
    const std::size_t open_ifs = ifs_.size();
    for (const ShellCommand& command : commands) {
      if (command.words.empty()) continue;
      if (command.words.front().text == "do") {
        evaluate_rest(command);
      } else {
        evaluate(command);
      }
    }
    while (skipped_depth_ > 0 || ifs_.size() > open_ifs) {
      if (skipped_depth_ > 0) {
        skipped_depth_ = 0;
        reading_loop_ = false;
        reading_case_ = false;
        forget_assigned();
      }
      if (ifs_.size() > open_ifs) close_if();
    }
  }

  // `case WORD in ... esac`, collected: bash runs the first branch whose pattern matches WORD.
  // When WORD and the patterns up to that branch are known, that branch is read; otherwise every
  // branch is read from the same start and, as after an if, a variable keeps its value only where
  // every path that goes on agrees (a branch that exits does not go on; without a `*` branch, not
  // entering any is a path too).
  void read_case() {
    std::vector<ShellCommand> body = std::move(loop_body_);
    loop_body_.clear();
    reading_case_ = false;
    assigned_.clear();
    const ShellCommand header = case_command_;
    const int line = header.line;
    const std::vector<CaseBranch> branches = case_branches(body);
    ShellExpansion subject = expand(header.words[1].text, false, line);
    std::string value;
    bool known = true;
    for (const ShellField& field : subject.fields) {
      value += field.text;
      known = known && !field.unknown;
    }
    std::optional<std::size_t> chosen;
    bool decided = known;
    for (std::size_t k = 0; decided && !chosen && k < branches.size(); ++k) {
      for (const std::string& pattern : branches[k].patterns) {
        ShellExpansion expanded = expand(pattern, false, branches[k].line);
        std::string text;
        for (const ShellField& field : expanded.fields) {
          text += field.text;
          if (field.unknown) decided = false;
        }
        if (!decided) break;
        if (fnmatch(text.c_str(), value.c_str(), 0) == 0) {
          chosen = k;
          break;
        }
      }
    }
    ++replaying_;
    if (decided) {
      note(line, Severity::info,
           chosen ? "'case' block: its word is '" + value + "', so the branch at line " +
                        std::to_string(branches[*chosen].line) + " is read"
                  : "'case' block: its word is '" + value + "', which no pattern matches: no branch runs");
      if (chosen) read_commands(branch_path(branches, *chosen));
      --replaying_;
      return;
    }
    note(line, Severity::info,
         "'case' block: its word is not known statically, so every branch is read; a variable the branches set "
         "differently is unknown after it");
    IfBlock block;
    block.line = line;
    block.before = variables_;
    block.kind = "case";
    for (std::size_t k = 0; k < branches.size(); ++k) {
      const std::vector<ShellCommand> path = branch_path(branches, k);
      variables_ = block.before;
      read_commands(path);
      if (!path_exits(path)) block.ends.push_back(variables_);
      for (const std::string& pattern : branches[k].patterns) block.has_else = block.has_else || pattern == "*";
    }
    --replaying_;
    variables_ = block.ends.empty() ? block.before : block.ends.back();
    if (!block.ends.empty()) block.ends.pop_back();
    ifs_.push_back(std::move(block));
    close_if();
  }

  void evaluate_rest(const ShellCommand& command) {
    if (command.words.size() < 2) return;
    ShellCommand rest = command;
    rest.words.erase(rest.words.begin());
    rest.line = rest.words.front().line;
    evaluate(rest);
  }

  void close_if() {
    IfBlock block = std::move(ifs_.back());
    ifs_.pop_back();
    if (!block.dead) block.ends.push_back(variables_);
    if (!block.has_else && !block.taken) block.ends.push_back(block.before);  // no branch taken
    variables_ = merge_path_ends(block.ends, block.kind, block.line);
  }

  std::pair<std::string, ShellArgument> assignment(const ShellWord& word) {
    const std::size_t name_length = assignment_name_length(word.text);
    const std::string name = word.text.substr(0, name_length);
    const bool append = word.text[name_length] == '+';
    std::string_view value = std::string_view(word.text).substr(name_length + (append ? 2 : 1));
    ShellArgument argument;
    argument.location = SourceLocation{file_, word.line};
    if (!value.empty() && value.front() == '(' && value.back() == ')') {
      array_assignment(name, value.substr(1, value.size() - 2), word.line, append);
      argument.text = "(array)";
      return {"", argument};
    }
    ShellExpansion expanded = expand(value, false, word.line);
    for (const ShellField& field : expanded.fields) {
      argument.text += field.text;
      argument.partial += field.partial.empty() ? field.text : field.partial;
      if (field.unknown && !argument.unknown) argument.unknown = field.unknown;
    }
    if (append) {
      const auto it = variables_.find(name);
      if (it != variables_.end() && !it->second.values.empty()) {
        argument.text = it->second.values.front() + argument.text;
        argument.partial = it->second.values.front() + argument.partial;
      }
      // Appending to a value not known statically (`X+="]"` after a loop that built X) keeps it unknown.
      if (it != variables_.end() && it->second.unknown && !argument.unknown) argument.unknown = it->second.unknown;
    }
    if (!argument.unknown) argument.partial.clear();
    return {name, argument};
  }

  void array_assignment(const std::string& name, std::string_view body, int line, bool append) {
    ShellLexResult lexed = lex_shell(body, file_);
    ShellVariable& variable = variables_[name];
    if (!append) {
      variable.values.clear();
      variable.lines.clear();
      variable.element_unknown.clear();
    }
    variable.unknown.reset();
    variable.alternatives.clear();
    variable.location = SourceLocation{file_, line};
    // `A=($(cmd))` or `A=(`cmd`)`: how many elements the command prints is not known statically
    // ($((...)), arithmetic, is one known word).
    bool substitution = body.find('`') != std::string_view::npos;
    for (std::size_t at = body.find("$("); at != std::string_view::npos && !substitution; at = body.find("$(", at + 2)) {
      substitution = at + 2 >= body.size() || body[at + 2] != '(';
    }
    if (substitution) {
      variable.unknown = "array " + name + " is filled by a command substitution at line " + std::to_string(line);
      return;
    }
    for (const ShellCommand& element_line : lexed.commands) {
      for (const ShellWord& word : element_line.words) {
        ShellExpansion expanded = expand(word.text, true, line + word.line - 1);
        for (const ShellField& field : expanded.fields) {
          variable.values.push_back(field.text);
          variable.element_unknown.push_back(field.unknown);
          variable.lines.push_back(line + word.line - 1);
        }
      }
    }
  }

  void set_variable(const std::string& name, const ShellArgument& value, bool exported) {
    if (name.empty()) return;  // arrays are stored by array_assignment
    ShellVariable& variable = variables_[name];
    // Known in part (`B="$A x=1"` with A="y=$HOME/m"): the known parts are kept, the unknown ones
    // as written, so that a later expansion of B still has them.
    variable.values = {value.unknown && !value.partial.empty() ? value.partial : value.text};
    variable.lines.clear();
    variable.element_unknown.clear();
    variable.unknown = value.unknown;
    variable.alternatives.clear();
    variable.location = value.location;
    variable.exported = variable.exported || exported;
  }

  void declaration(const ShellCommand& command, std::size_t verb_index) {
    const std::string& verb = command.words[verb_index].text;
    bool exported = verb == "export";
    bool array = false;  // declare -a / -A: a name declared with no value is an empty array
    for (std::size_t k = verb_index + 1; k < command.words.size(); ++k) {
      const ShellWord& word = command.words[k];
      if (!word.text.empty() && word.text[0] == '-') {
        if (word.text.find('x') != std::string::npos) exported = true;
        array = array || word.text.find_first_of("aA") != std::string::npos;
        continue;
      }
      if (verb == "unset") {
        variables_.erase(word.text);
      } else if (assignment_name_length(word.text) > 0) {
        auto [name, value] = assignment(word);
        set_variable(name, value, exported);
      } else if (array && !variables_.contains(word.text)) {
        // "${W[@]}" of `declare -a W` expands to no word at all, as of `W=()`.
        ShellVariable& declared = variables_[word.text];
        declared.exported = exported;
        declared.location = SourceLocation{file_, word.line};
      } else if (exported) {
        variables_[word.text].exported = true;
        if (variables_[word.text].location.line == 0) variables_[word.text].location = SourceLocation{file_, word.line};
      }
    }
  }

  void invocation(const ShellCommand& command, std::size_t start,
                  const std::vector<std::pair<std::string, ShellArgument>>& prefix) {
    ShellInvocation call;
    call.location = SourceLocation{file_, command.line};
    for (std::size_t k = start; k < command.words.size(); ++k) {
      const ShellWord& word = command.words[k];
      ShellExpansion expanded = expand(word.text, true, word.line);
      call.uses_script_arguments = call.uses_script_arguments || expanded.used_positional_all;
      for (ShellField& field : expanded.fields) {
        call.args.push_back(ShellArgument{std::move(field.text), std::move(field.unknown),
                                          SourceLocation{file_, field.line > 0 ? field.line : word.line},
                                          std::move(field.alternatives), std::move(field.partial), false,
                                          std::move(field.split_from)});
      }
    }
    for (const auto& [name, variable] : variables_) {
      if (!variable.exported || (variable.values.empty() && !variable.unknown)) continue;
      ShellArgument value;
      value.text = variable.values.empty() ? "" : variable.values.front();
      value.unknown = variable.unknown;
      value.location = variable.location;
      call.environment[name] = value;
    }
    for (const auto& [name, value] : prefix) {
      if (!name.empty()) call.environment[name] = value;
    }
    result_.invocations.push_back(std::move(call));
  }

  const std::string& file_;
  ShellVariables variables_;
  std::set<std::string, std::less<>> reads_;  ///< variables the script expands (note_reads)
  ShellScript result_;
  std::vector<IfBlock> ifs_;  ///< open if blocks, innermost last
  int skipped_depth_ = 0;     ///< > 0 inside a block that is not evaluated
  std::string skipped_block_;          ///< that block, for messages
  std::vector<std::string> assigned_;  ///< names assigned inside it
  static constexpr int kMaxLoopNesting = 16;
  bool reading_loop_ = false;             ///< the block is a loop whose body is read at its end
  bool dead_loop_ = false;                ///< the block is a loop whose body never runs (skipped)
  bool reading_case_ = false;             ///< the block is a case block, read at its esac
  ShellCommand case_command_;             ///< its `case WORD in` line
  int replaying_ = 0;                     ///< loop bodies being read, innermost last
  std::vector<ShellCommand> loop_body_;  ///< its commands, nested blocks included
};

}  // namespace

ShellScript evaluate_shell_script(std::string_view text, const std::string& file_name,
                                  const std::map<std::string, std::string>& environment) {
  return Walker(file_name, environment).run(text);
}

}  // namespace meshplan
