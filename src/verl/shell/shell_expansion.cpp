#include "verl/shell/shell_expansion.hpp"

#include <algorithm>
#include <cctype>

namespace meshplan {
namespace {

// Whether a value kept with its unknown parts as written (`$(pwd)/configs`) has a part that is
// not one: text outside $(...), ${...}, $NAME and backticks.
bool has_known_part(std::string_view value) {
  std::size_t i = 0;
  while (i < value.size()) {
    if (value[i] == '`') {
      const std::size_t close = value.find('`', i + 1);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    } else if (value[i] == '$' && i + 1 < value.size() && (value[i + 1] == '(' || value[i + 1] == '{')) {
      const char open = value[i + 1];
      const char close = open == '(' ? ')' : '}';
      int depth = 0;
      std::size_t j = i + 1;
      for (; j < value.size(); ++j) {
        if (value[j] == open) ++depth;
        if (value[j] == close && --depth == 0) break;
      }
      if (j >= value.size()) return false;
      i = j + 1;
    } else if (value[i] == '$') {
      ++i;
      while (i < value.size() && (std::isalnum(static_cast<unsigned char>(value[i])) != 0 || value[i] == '_')) ++i;
    } else {
      return true;
    }
  }
  return false;
}

/// Nested $(( )) and ${..:-..} levels expanded in one word; deeper ones are left unknown
/// instead of exhausting the stack (real scripts nest two or three).
constexpr int kMaxNesting = 64;

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Index just past the construct opened at `open` ("${" or "$(" or "$(("), honouring nesting and quotes.
std::size_t construct_end(std::string_view text, std::size_t open, char open_char, char close_char) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (c == '\'' && open_char == '(') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) return text.size();
      i = end;
    } else if (c == open_char) {
      ++depth;
    } else if (c == close_char && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

class Expander {
 public:
  Expander(ShellVariables& variables, bool split, int depth = 0)
      : variables_(variables), split_(split), depth_(depth) {}

  ShellExpansion run(std::string_view word) {
    fields_.push_back({});
    bool any_quoted = false;
    std::size_t i = 0;
    while (i < word.size()) {
      const char c = word[i];
      if (c == '\'') {
        const std::size_t end = word.find('\'', i + 1);
        append(word.substr(i + 1, end == std::string_view::npos ? word.npos : end - i - 1));
        any_quoted = true;
        i = end == std::string_view::npos ? word.size() : end + 1;
      } else if (c == '"') {
        any_quoted = true;
        i = double_quoted(word, i + 1);
      } else if (c == '\\') {
        if (i + 1 < word.size()) append(word.substr(i + 1, 1));
        i += 2;
      } else if (c == '$' || c == '`') {
        i = dollar(word, i, /*quoted=*/false);
      } else {
        append(word.substr(i, 1));
        ++i;
      }
    }
    // Empty fields left by splitting disappear; a quoted "" stays one empty argument, but
    // "$@" and "${A[@]}" of nothing produce no argument at all.
    const bool vanishing = word == "\"$@\"" || word.starts_with("\"${@:") ||
                           (word.rfind("\"${", 0) == 0 && word.size() > 7 && word.substr(word.size() - 5) == "[@]}\"");
    for (const PartialValue& known : partial_values_) {
      ShellField& field = fields_[known.field];
      const std::size_t at = field.text.find(known.rendered);
      if (at != std::string::npos) field.partial = field.text.substr(0, at) + known.value + field.text.substr(at + known.rendered.size());
    }
    if (!any_quoted || fields_.size() > 1 || vanishing) {
      std::erase_if(fields_, [](const ShellField& f) { return f.text.empty() && !f.unknown; });
    }
    result_.fields = std::move(fields_);
    return std::move(result_);
  }

 private:
  /// A variable known in part, expanded into field `field` as `rendered`.
  struct PartialValue {
    std::size_t field;
    std::string rendered;
    std::string value;
  };
  std::vector<PartialValue> partial_values_;

  void append(std::string_view text) { fields_.back().text += text; }

  void append_unknown(std::string_view rendered, const std::string& why) {
    fields_.back().text += rendered;
    if (!fields_.back().unknown) fields_.back().unknown = why;
  }

  // Appends an expansion result; unquoted results are split on blanks (IFS default).
  // `source` names the variable the value came from; the fields its blanks split it into say so.
  void append_value(const std::string& value, bool quoted, const std::string& source = {}) {
    if (quoted || !split_) {
      fields_.back().text += value;
      return;
    }
    const std::size_t first = fields_.size() - 1;
    std::size_t i = 0;
    while (i < value.size()) {
      if (value[i] == ' ' || value[i] == '\t' || value[i] == '\n') {
        if (!fields_.back().text.empty() || fields_.back().unknown) fields_.push_back({});
        ++i;
        continue;
      }
      fields_.back().text += value[i++];
    }
    if (source.empty() || fields_.size() - first < 2) return;
    for (std::size_t k = first; k < fields_.size(); ++k) fields_[k].split_from = source;
  }

  std::size_t double_quoted(std::string_view word, std::size_t i) {
    while (i < word.size() && word[i] != '"') {
      const char c = word[i];
      if (c == '\\' && i + 1 < word.size() && std::string_view("$`\"\\").find(word[i + 1]) != std::string_view::npos) {
        fields_.back().text += word[i + 1];
        i += 2;
      } else if (c == '$' || c == '`') {
        i = dollar(word, i, /*quoted=*/true);
      } else {
        fields_.back().text += c;
        ++i;
      }
    }
    return i + 1;
  }

  std::size_t dollar(std::string_view word, std::size_t i, bool quoted) {
    if (word[i] == '`') {
      const std::size_t end = word.find('`', i + 1);
      const std::size_t stop = end == std::string_view::npos ? word.size() : end + 1;
      append_unknown(word.substr(i, stop - i), "command substitution " + std::string(word.substr(i, stop - i)) +
                                                   " is never run");
      return stop;
    }
    const char next = i + 1 < word.size() ? word[i + 1] : '\0';
    if (next == '(' && i + 2 < word.size() && word[i + 2] == '(') {
      const std::size_t end = construct_end(word, i + 1, '(', ')');
      const std::string_view inner = word.substr(i + 3, end >= i + 5 ? end - i - 5 : 0);
      std::string why;
      bool refused = false;
      // Inner $var / ${var} expand first, then the arithmetic.
      ShellExpansion expanded = nested(inner);
      std::string text = expanded.fields.empty() ? "" : expanded.fields[0].text;
      if (!expanded.fields.empty() && expanded.fields[0].unknown) {
        append_unknown(word.substr(i, end - i), *expanded.fields[0].unknown);
      } else if (auto value = evaluate_arithmetic(text, variables_, why, &refused)) {
        append_value(std::to_string(*value), quoted);
      } else {
        const std::string reason = "arithmetic " + std::string(word.substr(i, end - i)) + ": " + why;
        if (refused) result_.problems.push_back(reason);
        append_unknown(word.substr(i, end - i), reason);
      }
      return end;
    }
    if (next == '(') {
      const std::size_t end = construct_end(word, i + 1, '(', ')');
      const std::string rendered(word.substr(i, end - i));
      append_unknown(rendered, "command substitution " + rendered + " is never run");
      return end;
    }
    if (next == '{') {
      const std::size_t end = construct_end(word, i + 1, '{', '}');
      braced(word.substr(i + 2, end - i - 3), std::string(word.substr(i, end - i)), quoted);
      return end;
    }
    if (next == '@' || next == '*') {
      result_.used_positional_all = true;
      return i + 2;
    }
    if (next == '#') {  // how many arguments the script is given: chosen at run time
      append_unknown(word.substr(i, 2), "$# is the number of the script's arguments, given at run time");
      return i + 2;
    }
    if (std::isdigit(static_cast<unsigned char>(next))) {
      positional(std::string(1, next), "$" + std::string(1, next));
      return i + 2;
    }
    if (next == '$' || next == '?' || next == '!' || next == '-') {
      append_unknown(word.substr(i, 2), "$" + std::string(1, next) + " is only known at run time");
      return i + 2;
    }
    std::size_t end = i + 1;
    while (end < word.size() && is_name_char(word[end])) ++end;
    if (end == i + 1) {
      append("$");
      return i + 1;
    }
    const std::string name(word.substr(i + 1, end - i - 1));
    variable(name, "$" + name, quoted);
    return end;
  }

  void positional(const std::string& index, const std::string& rendered) {
    if (index == "0") {
      append_unknown(rendered, "$0 is the script's path at run time");
      return;
    }
    // The script's own arguments are given at run time: `${1:-x}` takes its default, a bare `$1`
    // is not known.
    append_unknown(rendered, rendered + " is an argument of the script, given at run time");
  }

  void variable(const std::string& name, const std::string& rendered, bool quoted) {
    const auto it = variables_.find(name);
    if (it == variables_.end()) {
      append_unknown(rendered, "$" + name + " is not set in the script (it would come from the environment)");
      return;
    }
    if (it->second.unknown) {
      const std::vector<std::string> pieces =
          quoted || !split_ || it->second.values.empty() ? std::vector<std::string>{} : top_level_fields(it->second.values.front());
      if (pieces.size() <= 1) {
        append_unknown(rendered, *it->second.unknown);
        // Known in part (`CONFIG_PATH="$(pwd)/configs"`): the field with its value in its place.
        if (!it->second.values.empty() && has_known_part(it->second.values.front())) {
          partial_values_.push_back({fields_.size() - 1, std::string(rendered), it->second.values.front()});
        }
        return;
      }
      // A value known only in part (`A="x=1 y=$HOME/z"`), split on blanks as bash would: the
      // unknown parts are rendered as written (`$HOME`, `$(...)`, a backtick), so only the
      // fields holding one are unknown.
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        if (k > 0 && (!fields_.back().text.empty() || fields_.back().unknown)) fields_.push_back({});
        if (pieces[k].find_first_of("$`") != std::string::npos) {
          append_unknown(pieces[k], *it->second.unknown);
          fields_.back().partial = fields_.back().text;  // its known parts say more than its name
        } else {
          append(pieces[k]);
        }
      }
      return;
    }
    const std::string value = it->second.values.empty() ? "" : it->second.values.front();
    append_value(value, quoted,
                 "$" + name + " (line " + std::to_string(it->second.location.line) + ": '" + value + "')");
  }

  // `value` split on blanks, except blanks inside a rendered `$(...)`, `${...}` or backticks.
  static std::vector<std::string> top_level_fields(const std::string& value) {
    std::vector<std::string> pieces(1);
    int depth = 0;
    bool backtick = false;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const char c = value[i];
      if (c == '`') backtick = !backtick;
      if (c == '$' && i + 1 < value.size() && (value[i + 1] == '(' || value[i + 1] == '{')) {
        ++depth;
        pieces.back() += value[i++];
      } else if ((c == '(' || c == '{') && depth > 0) {
        ++depth;  // a bracket inside a construct: $(( a * $(( b )) )) closes only at its own pair
      } else if ((c == ')' || c == '}') && depth > 0) {
        --depth;
      } else if (depth == 0 && !backtick && (c == ' ' || c == '\t' || c == '\n')) {
        if (!pieces.back().empty()) pieces.emplace_back();
        continue;
      }
      pieces.back() += value[i];
    }
    if (pieces.back().empty()) pieces.pop_back();
    return pieces;
  }

  const ShellVariable* lookup(const std::string& name) const {
    const auto it = variables_.find(name);
    return it == variables_.end() ? nullptr : &it->second;
  }

  // ${...} bodies: NAME, NAME:-d, NAME-d, NAME:=d, NAME=d, NAME:+a, NAME[@], NAME[i], #NAME, #NAME[@].
  void braced(std::string_view body, const std::string& rendered, bool quoted) {
    if (!body.empty() && body[0] == '#') {
      std::string name(body.substr(1));
      const bool array_count = name.size() > 3 && name.compare(name.size() - 3, 3, "[@]") == 0;
      if (array_count) name.resize(name.size() - 3);
      const ShellVariable* var = lookup(name);
      if (var == nullptr || var->unknown) {
        append_unknown(rendered, "${" + std::string(body) + "} is not known statically");
        return;
      }
      append_value(std::to_string(array_count ? var->values.size()
                                              : (var->values.empty() ? 0 : var->values.front().size())),
                   quoted);
      return;
    }
    if (body.starts_with("@:") || body.starts_with("*:")) {  // ${@:2}: the script's arguments from the 2nd on
      result_.used_positional_all = true;
      return;
    }
    std::size_t name_end = 0;
    while (name_end < body.size() && is_name_char(body[name_end])) ++name_end;
    const std::string name(body.substr(0, name_end));
    std::string_view rest = body.substr(name_end);
    if (name.empty()) {
      append_unknown(rendered, "${" + std::string(body) + "} is not supported");
      return;
    }
    if (!rest.empty() && rest[0] == '[') {
      array_element(name, rest, rendered, quoted);
      return;
    }
    const bool positional_param = std::isdigit(static_cast<unsigned char>(name[0]));
    const ShellVariable* var = positional_param ? nullptr : lookup(name);
    const bool colon = !rest.empty() && rest[0] == ':';
    std::string_view op = colon ? rest.substr(1) : rest;
    const bool is_set = var != nullptr;
    const bool is_null = var != nullptr && !var->unknown && (var->values.empty() || var->values.front().empty());
    if (rest.empty()) {
      if (positional_param) return positional(name, rendered);
      return variable(name, rendered, quoted);
    }
    const char kind = op.empty() ? '\0' : op[0];
    const std::string_view operand = op.empty() ? op : op.substr(1);
    if (kind != '-' && kind != '=' && kind != '+' && kind != '?') {
      append_unknown(rendered, "${" + std::string(body) + "} (pattern or case operations) is not evaluated");
      return;
    }
    if (var != nullptr && var->unknown && kind != '+') {
      append_unknown(rendered, *var->unknown);
      return;
    }
    const bool use_operand = (kind == '+') ? (is_set && !(colon && is_null)) : (!is_set || (colon && is_null));
    if (kind == '+') {
      if (use_operand) expand_into(operand, quoted);
      return;
    }
    if (!use_operand) return variable(name, rendered, quoted);
    if (kind == '?') {
      append_unknown(rendered, "${" + std::string(body) + "}: bash would stop with an error (unset)");
      return;
    }
    const ShellField value = expand_operand(operand, quoted);
    if (kind == '=' && !positional_param) {
      ShellVariable& assigned = variables_[name];
      assigned.values = {value.text};
      assigned.unknown = value.unknown;
    }
    if (value.unknown) {
      append_unknown(value.text, *value.unknown);
    } else {
      append_value(value.text, quoted);
    }
  }

  // A word inside this one ($(( ... )), ${NAME:-...}), expanded one level deeper.
  ShellExpansion nested(std::string_view word) {
    if (depth_ >= kMaxNesting) {
      const std::string reason = "expansions nested deeper than " + std::to_string(kMaxNesting) + " levels";
      if (result_.problems.empty()) result_.problems.push_back(reason);
      ShellExpansion refused;
      refused.fields.push_back({std::string(word), reason, 0});
      return refused;
    }
    ShellExpansion inner = Expander(variables_, false, depth_ + 1).run(word);
    for (std::string& problem : inner.problems) result_.problems.push_back(std::move(problem));
    return inner;
  }

  // The word of ${NAME:-word} (and =, +). Inside double quotes bash keeps its single quotes
  // literally ("${T:-['a']}" is ['a'], as in bash 5.2 and dash): they are escaped before the word
  // is expanded one level deeper.
  ShellField expand_operand(std::string_view operand, bool quoted) {
    std::string literal_quotes;
    if (quoted) {
      for (const char c : operand) {
        if (c == '\'') literal_quotes += '\\';
        literal_quotes += c;
      }
      operand = literal_quotes;
    }
    ShellExpansion inner = nested(operand);
    ShellField joined;
    for (const ShellField& field : inner.fields) {
      joined.text += field.text;
      if (field.unknown && !joined.unknown) joined.unknown = field.unknown;
    }
    return joined;
  }

  void expand_into(std::string_view operand, bool quoted) {
    const ShellField value = expand_operand(operand, quoted);
    if (value.unknown) {
      append_unknown(value.text, *value.unknown);
    } else {
      append_value(value.text, quoted);
    }
  }

  void array_element(const std::string& name, std::string_view subscript, const std::string& rendered, bool quoted) {
    const ShellVariable* var = lookup(name);
    if (var == nullptr || var->unknown) {
      append_unknown(rendered, var == nullptr ? "array " + name + " is not set in the script" : *var->unknown);
      if (var != nullptr) fields_.back().alternatives = var->alternatives;
      return;
    }
    if (subscript == "[@]" || subscript == "[*]") {
      // "${A[@]}": one field per element; unquoted: each element is split again.
      for (std::size_t k = 0; k < var->values.size(); ++k) {
        if (k > 0) {
          if (quoted && subscript == "[@]") {
            fields_.push_back({});
          } else {
            append_value(" ", quoted);
          }
        }
        if (k < var->lines.size()) fields_.back().line = var->lines[k];
        if (k < var->element_unknown.size() && var->element_unknown[k]) {
          append_unknown(var->values[k], *var->element_unknown[k]);
        } else {
          append_value(var->values[k], quoted);
        }
      }
      return;
    }
    std::string why;
    const std::string index_text(subscript.substr(1, subscript.size() - 2));
    const auto index = evaluate_arithmetic(index_text, variables_, why);
    if (!index || *index < 0 || static_cast<std::size_t>(*index) >= var->values.size()) {
      if (!index) {
        append_unknown(rendered, "index of " + rendered + ": " + why);
      }
      return;
    }
    append_value(var->values[static_cast<std::size_t>(*index)], quoted);
  }

  ShellVariables& variables_;
  bool split_;
  int depth_ = 0;
  std::vector<ShellField> fields_;
  ShellExpansion result_;
};

}  // namespace

ShellExpansion expand_shell_word(std::string_view word, ShellVariables& variables, bool split) {
  return Expander(variables, split).run(word);
}

}  // namespace meshplan
