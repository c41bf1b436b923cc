#include "model/config_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/nesting.hpp"
#include "core/text.hpp"

namespace meshplan {

using nlohmann::json;

struct ConfigFields::Document {
  std::string source_name;
  std::string text;
  json root;
  std::optional<Error> error;
};

namespace {

/// Position just past the JSON string that opens at `text[begin]` (a '"').
std::size_t end_of_string(std::string_view text, std::size_t begin) {
  std::size_t i = begin + 1;
  while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
  return std::min(i + 1, text.size());
}

/// 1-based line of the key `key` inside the object reached through `path` from the top level
/// (so "hidden_size" of vision_config is told apart from the top-level one); 0 when absent.
int line_of_nested_key(std::string_view text, const std::vector<std::string>& path, std::string_view key) {
  std::vector<std::string> open;  // for each open container: the key whose value it is
  std::string last_key;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t end = end_of_string(text, i);
      std::size_t next = end;
      while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
      if (next < text.size() && text[next] == ':') {
        last_key = std::string(text.substr(i + 1, end - i - 2));
        const bool at_path = open.size() == path.size() + 1 &&
                             std::equal(path.begin(), path.end(), open.begin() + 1);
        if (at_path && last_key == key) return line_of_offset(text, i);
      }
      i = end - 1;
    } else if (c == '{' || c == '[') {
      open.push_back(c == '{' ? last_key : std::string());
      last_key.clear();
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
    }
  }
  return 0;
}

/// The node at `path` when every step is an object, else nullptr.
const json* node_at(const json& root, const std::vector<std::string>& path) {
  const json* node = &root;
  for (const std::string& step : path) {
    if (!node->is_object()) return nullptr;
    const auto found = node->find(step);
    if (found == node->end()) return nullptr;
    node = &*found;
  }
  return node->is_object() ? node : nullptr;
}

/// The value under `key`, or nullptr when absent (or the section itself is broken).
const json* value_at(const json& root, const std::vector<std::string>& path, std::string_view key) {
  const json* node = node_at(root, path);
  if (node == nullptr) return nullptr;
  const auto found = node->find(std::string(key));
  return found == node->end() ? nullptr : &*found;
}

std::string describe(const json& value) {
  if (value.is_string()) return fmt::format("the string {}", value.dump());
  return fmt::format("{} ({})", value.dump(), value.type_name());
}

/// The integer held by `value` (a float is accepted only when it is a whole number in range).
std::optional<std::int64_t> as_integer(const json& value) {
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<std::int64_t>(number);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) < 9e15) {
      return static_cast<std::int64_t>(number);
    }
  }
  return std::nullopt;
}

}  // namespace

ConfigFields::ConfigFields(std::shared_ptr<Document> document, std::vector<std::string> path)
    : document_(std::move(document)), path_(std::move(path)) {}

Result<ConfigFields> ConfigFields::parse(std::string_view text, std::string_view source_name) {
  auto document = std::make_shared<Document>();
  document->source_name = std::string(source_name);
  document->text = std::string(text);
  if (const std::size_t at = json_nesting_overflow(text); at != std::string_view::npos) {
    return Error{document->source_name, line_of_offset(text, at), "",
                 fmt::format("JSON nested deeper than {} levels", kMaxJsonNesting)};
  }
  try {
    document->root = json::parse(document->text);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based position where parsing stopped (the end for a truncated file).
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const bool truncated = offset + 1 >= document->text.size();
    std::string message = truncated ? "malformed JSON (truncated?): " : "malformed JSON: ";
    message += e.what();
    return Error{document->source_name, line_of_offset(document->text, offset), "", message};
  } catch (const json::out_of_range& e) {
    // A number beyond double's range ("1E400"): nlohmann reports the literal, not its offset.
    const std::string what = e.what();
    const std::size_t open = what.find('\'');
    const std::size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
    const std::size_t at = close == std::string::npos ? close : document->text.find(what.substr(open + 1, close - open - 1));
    return Error{document->source_name, at == std::string::npos ? 0 : line_of_offset(document->text, at), "",
                 "number out of range: " + what};
  }
  if (!document->root.is_object()) {
    return Error{document->source_name, 1, "", fmt::format("expected a JSON object, got {}",
                                                           document->root.type_name())};
  }
  return ConfigFields(std::move(document), {});
}

std::string ConfigFields::dotted(std::string_view key) const {
  std::string name;
  for (const std::string& step : path_) name += step + ".";
  return name + std::string(key);
}

void ConfigFields::fail(std::string_view key, std::string message) const {
  if (document_->error) return;
  int line = line_of_nested_key(document_->text, path_, key);
  if (line == 0 && !path_.empty()) {
    const std::vector<std::string> parent(path_.begin(), path_.end() - 1);
    line = line_of_nested_key(document_->text, parent, path_.back());
  }
  document_->error = Error{document_->source_name, line, dotted(key), std::move(message)};
}

bool ConfigFields::failed() const { return document_->error.has_value(); }
const Error& ConfigFields::error() const { return *document_->error; }
const std::string& ConfigFields::source_name() const { return document_->source_name; }

ConfigFields ConfigFields::section(std::string_view key) const {
  std::vector<std::string> path = path_;
  path.emplace_back(key);
  const json* value = value_at(document_->root, path_, key);
  if (value == nullptr || value->is_null()) {
    fail(key, "required section is missing");
  } else if (!value->is_object()) {
    fail(key, fmt::format("must be an object, got {}", describe(*value)));
  }
  return ConfigFields(document_, std::move(path));
}

bool ConfigFields::has(std::string_view key) const {
  const json* value = value_at(document_->root, path_, key);
  return value != nullptr && !value->is_null();
}

void ConfigFields::add_defaults(std::string_view defaults_json) const {
  json* node = &document_->root;
  for (const std::string& step : path_) {
    if (!node->is_object() || !node->contains(step)) return;
    node = &(*node)[step];
  }
  if (!node->is_object()) return;
  const json defaults = json::parse(defaults_json);
  for (const auto& [key, value] : defaults.items()) {
    if (!node->contains(key)) (*node)[key] = value;
  }
}

std::int64_t ConfigFields::positive(std::string_view key, std::int64_t max) const {
  if (!has(key)) {
    fail(key, value_at(document_->root, path_, key) == nullptr ? "required key is missing"
                                                               : "must be a positive integer, got null");
    return 1;
  }
  return positive_or(key, 1, max);
}

std::int64_t ConfigFields::positive_or(std::string_view key, std::int64_t fallback, std::int64_t max) const {
  const std::int64_t value = count_or(key, fallback, max);
  if (value == 0 && has(key)) {
    fail(key, "must be a positive integer, got 0");
    return 1;
  }
  return value;
}

std::int64_t ConfigFields::count_or(std::string_view key, std::int64_t fallback, std::int64_t max) const {
  const json* value = value_at(document_->root, path_, key);
  if (value == nullptr || value->is_null()) return fallback;
  const std::optional<std::int64_t> number = as_integer(*value);
  if (!number && value->is_number()) {
    fail(key, fmt::format("must be a whole number between 0 and {}, got {}", max, value->dump()));
    return fallback;
  }
  if (!number) {
    fail(key, fmt::format("must be an integer, got {}", describe(*value)));
    return fallback;
  }
  if (*number < 0 || *number > max) {
    fail(key, fmt::format("must be between 0 and {}, got {}", max, value->dump()));
    return fallback;
  }
  return *number;
}

bool ConfigFields::flag_or(std::string_view key, bool fallback) const {
  const json* value = value_at(document_->root, path_, key);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_boolean()) {
    fail(key, fmt::format("must be true or false, got {}", describe(*value)));
    return fallback;
  }
  return value->get<bool>();
}

double ConfigFields::number_or(std::string_view key, double fallback) const {
  const json* value = value_at(document_->root, path_, key);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_number() || !std::isfinite(value->get<double>())) {
    fail(key, fmt::format("must be a number, got {}", describe(*value)));
    return fallback;
  }
  return value->get<double>();
}

double ConfigFields::fraction_or(std::string_view key, double fallback) const {
  const double value = number_or(key, fallback);
  if (value < 0 || value > 1) {
    fail(key, fmt::format("must be a number between 0 and 1, got {}", value));
    return fallback;
  }
  return value;
}

std::string ConfigFields::text_or_empty(std::string_view key) const {
  const json* value = value_at(document_->root, path_, key);
  if (value == nullptr || value->is_null()) return "";
  if (!value->is_string()) {
    fail(key, fmt::format("must be a string, got {}", describe(*value)));
    return "";
  }
  return value->get<std::string>();
}

std::vector<std::int64_t> ConfigFields::integers(std::string_view key, std::int64_t max) const {
  const json* value = value_at(document_->root, path_, key);
  std::vector<std::int64_t> numbers;
  if (value == nullptr || value->is_null()) return numbers;
  if (!value->is_array()) {
    fail(key, fmt::format("must be a list of integers, got {}", describe(*value)));
    return numbers;
  }
  for (const json& item : *value) {
    const std::optional<std::int64_t> number = as_integer(item);
    if (!number || *number < 0 || *number > max) {
      fail(key, fmt::format("must hold integers between 0 and {}, got {}", max, describe(item)));
      return {};
    }
    numbers.push_back(*number);
  }
  return numbers;
}

std::vector<std::string> ConfigFields::texts(std::string_view key) const {
  const json* value = value_at(document_->root, path_, key);
  std::vector<std::string> strings;
  if (value == nullptr || value->is_null()) return strings;
  if (!value->is_array()) {
    fail(key, fmt::format("must be a list of strings, got {}", describe(*value)));
    return strings;
  }
  for (const json& item : *value) {
    if (!item.is_string()) {
      fail(key, fmt::format("must hold strings, got {}", describe(item)));
      return {};
    }
    strings.push_back(item.get<std::string>());
  }
  return strings;
}

}  // namespace meshplan
