#include "verl/hydra/hydra_value.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "core/text.hpp"

namespace meshplan {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool is_int_text(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_float_text(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  const std::string lower = to_lower(text);
  if (lower == "inf" || lower == "nan") return true;
  bool digits = false, dot = false, exponent = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if (c == '.' && !dot && !exponent) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      digits = false;
      if (i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-')) ++i;
    } else if (c != '_') {
      return false;
    }
  }
  return digits && (dot || exponent);
}

std::string without_underscores(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

/// List and dict nesting allowed in one value; deeper input is refused before the stack runs
/// out (Hydra's ANTLR grammar has no limit of its own; Python stops at its recursion limit).
constexpr int kMaxNesting = 256;

class ValueParser {
 public:
  explicit ValueParser(std::string_view text) : text_(text) {}

  Result<ConfigNode> parse_top() {
    auto value = parse_element(/*top=*/true);
    if (!value.ok()) return value;
    skip_spaces();
    if (pos_ != text_.size()) return fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return value;
  }

 private:
  Result<ConfigNode> fail(const std::string& what) const {
    return Error{"", 0, "", "cannot parse value '" + std::string(text_) + "': " + what};
  }

  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  Result<ConfigNode> parse_element(bool top) {
    skip_spaces();
    if (pos_ >= text_.size()) return top ? ConfigNode::make_string("") : fail("value expected");
    const char c = text_[pos_];
    if ((c == '[' || c == '{') && ++nesting_ > kMaxNesting) {
      return fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    if (c == '[') return parse_list();
    if (c == '{') return parse_dict();
    if (c == '\'' || c == '"') return parse_quoted();
    return parse_primitive(top);
  }

  Result<ConfigNode> parse_quoted() {
    const char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] == quote) ++pos_;
      out += text_[pos_++];
    }
    if (pos_ >= text_.size()) return fail("unterminated quote");
    ++pos_;
    return ConfigNode::make_string(out);
  }

  // Hydra 1.3's ESC token (OverrideLexer.g4): a backslash before one of \\ ( ) [ ] { } : = , and
  // blank or tab stands for that character in unquoted values and dict keys.
  bool escape_at(std::size_t i) const {
    return i + 1 < text_.size() && text_[i] == '\\' && std::string_view("\\()[]{}:=, \t").find(text_[i + 1]) != std::string_view::npos;
  }

  // The text of [start, end) with every ESC replaced by the character it escapes.
  std::string unescaped(std::size_t start, std::size_t end) const {
    std::string out;
    for (std::size_t i = start; i < end; ++i) {
      if (escape_at(i)) ++i;
      out += text_[i];
    }
    return out;
  }

  // An unquoted primitive ends at ',' ']' '}' ':' (inside containers); `${...}` nests.
  Result<ConfigNode> parse_primitive(bool top) {
    const std::size_t start = pos_;
    int depth = 0;
    bool escaped = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (escape_at(pos_)) {
        escaped = true;
        pos_ += 2;
        continue;
      }
      if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
        depth++;
        pos_ += 2;
        continue;
      }
      if (c == '}' && depth > 0) {
        depth--;
        ++pos_;
        continue;
      }
      if (depth == 0 && (c == ',' || c == ']' || c == '}' || (!top && c == ':'))) break;
      ++pos_;
    }
    if (top && pos_ < text_.size() && text_[pos_] == ',') {
      return fail("a top-level ',' makes a sweep (multirun); quote the value or use [a,b] for a list");
    }
    if (escaped) return ConfigNode::make_string(std::string(trim(unescaped(start, pos_))));
    return type_plain_scalar(trim(text_.substr(start, pos_ - start)));
  }

  Result<ConfigNode> parse_list() {
    ++pos_;
    ConfigNode list;
    list.kind = NodeKind::list;
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      --nesting_;
      return list;
    }
    while (true) {
      auto item = parse_element(false);
      if (!item.ok()) return item;
      list.items.push_back(std::move(item.value()));
      skip_spaces();
      if (pos_ >= text_.size()) return fail("missing ']'");
      if (text_[pos_] == ']') {
        ++pos_;
        --nesting_;
        return list;
      }
      if (text_[pos_] != ',') return fail("expected ',' or ']'");
      ++pos_;
    }
  }

  Result<ConfigNode> parse_dict() {
    ++pos_;
    ConfigNode dict = ConfigNode::make_map();
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      --nesting_;
      return dict;
    }
    while (true) {
      skip_spaces();
      const std::size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != ':' && text_[pos_] != '}') pos_ += escape_at(pos_) ? 2 : 1;
      if (pos_ >= text_.size() || text_[pos_] != ':') return fail("expected 'key: value' in a dict");
      const std::string key(trim(unescaped(start, pos_)));
      ++pos_;
      auto value = parse_element(false);
      if (!value.ok()) return value;
      dict.set_child(key, std::move(value.value()));
      skip_spaces();
      if (pos_ >= text_.size()) return fail("missing '}'");
      if (text_[pos_] == '}') {
        ++pos_;
        --nesting_;
        return dict;
      }
      if (text_[pos_] != ',') return fail("expected ',' or '}'");
      ++pos_;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int nesting_ = 0;  ///< lists and dicts open at pos_
};

}  // namespace

ConfigNode type_plain_scalar(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "null" || lower == "~") return ConfigNode::make_null();
  if (lower == "true") return ConfigNode::make_bool(true);
  if (lower == "false") return ConfigNode::make_bool(false);
  if (text == "???") {
    ConfigNode missing;
    missing.kind = NodeKind::missing;
    return missing;
  }
  if (is_int_text(text)) {
    const std::string digits = without_underscores(text[0] == '+' ? text.substr(1) : text);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && end == digits.data() + digits.size()) return ConfigNode::make_int(value);
  }
  if (is_float_text(text)) {
    std::string digits = without_underscores(text[0] == '+' ? text.substr(1) : text);
    const std::string low = to_lower(digits);
    if (low == "inf" || low == "-inf") {
      return ConfigNode::make_float(low[0] == '-' ? -std::numeric_limits<double>::infinity()
                                                  : std::numeric_limits<double>::infinity());
    }
    if (low == "nan" || low == "-nan") return ConfigNode::make_float(std::numeric_limits<double>::quiet_NaN());
    return ConfigNode::make_float(std::strtod(digits.c_str(), nullptr));
  }
  return ConfigNode::make_string(std::string(text));
}

Result<ConfigNode> parse_override_value(std::string_view text) { return ValueParser(text).parse_top(); }

}  // namespace meshplan
