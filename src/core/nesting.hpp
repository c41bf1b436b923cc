#pragma once
// A bound on the nesting of JSON text, checked before parsing: every reader that walks a parsed
// document recursively relies on it instead of on the stack's size.
#include <cstddef>
#include <string_view>

namespace meshplan {

/// Arrays and objects nested deeper than this are refused (real configs nest under 10 levels;
/// nlohmann::json itself has no limit, Python's json stops near 1000).
inline constexpr std::size_t kMaxJsonNesting = 512;

/// Byte offset of the first '[' or '{' (outside strings) that opens level kMaxJsonNesting + 1,
/// or npos when the text stays within the bound.
std::size_t json_nesting_overflow(std::string_view text);

}  // namespace meshplan
