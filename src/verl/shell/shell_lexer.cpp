#include "verl/shell/shell_lexer.hpp"

#include <cctype>

namespace meshplan {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_operator_start(char c) { return c == ';' || c == '&' || c == '|' || c == '<' || c == '>'; }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  ShellLexResult run() {
    while (pos_ < text_.size()) step();
    end_command();
    return std::move(result_);
  }

 private:
  char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void step() {
    const char c = text_[pos_];
    if (is_blank(c)) {
      ++pos_;
    } else if (c == '\\' && at(pos_ + 1) == '\n') {
      pos_ += 2;
      ++line_;
      continued_ = true;
      words_at_continuation_ = current_.words.size();
    } else if (c == '\n') {
      newline();
    } else if (c == '#') {
      comment();
    } else if (c == '(' || c == ')') {
      subshell_or_paren();
    } else if (is_operator_start(c) || (std::isdigit(static_cast<unsigned char>(c)) && redirection_after_digits())) {
      operator_token();
    } else {
      word();
    }
  }

  bool redirection_after_digits() const {
    std::size_t i = pos_;
    while (std::isdigit(static_cast<unsigned char>(at(i)))) ++i;
    return at(i) == '>' || at(i) == '<';
  }

  void newline() {
    // `cmd \` then a blank line: the blank line ends the command (bash semantics), and a next line
    // that begins with an argument runs as a command of its own ("--: command not found").
    if (continued_ && !current_.words.empty() && current_.words.size() == words_at_continuation_ &&
        next_line_starts_with_argument()) {
      report(line_,
             "a blank line after a backslash continuation ends the command here (bash semantics); the next line "
             "begins with an argument ('-...' or key=value), so it runs as a command of its own and its arguments "
             "are not passed");
    }
    ++pos_;
    ++line_;
    end_command();
    continued_ = false;
    if (!heredoc_delimiter_.empty()) skip_heredoc();
  }

  void comment() {
    const int comment_line = line_;
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    // A comment inside a continued command ends it; if more continuation lines follow, they
    // become separate commands (bash semantics).
    if (continued_ && !current_.words.empty() && next_line_is_indented()) {
      report(comment_line,
             "a comment inside a backslash continuation ends the command here (bash semantics); the lines after "
             "it are run as separate commands and their arguments are not passed");
      continued_ = false;  // one break, said once: the comment line is not a blank line too
    }
  }

  /// The first word of the next line that has one (from the newline at pos_) is an argument: an
  /// option ('-x', '--') or a Hydra override (`a.b=1`, `+a.b=1`, `~a.b`), never a command name.
  bool next_line_starts_with_argument() const {
    std::size_t i = pos_ + 1;
    while (i < text_.size() && (is_blank(text_[i]) || text_[i] == '\n')) ++i;
    std::size_t end = i;
    while (end < text_.size() && !is_blank(text_[end]) && text_[end] != '\n') ++end;
    const std::string_view word = text_.substr(std::min(i, text_.size()), end - std::min(i, text_.size()));
    if (word.empty()) return false;
    if (word.front() == '-' || word.front() == '+' || word.front() == '~') return true;
    const std::size_t equals = word.find('=');
    return equals != std::string_view::npos && word.substr(0, equals).find('.') != std::string_view::npos;
  }

  bool next_line_is_indented() const {
    std::size_t i = pos_ + 1;
    if (pos_ < text_.size() && text_[pos_ - 1] == '\\') return true;
    while (i < text_.size() && text_[i] == '\n') ++i;
    return i < text_.size() && is_blank(text_[i]) && [&] {
      std::size_t j = i;
      while (j < text_.size() && is_blank(text_[j])) ++j;
      return j < text_.size() && text_[j] != '\n' && text_[j] != '#';
    }();
  }

  void report(int line, const std::string& message) {
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "shell.broken-continuation";
    finding.message = message;
    finding.location = SourceLocation{file_, line};
    result_.findings.push_back(std::move(finding));
  }

  bool expecting_pattern() const { return !case_patterns_.empty() && case_patterns_.back(); }

  void subshell_or_paren() {
    if (text_[pos_] == ')') {  // a ')' with no '(' before it ends a case pattern (`--lr) LR="$2";;`)
      ++pos_;
      if (expecting_pattern()) {
        current_.case_pattern = true;
        case_patterns_.back() = false;  // the branch's commands follow
      } else if (open_subshells_ > 0) {
        --open_subshells_;
      }
      end_command();
      return;
    }
    if (expecting_pattern() && current_.words.empty()) {  // `(a|b) ...`: the optional '(' of a pattern
      ++pos_;
      return;
    }
    if (current_.words.empty() && at(pos_ + 1) != '(') {
      // A subshell `( cd dir && python3 -m verl.trainer.main_ppo ... )` (wjl-bupt/EasyOPD): its commands
      // are read as the script's own; what they assign or the directory they enter does not outlive it
      // in bash.
      ++pos_;
      ++open_subshells_;
      Finding finding;
      finding.severity = Severity::info;
      finding.rule = "shell.unsupported";
      finding.message = "a subshell '( ... )': its commands are read as the script's (in bash what it assigns "
                        "does not outlive it)";
      finding.location = SourceLocation{file_, line_};
      result_.findings.push_back(std::move(finding));
      return;
    }
    Finding finding;
    finding.severity = Severity::info;
    finding.rule = "shell.unsupported";
    finding.message = "a subshell or function definition '(' is not evaluated; its commands are skipped";
    finding.location = SourceLocation{file_, line_};
    result_.findings.push_back(std::move(finding));
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '\n') ++line_;
      if (c == '(') ++depth;
      if (c == ')' && --depth <= 0) break;
    }
    end_command();
  }

  void operator_token() {
    while (std::isdigit(static_cast<unsigned char>(at(pos_)))) ++pos_;
    const char c = text_[pos_];
    if (expecting_pattern() && c == '|') {  // `a|b)`: the next alternative of the pattern
      ++pos_;
      return;
    }
    if (!case_patterns_.empty() && c == ';' && (at(pos_ + 1) == ';' || at(pos_ + 1) == '&')) {
      // `;;`, `;&` or `;;&` ends a case branch: a command of its own marks it.
      const int line = line_;
      std::string marker = at(pos_ + 1) == '&' ? ";&" : ";;";
      pos_ += 2;
      if (marker == ";;" && at(pos_) == '&') ++pos_;
      end_command();
      ShellCommand end;
      end.words.push_back(ShellWord{marker, line});
      end.line = line;
      result_.commands.push_back(std::move(end));
      case_patterns_.back() = true;
      return;
    }
    if (c == ';' || c == '|' || (c == '&' && at(pos_ + 1) != '>')) {
      const bool logical = (c == '&' || c == '|') && at(pos_ + 1) == c;
      pos_ += (at(pos_ + 1) == c) ? 2 : 1;
      end_command();
      current_.conditional = logical;
      current_.after_or = logical && c == '|';
      return;
    }
    // Redirection: <, >, >>, <<, <<-, &>, >&N; the target word is dropped.
    bool heredoc = false;
    if (c == '<' && at(pos_ + 1) == '<' && at(pos_ + 2) != '<') {
      heredoc = true;
      pos_ += 2;
      if (at(pos_) == '-') ++pos_;
    } else {
      while (at(pos_) == '<' || at(pos_) == '>' || at(pos_) == '&') ++pos_;
      if (std::isdigit(static_cast<unsigned char>(at(pos_))) || at(pos_) == '-') {
        if (text_[pos_ - 1] == '&') {
          ++pos_;
          return;
        }
      }
    }
    while (is_blank(at(pos_))) ++pos_;
    const std::size_t start = pos_;
    ShellCommand saved = std::move(current_);
    current_ = {};
    word();
    current_ = std::move(saved);
    if (heredoc) {
      std::string delimiter(text_.substr(start, pos_ - start));
      std::string bare;
      for (char d : delimiter) {
        if (d != '\'' && d != '"' && d != '\\') bare += d;
      }
      heredoc_delimiter_ = bare;
    }
  }

  void skip_heredoc() {
    while (pos_ < text_.size()) {
      const std::size_t end = text_.find('\n', pos_);
      std::string_view line = text_.substr(pos_, end == std::string_view::npos ? text_.npos : end - pos_);
      while (!line.empty() && (line.front() == '\t')) line.remove_prefix(1);
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
      ++line_;
      if (line == heredoc_delimiter_) break;
    }
    heredoc_delimiter_.clear();
  }

  // A backslash at pos_: `\`-newline is a line continuation (dropped), any other pair is kept
  // as written for the expansion step.
  void copy_escape(std::string& out) {
    if (text_[pos_ + 1] == '\n') {
      ++line_;
    } else {
      out += text_[pos_];
      out += text_[pos_ + 1];
    }
    pos_ += 2;
  }

  // `$(`, `$((` or `${` at pos_.
  bool at_substitution() const { return at(pos_) == '$' && (at(pos_ + 1) == '(' || at(pos_ + 1) == '{'); }

  void copy_substitution(std::string& out) {
    out += '$';
    ++pos_;
    balanced(out, text_[pos_], text_[pos_] == '(' ? ')' : '}');
  }

  // Copies a balanced region opened at pos_ (e.g. "$(" ... ")"), honouring quotes.
  void balanced(std::string& out, char open, char close) {
    const int start_line = line_;
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        copy_escape(out);
        continue;
      }
      if (c == '\'' || c == '"') {
        quoted(out, c);
        continue;
      }
      if (c == '\n') ++line_;
      out += c;
      ++pos_;
      if (c == open) ++depth;
      if (c == close && --depth == 0) return;
    }
    unterminated(start_line, std::string("'") + open + "' is never closed");
  }

  void unterminated(int line, const std::string& what) {
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "shell.unterminated";
    finding.message = what + ": bash reports a syntax error at the end of the file and runs nothing after line " +
                      std::to_string(line);
    finding.location = SourceLocation{file_, line};
    result_.findings.push_back(std::move(finding));
  }

  void quoted(std::string& out, char quote) {
    const int start_line = line_;
    out += text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      const char c = text_[pos_];
      if (quote == '"' && c == '\\' && pos_ + 1 < text_.size()) {
        copy_escape(out);
        continue;
      }
      if (quote == '"' && at_substitution()) {
        copy_substitution(out);
        continue;
      }
      if (c == '\n') ++line_;
      out += c;
      ++pos_;
    }
    if (pos_ < text_.size()) {
      out += text_[pos_++];
    } else {
      unterminated(start_line, std::string("the quote ") + quote + " is never closed");
    }
  }

  bool is_array_assignment_prefix(const std::string& word) const {
    if (word.size() < 2 || word.back() != '=') return false;
    std::size_t end = word.size() - 1;
    if (word[end - 1] == '+') --end;
    if (!(std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '_')) return false;
    for (std::size_t i = 0; i < end; ++i) {
      if (!std::isalnum(static_cast<unsigned char>(word[i])) && word[i] != '_') return false;
    }
    return true;
  }

  void word() {
    ShellWord result;
    result.line = line_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c) || c == '\n' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>' || c == ')') break;
      if (c == '(') {
        if (!is_array_assignment_prefix(result.text)) break;
        balanced_array(result.text);
        continue;
      }
      if (c == '\\') {
        if (at(pos_ + 1) == '\n') {
          pos_ += 2;
          ++line_;
          continued_ = true;
          words_at_continuation_ = current_.words.size() + (result.text.empty() ? 0 : 1);
          continue;
        }
        check_backslash_blank();
        result.text += c;
        if (pos_ + 1 < text_.size()) result.text += text_[pos_ + 1];
        pos_ += 2;
        continue;
      }
      if (c == '\'' || c == '"') {
        quoted(result.text, c);
        continue;
      }
      if (c == '`') {
        result.text += c;
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '`') result.text += text_[pos_++];
        if (pos_ < text_.size()) result.text += text_[pos_++];
        continue;
      }
      if (at_substitution()) {
        copy_substitution(result.text);
        continue;
      }
      result.text += c;
      ++pos_;
    }
    if (result.text.empty()) {
      ++pos_;  // a stray character we cannot start a word with
      return;
    }
    if (current_.words.empty()) current_.line = result.line;
    if (current_.words.empty() && result.text == "esac" && !case_patterns_.empty()) case_patterns_.pop_back();
    current_.words.push_back(std::move(result));
    // `case WORD in` (also after `then`, `do`, `else`, `{`): the patterns and branches that follow
    // are commands of their own.
    if (opens_case(current_.words)) {
      end_command();
      case_patterns_.push_back(true);
    }
  }

  static bool opens_case(const std::vector<ShellWord>& words) {
    const std::size_t n = words.size();
    if (n < 3 || words[n - 1].text != "in" || words[n - 3].text != "case") return false;
    for (std::size_t k = 0; k + 3 < n; ++k) {
      const std::string& keyword = words[k].text;
      if (keyword != "then" && keyword != "do" && keyword != "else" && keyword != "{") return false;
    }
    return true;
  }

  // `\` then blanks up to the end of the line (or a comment): bash reads `\ ` as an escaped
  // blank, so the newline after it ends the command.
  void check_backslash_blank() {
    std::size_t i = pos_ + 1;
    if (!is_blank(at(i))) return;
    while (is_blank(at(i))) ++i;
    if (at(i) == '\n' || at(i) == '#' || i >= text_.size()) {
      report(line_,
             "backslash followed by a blank (not a newline) ends the command here and passes a literal blank "
             "argument (bash semantics); the continuation lines after it are not part of this command");
    }
  }

  void balanced_array(std::string& out) {
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\'' || c == '"') {
        quoted(out, c);
        continue;
      }
      if (c == '#' && (out.empty() || is_blank(out.back()) || out.back() == '\n' || out.back() == '(')) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\\' && at(pos_ + 1) == '\n') {
        pos_ += 2;
        ++line_;
        out += ' ';
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) {  // an escaped character (`\"`, `\(`) is literal
        out += text_.substr(pos_, 2);
        pos_ += 2;
        continue;
      }
      if (at_substitution()) {
        copy_substitution(out);
        continue;
      }
      if (c == '\n') ++line_;
      out += c;
      ++pos_;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) return;
    }
  }

  // Ends the current command; a pending `&&`/`||` (no words yet) carries over to the next one.
  void end_command() {
    const bool pending_conditional = current_.conditional && current_.words.empty();
    const bool pending_or = current_.after_or && current_.words.empty();
    if (!current_.words.empty()) result_.commands.push_back(std::move(current_));
    current_ = {};
    current_.conditional = pending_conditional;
    current_.after_or = pending_or;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  bool continued_ = false;
  std::size_t words_at_continuation_ = 0;  ///< the command's words at its last `\` newline
  std::string heredoc_delimiter_;
  ShellCommand current_;
  ShellLexResult result_;
  /// Open `case` blocks, innermost last: true while a pattern is expected (after `in` and after
  /// each `;;`), false inside a branch's commands.
  std::vector<bool> case_patterns_;
  int open_subshells_ = 0;  ///< `(` groups whose commands are being read
};

}  // namespace

ShellLexResult lex_shell(std::string_view text, const std::string& file_name) {
  return Lexer(text, file_name).run();
}

}  // namespace meshplan
