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

namespace {

/// The comma-separated clauses of `spec`, leading blanks dropped.
std::vector<std::string_view> clauses(std::string_view spec) {
  std::vector<std::string_view> out;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    std::string_view clause = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
    out.push_back(clause);
  }
  return out;
}

/// The tightest upper bound of `spec` (==, <= or <; `strict` for <); nullopt when it has none.
/// `understood` turns false on a bound that is not a release number.
std::optional<std::vector<int>> upper_bound(std::string_view spec, bool& strict, bool& understood) {
  std::optional<std::vector<int>> upper;
  understood = true;
  for (std::string_view clause : clauses(spec)) {
    const bool less = clause.starts_with("<") && !clause.starts_with("<=");
    if (!(clause.starts_with("==") || clause.starts_with("<=") || less)) continue;
    clause.remove_prefix(less ? 1 : 2);
    const auto number = release_number(clause);
    if (!number) {
      understood = false;
      return std::nullopt;
    }
    if (!upper || *number < *upper || (*number == *upper && less)) {
      upper = number;
      strict = less;
    }
  }
  return upper;
}

}  // namespace

bool oldest_admitted_after(std::string_view spec, const std::vector<int>& release) {
  for (std::string_view clause : clauses(spec)) {
    const bool above = clause.starts_with(">") && !clause.starts_with(">=");
    if (!(clause.starts_with(">=") || clause.starts_with("==") || above)) continue;
    clause.remove_prefix(above ? 1 : 2);
    const auto number = release_number(clause);
    if (number && (*number > release || (above && *number == release))) return true;
  }
  return false;
}

bool newest_admitted_at_least(std::string_view spec, const std::vector<int>& release) {
  bool strict = false, understood = true;
  const auto upper = upper_bound(spec, strict, understood);
  if (!understood || !upper) return true;
  return strict ? *upper > release : *upper >= release;
}

bool admits_newer(std::string_view spec, const std::vector<int>& newest_read) {
  bool strict = false, understood = true;
  const auto upper = upper_bound(spec, strict, understood);
  return !understood || !upper || *upper > newest_read;
}

}  // namespace meshplan
