#include "verl/schema/env_value_check.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/text.hpp"
#include "verl/schema/embedded_json.hpp"

namespace meshplan {
namespace {

bool all_of(std::string_view text, bool (*accept)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), accept);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string_view without_sign(std::string_view text) {
  return !text.empty() && (text[0] == '-' || text[0] == '+') ? text.substr(1) : text;
}

// Python int() / std::stoi: an optionally signed decimal integer.
bool is_decimal_int(std::string_view text) { return all_of(without_sign(text), is_digit); }

// C strtoll(text, 0): decimal, 0x hexadecimal or 0-prefixed octal (NCCL_PARAM, NCCL 2.21-2.30
// src/misc/param.cc). NCCL ignores what follows the number, so "true" silently reads as 0.
bool is_c_int(std::string_view text) {
  const std::string_view digits = without_sign(text);
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    return all_of(digits.substr(2), is_hex_digit);
  }
  return all_of(digits, is_digit);
}

std::optional<double> to_double(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_power_of_two(std::string_view text) {
  if (!all_of(text, is_digit) || text.size() > 18) return false;
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value != 0 && (value & (value - 1)) == 0;
}

bool one_of(std::string_view value, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), value) != words.end();
}

// Splits at commas outside [...] (PyTorch's allocator config nests lists in brackets).
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      --depth;
    }
  }
  return parts;
}

// roundup_power2_divisions: N (a power of two) or [size:N,...,>:N] (c10/core/AllocatorConfig.cpp
// parseRoundUpPower2Divisions: sizes and divisions are powers of two, a division may be 0).
std::string roundup_divisions_problem(std::string_view value) {
  if (value.empty() || value.front() != '[')
    return is_power_of_two(value) ? "" : "expects a power of two or [size:N,...]";
  if (value.back() != ']') return "misses the closing ']'";
  for (std::string_view pair : split_top_level(value.substr(1, value.size() - 2))) {
    const std::size_t colon = pair.find(':');
    const std::string_view size = pair.substr(0, colon);
    const std::string_view divisions = colon == std::string_view::npos ? "" : pair.substr(colon + 1);
    if ((size != ">" && !is_power_of_two(size)) || (divisions != "0" && !is_power_of_two(divisions))) {
      return "'" + std::string(pair) + "' is not size:divisions with powers of two";
    }
  }
  return "";
}

std::string range_problem(const nlohmann::json& option, double number) {
  const bool open = option.value("open", false);
  if (option.contains("min")) {
    const double low = option["min"].get<double>();
    if (open ? number <= low : number < low)
      return "must be " + std::string(open ? "> " : ">= ") + fmt::format("{:g}", low);
  }
  if (option.contains("max")) {
    const double high = option["max"].get<double>();
    if (open ? number >= high : number > high)
      return "must be " + std::string(open ? "< " : "<= ") + fmt::format("{:g}", high);
  }
  return "";
}

// PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF: option:value pairs separated by commas (spaces are
// ignored), options and their values as in data/verl/env_vars.json "alloc_conf_options".
std::string alloc_conf_problem(std::string_view value) {
  const nlohmann::json& options = embedded_json("verl/env_vars.json")["alloc_conf_options"]["options"];
  std::string compact;
  for (char c : value) {
    if (c != ' ') compact += c;
  }
  std::vector<std::string> names;
  for (const auto& [name, unused] : options.items()) names.push_back(name);
  for (std::string_view item : split_top_level(compact)) {
    const std::size_t colon = item.find(':');
    const std::string option(item.substr(0, colon));
    if (!options.contains(option)) {
      std::string why = "'" + option + "' is not an allocator option";
      if (auto near = nearest_match(option, names)) why += "; did you mean '" + *near + "'?";
      return why;
    }
    if (colon == std::string_view::npos) return "'" + option + "' has no ':value'";
    const std::string_view setting = item.substr(colon + 1);
    const nlohmann::json& spec = options[option];
    const std::string type = spec["type"].get<std::string>();
    std::string why =
        type == "roundup_divisions" ? roundup_divisions_problem(setting) : env_value_problem(type, setting);
    if (why.empty() && (type == "int" || type == "float")) why = range_problem(spec, *to_double(setting));
    if (!why.empty()) return "'" + std::string(item) + "': " + option + " " + why;
  }
  return "";
}

// CUDA_VISIBLE_DEVICES (CUDA Programming Guide, "CUDA Environment Variables"): empty (no device),
// or a comma-separated list of indices (a negative one ends the list), GPU-<uuid> or MIG-<uuid>/...
std::string devices_problem(std::string_view value) {
  if (value.empty()) return "";
  for (std::string_view item : split_top_level(value)) {
    if (!is_decimal_int(item) && item.rfind("GPU-", 0) != 0 && item.rfind("MIG-", 0) != 0) {
      return "expects comma-separated device indices or GPU-/MIG- UUIDs, not '" + std::string(item) + "'";
    }
  }
  return "";
}

}  // namespace

std::string env_value_problem(std::string_view type, std::string_view value) {
  const std::string lower = to_lower(value);
  if (type == "int") return is_decimal_int(value) ? "" : "expects a decimal integer";
  if (type == "c_int")
    return is_c_int(value) ? "" : "expects an integer (NCCL reads anything else as 0 or stops at it)";
  if (type == "float") return to_double(value) ? "" : "expects a number";
  if (type == "power_of_2") return is_power_of_two(value) ? "" : "expects a power of two";
  if (type == "bool") return value == "0" || value == "1" ? "" : "expects 0 or 1";
  if (type == "yes_no") {
    return one_of(lower, {"1", "y", "yes", "t", "true", "0", "n", "no", "f", "false"})
               ? ""
               : "expects 1/0, y/n, yes/no, t/f or true/false (PyTorch stops with 'Invalid value')";
  }
  if (type == "true_false") {
    return one_of(lower, {"true", "false"})
               ? ""
               : "expects true or false (vLLM compares the value with 'true', so '1' means false)";
  }
  if (type == "flag_or_word")
    return one_of(lower, {"1", "0", "true", "false"}) ? "" : "expects 1, 0, true or false";
  if (type == "devices") return devices_problem(value);
  if (type == "alloc_conf") return alloc_conf_problem(value);
  if (type.rfind("enum:", 0) == 0) {
    std::string_view words = type.substr(5);
    while (!words.empty()) {
      const std::size_t bar = words.find('|');
      if (words.substr(0, bar) == value) return "";
      words = bar == std::string_view::npos ? std::string_view() : words.substr(bar + 1);
    }
    return "expects one of " + std::string(type.substr(5));
  }
  return "";
}

}  // namespace meshplan
