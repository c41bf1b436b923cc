#pragma once
// Typed, validated access to the fields of a parsed config.json, for the architecture readers.
// The first problem found is kept as the one Error the reader returns (file, line, key); later
// accessors return harmless placeholders so a reader can be written as straight-line code and
// checked once at the end. The JSON library stays inside config_fields.cpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace meshplan {

/// Largest accepted value of a width (hidden, ffn, head_dim, ...): anything above is a typo.
inline constexpr std::int64_t kMaxWidth = 1'000'000;
inline constexpr std::int64_t kMaxLayers = 10'000;
inline constexpr std::int64_t kMaxVocab = 10'000'000;
inline constexpr std::int64_t kMaxPositions = 1'000'000'000;

class ConfigFields {
 public:
  /// Parses `text`; a malformed or truncated document, or one that is not an object, is an
  /// Error at the line of the failure.
  static Result<ConfigFields> parse(std::string_view text, std::string_view source_name);

  /// The object under `key` (e.g. "text_config"); a missing or non-object value is an error.
  ConfigFields section(std::string_view key) const;
  /// Whether `key` is present with a non-null value.
  bool has(std::string_view key) const;
  /// Adds to this section each key of `defaults_json` (a JSON object: the reader's constant, the
  /// defaults of the architecture's Hugging Face config class) that the section lacks, so the
  /// readers see what transformers would. A broken section is left alone.
  void add_defaults(std::string_view defaults_json) const;

  /// An integer in [1, max]. Missing, wrong type or out of range: error.
  std::int64_t positive(std::string_view key, std::int64_t max) const;
  /// As positive(), or `fallback` when the key is absent or null.
  std::int64_t positive_or(std::string_view key, std::int64_t fallback, std::int64_t max) const;
  /// An integer in [0, max], or `fallback` when absent or null.
  std::int64_t count_or(std::string_view key, std::int64_t fallback, std::int64_t max) const;
  bool flag_or(std::string_view key, bool fallback) const;
  /// A finite number, or `fallback` when absent or null; a non-number is an error.
  double number_or(std::string_view key, double fallback) const;
  /// A number in [0, 1] (a rate such as a dropout probability), or `fallback` when absent or null.
  double fraction_or(std::string_view key, double fallback) const;
  /// A string, or "" when absent or null; a non-string is an error.
  std::string text_or_empty(std::string_view key) const;
  /// A list of integers in [0, max] (absent or null: empty).
  std::vector<std::int64_t> integers(std::string_view key, std::int64_t max) const;
  /// A list of strings (absent or null: empty).
  std::vector<std::string> texts(std::string_view key) const;

  /// Records `message` about `key` unless an earlier error is already recorded.
  void fail(std::string_view key, std::string message) const;
  bool failed() const;
  /// The first recorded error (call only when failed()).
  const Error& error() const;
  const std::string& source_name() const;

 private:
  struct Document;
  ConfigFields(std::shared_ptr<Document> document, std::vector<std::string> path);
  std::string dotted(std::string_view key) const;

  std::shared_ptr<Document> document_;
  std::vector<std::string> path_;  ///< keys from the top level to this section
};

}  // namespace meshplan
