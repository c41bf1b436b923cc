// Bash arithmetic $(( ... )) on integers, evaluated statically (bash manual, "Shell Arithmetic").
#include <cctype>
#include <string>

#include "verl/shell/shell_expansion.hpp"

namespace meshplan {
namespace {

class Arithmetic {
 public:
  Arithmetic(std::string_view text, const ShellVariables& variables, std::string& why, int depth = 0)
      : text_(text), variables_(variables), why_(why), depth_(depth) {}

  std::optional<long long> run() {
    auto value = sum();
    skip();
    if (value && pos_ != text_.size()) return fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return value;
  }

 private:
  std::optional<long long> fail(const std::string& what) {
    if (why_.empty()) why_ = what;
    return std::nullopt;
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(std::string_view token) {
    skip();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  std::optional<long long> sum() {
    auto left = product();
    while (left) {
      if (eat("+")) {
        auto right = product();
        if (!right) return right;
        *left += *right;
      } else if (eat("-")) {
        auto right = product();
        if (!right) return right;
        *left -= *right;
      } else {
        break;
      }
    }
    return left;
  }

  std::optional<long long> product() {
    auto left = power();
    while (left) {
      skip();
      if (text_.substr(pos_, 2) == "**") break;
      const char op = pos_ < text_.size() ? text_[pos_] : '\0';
      if (op != '*' && op != '/' && op != '%') break;
      ++pos_;
      auto right = power();
      if (!right) return right;
      if (op != '*' && *right == 0) return fail("division by zero");
      *left = op == '*' ? *left * *right : op == '/' ? *left / *right : *left % *right;
    }
    return left;
  }

  std::optional<long long> power() {
    auto base = unary();
    if (base && eat("**")) {
      auto exponent = power();
      if (!exponent) return exponent;
      long long result = 1;
      for (long long i = 0; i < *exponent; ++i) result *= *base;
      return result;
    }
    return base;
  }

  std::optional<long long> unary() {
    if (eat("-")) {
      auto value = unary();
      if (value) *value = -*value;
      return value;
    }
    if (eat("+")) return unary();
    return primary();
  }

  std::optional<long long> primary() {
    skip();
    if (eat("(")) {
      auto value = sum();
      if (value && !eat(")")) return fail("missing ')'");
      return value;
    }
    if (pos_ < text_.size() && text_[pos_] == '$') ++pos_;  // $name inside $(( )) reads the same
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string token(text_.substr(start, pos_ - start));
    if (token.empty()) return fail("expected a number or a name");
    if (std::isdigit(static_cast<unsigned char>(token[0]))) {
      try {
        return std::stoll(token, nullptr, 0);
      } catch (const std::exception&) {
        return fail("bad number '" + token + "'");
      }
    }
    const auto it = variables_.find(token);
    if (it == variables_.end() || it->second.unknown || it->second.values.empty()) {
      return fail("'" + token + "' is not known statically");
    }
    if (depth_ > 16) return fail("'" + token + "' refers to itself");
    std::string nested_why;
    auto value = Arithmetic(it->second.values.front(), variables_, nested_why, depth_ + 1).run();
    if (!value) return fail("'" + token + "' is not a number: " + nested_why);
    return value;
  }

  std::string_view text_;
  const ShellVariables& variables_;
  std::string& why_;
  int depth_ = 0;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<long long> evaluate_arithmetic(std::string_view expression, const ShellVariables& variables,
                                             std::string& why) {
  return Arithmetic(expression, variables, why).run();
}

}  // namespace meshplan
