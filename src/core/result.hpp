#pragma once
// Errors are values until the CLI turns them into a message and exit code 2
// (docs: ARCHITECTURE.md, "Errors are values").
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace meshplan {

/// What went wrong with an input, and where: file, line and key whenever they are known.
struct Error {
  std::string file;     ///< input file ("" when not from a file, e.g. a command-line flag)
  int line = 0;         ///< 1-based line in `file`; 0 when unknown
  std::string key;      ///< config key, JSON field or flag involved ("" when none)
  std::string message;  ///< what is wrong and, where possible, what would be right

  /// "file:line: key: message", leaving out the parts that are unknown.
  std::string to_string() const;
};

/// Either a value or an Error. Small on purpose: ok(), value(), error().
template <class T>
class Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const { return std::get<1>(state_); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> state_;
};

/// A Result that carries no value: success or an Error.
struct Ok {};
using Status = Result<Ok>;

}  // namespace meshplan
