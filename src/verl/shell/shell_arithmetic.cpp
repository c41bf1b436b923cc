// Bash arithmetic $(( ... )) on integers, evaluated statically (bash manual, "Shell Arithmetic").
// Every operation is checked: a result outside 64 bits, INT64_MIN / -1, a negative exponent or
// nesting deeper than kMaxNesting make the value unknown with a reason (bash itself wraps
// around or stops with "expression recursion level exceeded" at 1024 levels, expr.c).
#include <cctype>
#include <limits>
#include <string>

#include "verl/shell/shell_expansion.hpp"

namespace meshplan {
namespace {

/// Parenthesis and unary-operator nesting allowed in one expression; deeper input is refused
/// instead of exhausting the stack (bash's own limit is 1024, MAX_EXPR_RECURSION_LEVEL).
constexpr int kMaxNesting = 256;

class Arithmetic {
 public:
  Arithmetic(std::string_view text, const ShellVariables& variables, std::string& why, bool& refused, int depth = 0)
      : text_(text), variables_(variables), why_(why), refused_(refused), depth_(depth) {}

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
  // What bash would evaluate differently (wrap around) or refuse: not merely unknown.
  std::optional<long long> refuse(const std::string& what) {
    refused_ = true;
    return fail(what);
  }
  std::optional<long long> overflow() { return refuse("the value does not fit in 64 bits (bash wraps around)"); }

  /// Counts one nesting level for the lifetime of a recursive call.
  struct Nest {
    explicit Nest(int& level) : level_(level) { ++level_; }
    ~Nest() { --level_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    int& level_;
  };
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
        if (__builtin_add_overflow(*left, *right, &*left)) return overflow();
      } else if (eat("-")) {
        auto right = product();
        if (!right) return right;
        if (__builtin_sub_overflow(*left, *right, &*left)) return overflow();
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
      if (op == '*') {
        if (__builtin_mul_overflow(*left, *right, &*left)) return overflow();
        continue;
      }
      if (*right == 0) return refuse("division by zero");
      if (*right == -1 && *left == std::numeric_limits<long long>::min()) return overflow();
      *left = op == '/' ? *left / *right : *left % *right;
    }
    return left;
  }

  std::optional<long long> power() {
    auto base = unary();
    if (base && eat("**")) {
      const Nest nest(nesting_);
      auto exponent = power();
      if (!exponent) return exponent;
      if (*exponent < 0) return refuse("exponent less than 0");
      // Square-and-multiply: at most 63 squarings, each checked.
      long long result = 1, factor = *base;
      for (long long e = *exponent; e > 0; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(result, factor, &result)) return overflow();
        if (e > 1 && __builtin_mul_overflow(factor, factor, &factor)) return overflow();
      }
      return result;
    }
    return base;
  }

  std::optional<long long> unary() {
    const Nest nest(nesting_);
    if (nesting_ > kMaxNesting) return refuse("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    if (eat("-")) {
      auto value = unary();
      if (value && *value == std::numeric_limits<long long>::min()) return overflow();
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
    auto value = Arithmetic(it->second.values.front(), variables_, nested_why, refused_, depth_ + 1).run();
    if (!value) return fail("'" + token + "' is not a number: " + nested_why);
    return value;
  }

  std::string_view text_;
  const ShellVariables& variables_;
  std::string& why_;
  bool& refused_;
  int depth_ = 0;
  int nesting_ = 0;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<long long> evaluate_arithmetic(std::string_view expression, const ShellVariables& variables,
                                             std::string& why, bool* refused) {
  bool refused_here = false;
  auto value = Arithmetic(expression, variables, why, refused_here).run();
  if (refused != nullptr) *refused = refused_here;
  return value;
}

}  // namespace meshplan
