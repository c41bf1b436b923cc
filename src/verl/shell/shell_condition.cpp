#include "verl/shell/shell_condition.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

namespace meshplan {
namespace {

struct Operand {
  std::string text;
  std::string raw;  ///< as written, quotes included
  bool known = true;
};

constexpr std::array<std::string_view, 9> kBinary = {"=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"};

bool is_binary(const std::string& word) { return std::find(kBinary.begin(), kBinary.end(), word) != kBinary.end(); }

std::optional<long long> integer(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool has_glob(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

// The whole word in one pair of quotes ("${X}", 'a*'), with no other quote or backslash inside.
bool fully_quoted(std::string_view raw) {
  if (raw.size() < 2 || (raw.front() != '"' && raw.front() != '\'') || raw.back() != raw.front()) return false;
  return raw.substr(1, raw.size() - 2).find_first_of("'\"\\") == std::string_view::npos;
}

class Evaluator {
 public:
  Evaluator(const std::vector<Operand>& operands, bool double_bracket)
      : operands_(operands), double_bracket_(double_bracket) {}

  std::optional<bool> run() {
    if (operands_.empty()) return false;  // `[ ]` fails
    std::size_t pos = 0;
    const std::optional<bool> value = disjunction(pos);
    if (pos != operands_.size()) return std::nullopt;
    return value;
  }

 private:
  // `-o` and `-a` join tests only inside `[ ]` / `test`; `[[ ]]` uses && and ||, which the lexer
  // splits off (such a condition is not decided).
  std::optional<bool> disjunction(std::size_t& pos) {
    std::optional<bool> value = conjunction(pos);
    while (!double_bracket_ && value && pos < operands_.size() && operands_[pos].raw == "-o") {
      ++pos;
      const std::optional<bool> right = conjunction(pos);
      if (!right) return std::nullopt;
      value = *value || *right;
    }
    return value;
  }

  std::optional<bool> conjunction(std::size_t& pos) {
    std::optional<bool> value = primary(pos);
    while (!double_bracket_ && value && pos < operands_.size() && operands_[pos].raw == "-a") {
      ++pos;
      const std::optional<bool> right = primary(pos);
      if (!right) return std::nullopt;
      value = *value && *right;
    }
    return value;
  }

  std::optional<bool> primary(std::size_t& pos) {
    // `!` negates what follows (a run of them read in a loop, never recursively).
    bool negate = false;
    while (pos + 1 < operands_.size() && operands_[pos].raw == "!" &&
           !(pos + 2 < operands_.size() && is_binary(operands_[pos + 1].raw))) {
      negate = !negate;
      ++pos;
    }
    const std::optional<bool> value = test(pos);
    if (!value) return std::nullopt;
    return *value != negate;
  }

  std::optional<bool> test(std::size_t& pos) {
    if (pos >= operands_.size()) return std::nullopt;
    const Operand& first = operands_[pos];
    if (pos + 2 < operands_.size() && is_binary(operands_[pos + 1].raw)) {
      const Operand& left = operands_[pos];
      const std::string& op = operands_[pos + 1].raw;
      const Operand& right = operands_[pos + 2];
      pos += 3;
      if (!left.known || !right.known) return std::nullopt;
      return binary(left, op, right);
    }
    if ((first.raw == "-z" || first.raw == "-n") && pos + 1 < operands_.size()) {
      const Operand& operand = operands_[pos + 1];
      pos += 2;
      if (!operand.known) return std::nullopt;
      return first.raw == "-z" ? operand.text.empty() : !operand.text.empty();
    }
    if (first.raw.size() == 2 && first.raw[0] == '-' && pos + 1 < operands_.size()) return std::nullopt;  // a file test
    ++pos;
    if (!first.known) return std::nullopt;
    return !first.text.empty();
  }

  std::optional<bool> binary(const Operand& left, const std::string& op, const Operand& right) const {
    if (op == "=" || op == "==" || op == "!=") {
      bool equal = left.text == right.text;
      if (double_bracket_ && has_glob(right.text)) {
        // [[ x == pattern ]]: an unquoted right side is a glob pattern, a quoted one is literal.
        const bool quoted = right.raw.find_first_of("'\"\\") != std::string::npos;
        if (quoted && !fully_quoted(right.raw)) return std::nullopt;
        if (!quoted) equal = fnmatch(right.text.c_str(), left.text.c_str(), 0) == 0;
      }
      return op == "!=" ? !equal : equal;
    }
    // bash stops with "integer expression expected" (status 2) on a word that is not an integer.
    const std::optional<long long> a = integer(left.text);
    const std::optional<long long> b = integer(right.text);
    if (!a || !b) return std::nullopt;
    if (op == "-eq") return *a == *b;
    if (op == "-ne") return *a != *b;
    if (op == "-lt") return *a < *b;
    if (op == "-le") return *a <= *b;
    if (op == "-gt") return *a > *b;
    return *a >= *b;
  }

  const std::vector<Operand>& operands_;
  bool double_bracket_;
};

}  // namespace

ConditionValue evaluate_condition(const std::vector<ShellWord>& words, ShellVariables& variables) {
  ConditionValue out;
  std::size_t start = 0;
  bool negate = false;
  while (start < words.size() && words[start].text == "!") {
    negate = !negate;
    ++start;
  }
  if (start >= words.size()) return out;
  const std::string& verb = words[start].text;
  const bool single = start + 1 == words.size();
  for (std::size_t k = start; k < words.size(); ++k) out.text += (k > start ? " " : "") + words[k].text;
  if (single && (verb == "true" || verb == ":" || verb == "false")) {
    out.value = (verb != "false") != negate;
    return out;
  }
  std::size_t end = words.size();
  bool double_bracket = false;
  if (verb == "[" || verb == "[[") {
    double_bracket = verb == "[[";
    if (words.back().text != (double_bracket ? "]]" : "]") || end - start < 2) return out;
    --end;
  } else if (verb != "test") {
    return out;  // a command: its status is known only at run time
  }
  // Inside [[ ]] bash does not split words; inside [ ] an unquoted expansion may split into
  // several words (or vanish), which changes the test: such a condition is not decided.
  std::vector<Operand> operands;
  std::string rendered = verb;
  for (std::size_t k = start + 1; k < end; ++k) {
    const ShellExpansion expanded = expand_shell_word(words[k].text, variables, !double_bracket);
    if (expanded.fields.size() != 1) return out;
    const ShellField& field = expanded.fields.front();
    operands.push_back(Operand{field.text, words[k].text, !field.unknown.has_value()});
    rendered += " " + (field.text.empty() ? std::string("''") : field.text);
  }
  if (end < words.size()) rendered += " " + words[end].text;
  out.text = (negate ? "! " : "") + rendered;
  const std::optional<bool> value = Evaluator(operands, double_bracket).run();
  if (value) out.value = *value != negate;
  return out;
}

}  // namespace meshplan
