#include "diagnose/python_literal.hpp"

#include <optional>

namespace meshplan {

namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  Reader(std::string_view text, std::map<std::string, std::string, std::less<>>& out) : text_(text), out_(out) {}

  /// Reads a dict at the cursor into out_ under `prefix`; false when the text is malformed.
  bool dict(const std::string& prefix, int depth) {
    if (depth > kMaxDepth || !take('{')) return false;
    if (take('}')) return true;
    while (true) {
      const auto key = string();
      if (!key || !take(':')) return false;
      const std::string path = prefix.empty() ? *key : prefix + "." + *key;
      if (peek() == '{') {
        if (!dict(path, depth + 1)) return false;
      } else {
        const auto leaf = value(depth + 1);
        if (!leaf) return false;
        out_[path] = *leaf;
      }
      if (take('}')) return true;
      if (!take(',')) return false;
      if (take('}')) return true;
    }
  }

 private:
  char peek() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool take(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  /// One quoted string, or several adjacent ones joined ('abc' 'def').
  std::optional<std::string> string() {
    std::string joined;
    bool any = false;
    while (peek() == '\'' || peek() == '"') {
      const char quote = text_[pos_++];
      while (pos_ < text_.size() && text_[pos_] != quote) {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
        joined.push_back(text_[pos_++]);
      }
      if (pos_ >= text_.size()) return std::nullopt;
      ++pos_;
      any = true;
    }
    if (!any) return std::nullopt;
    return joined;
  }

  /// A leaf: string, number, True/False/None, or a list (kept as its text); a dict inside a list
  /// is kept as text too.
  std::optional<std::string> value(int depth) {
    const char c = peek();
    if (c == '\'' || c == '"') return string();
    if (c == '[' || c == '{' || c == '(') {
      if (depth > kMaxDepth) return std::nullopt;
      const std::size_t start = pos_;
      int nesting = 0;
      char quote = '\0';
      for (; pos_ < text_.size(); ++pos_) {
        const char d = text_[pos_];
        if (quote != '\0') {
          if (d == '\\') ++pos_;
          else if (d == quote) quote = '\0';
          continue;
        }
        if (d == '\'' || d == '"') quote = d;
        if (d == '[' || d == '{' || d == '(') ++nesting;
        if ((d == ']' || d == '}' || d == ')') && --nesting == 0) {
          ++pos_;
          return std::string(text_.substr(start, pos_ - start));
        }
      }
      return std::nullopt;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']') ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    while (!word.empty() && (word.back() == ' ' || word.back() == '\n')) word.remove_suffix(1);
    if (word.empty()) return std::nullopt;
    if (word == "None") return std::string("null");
    return std::string(word);
  }

  std::string_view text_;
  std::map<std::string, std::string, std::less<>>& out_;
  std::size_t pos_ = 0;
};

}  // namespace

std::map<std::string, std::string, std::less<>> flatten_python_dict(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  Reader(text, out).dict("", 0);
  return out;
}

}  // namespace meshplan
