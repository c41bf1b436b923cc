#pragma once
// Typed, validated reads of one YAML/JSON mapping (yaml-cpp reads both), with errors that name
// the file, the 1-based line (yaml-cpp Mark) and the dotted key. Shared by the GPU catalog and the
// cluster file readers. yaml-cpp itself stays in the .cpp files: YAML::Node is only declared here.
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

/// Evaluates a Result-returning expression into `target`, or returns its Error from the enclosing
/// function (which must return a Result or Status).
#define MESHPLAN_READ(target, expression)                \
  do {                                                   \
    auto read_result_ = (expression);                    \
    if (!read_result_.ok()) return read_result_.error(); \
    target = std::move(read_result_).value();            \
  } while (false)

namespace YAML {
class Node;
}

namespace meshplan {

/// Parses YAML or JSON text; a syntax error becomes an Error at the offending line.
Result<YAML::Node> parse_yaml_text(std::string_view text, std::string_view file_name);

/// Runs a reader, turning an exception that escapes it (yaml-cpp throws on misuse of a node: a
/// reader bug, never the user's) into an Error naming the file instead of a crash.
template <class Read>
auto guard_yaml_reader(std::string_view file_name, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::exception& e) {
    return Error{std::string(file_name), 0, "", std::string("could not read the file: ") + e.what()};
  }
}

/// 1-based line of a node (0 when the node has no position).
int yaml_line(const YAML::Node& node);

/// Reads the fields of one mapping. `path` prefixes keys in errors ("gpus[3]" -> "gpus[3].fp8_flops").
class YamlMapReader {
 public:
  YamlMapReader(const YAML::Node& map, std::string file, std::string path);

  /// The node is a mapping whose keys are all in `allowed`; otherwise an Error with "did you mean".
  Status check_keys(std::span<const std::string> allowed) const;

  bool has(std::string_view key) const;
  Result<std::string> text(std::string_view key) const;
  Result<std::vector<std::string>> text_list(std::string_view key) const;
  Result<bool> boolean(std::string_view key) const;
  /// A finite number in [min, max]; quoted strings are a type error.
  Result<double> number(std::string_view key, double min, double max) const;
  /// A whole number in [min, max].
  Result<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  /// The value node of a key that must be present.
  Result<YAML::Node> value(std::string_view key) const;

  /// An Error at `key` (its line when present, else the mapping's line).
  Error error(std::string_view key, std::string message) const;
  std::string key_path(std::string_view key) const;
  const std::string& file() const { return file_; }
  int line() const;

 private:
  Result<YAML::Node> scalar(std::string_view key) const;

  // The mapping is owned by the caller and must outlive the reader.
  const YAML::Node& map_;
  std::string file_;
  std::string path_;
};

}  // namespace meshplan
