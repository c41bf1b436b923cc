#include "verl/schema/engine_requirement.hpp"

#include <cctype>

namespace meshplan {

std::optional<std::vector<int>> release_number(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  std::vector<int> parts;
  int value = -1;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
      if (value > 1'000'000) return std::nullopt;
    } else if (c == '.' || std::isalpha(static_cast<unsigned char>(c))) {
      if (value >= 0) parts.push_back(value);  // "post5", "rc1": the number after the letters counts
      value = -1;
    } else {
      return std::nullopt;
    }
  }
  if (value >= 0) parts.push_back(value);
  if (parts.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  return parts;
}

bool admits_newer(std::string_view spec, const std::vector<int>& newest_read) {
  std::optional<std::vector<int>> upper;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    std::string_view clause = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
    const bool bounds = clause.starts_with("==") || clause.starts_with("<=") ||
                        (clause.starts_with("<") && !clause.starts_with("<="));
    if (!bounds) continue;
    clause.remove_prefix(clause.starts_with("<") && !clause.starts_with("<=") ? 1 : 2);
    const auto number = release_number(clause);
    if (!number) return true;  // a bound not understood: nothing is certain
    if (!upper || *number < *upper) upper = number;
  }
  return !upper || *upper > newest_read;
}

}  // namespace meshplan
