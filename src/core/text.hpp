#pragma once
// Small text helpers shared by every reader: "did you mean" suggestions and positions.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace meshplan {

/// Levenshtein distance, case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` (case-insensitive), if it is close enough to be a plausible
/// typo: distance <= max(2, word.size() / 3). Used for "did you mean ...?" hints.
std::optional<std::string> nearest_match(std::string_view word, std::span<const std::string> candidates);

/// Lower-cases ASCII letters.
std::string to_lower(std::string_view text);

/// 1-based line number of byte `offset` in `text` (offset past the end: the last line).
int line_of_offset(std::string_view text, std::size_t offset);

/// 1-based line of the first occurrence of the JSON key `"key"` in `text`; 0 when absent.
int line_of_json_key(std::string_view text, std::string_view key);

}  // namespace meshplan
