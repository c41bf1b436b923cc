#include "hardware/yaml_fields.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.hpp"

namespace meshplan {

Result<YAML::Node> parse_yaml_text(std::string_view text, std::string_view file_name) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (!root.IsDefined() || root.IsNull()) return Error{std::string(file_name), 1, "", "the file is empty"};
    return root;
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    return Error{std::string(file_name), line, "", "malformed YAML/JSON: " + e.msg};
  }
}

int yaml_line(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

YamlMapReader::YamlMapReader(const YAML::Node& map, std::string file, std::string path)
    : map_(map), file_(std::move(file)), path_(std::move(path)) {}

std::string YamlMapReader::key_path(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  if (key.empty()) return path_;
  return path_ + "." + std::string(key);
}

int YamlMapReader::line() const { return yaml_line(map_); }

Error YamlMapReader::error(std::string_view key, std::string message) const {
  int line_number = line();
  if (map_.IsMap()) {
    for (const auto& entry : map_) {
      // The key's own line: an empty value's position is the next token's.
      if (entry.first.IsScalar() && entry.first.Scalar() == key) line_number = yaml_line(entry.first);
    }
  }
  return Error{file_, line_number, key_path(key), std::move(message)};
}

Status YamlMapReader::check_keys(std::span<const std::string> allowed) const {
  if (!map_.IsMap()) return Error{file_, line(), path_, "expected a mapping of keys to values"};
  std::vector<std::string> seen;
  for (const auto& entry : map_) {
    if (!entry.first.IsScalar()) return Error{file_, yaml_line(entry.first), path_, "keys must be plain names"};
    const std::string key = entry.first.Scalar();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      return Error{file_, yaml_line(entry.first), key_path(key), "key given twice"};
    }
    seen.push_back(key);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = fmt::format("unknown key '{}'", key);
    if (const auto near = nearest_match(key, allowed)) message += fmt::format("; did you mean '{}'?", *near);
    std::string known;
    for (const std::string& name : allowed) known += (known.empty() ? "" : ", ") + name;
    message += " (known keys: " + known + ")";
    return Error{file_, yaml_line(entry.first), key_path(key), message};
  }
  return Ok{};
}

bool YamlMapReader::has(std::string_view key) const {
  return map_.IsMap() && map_[std::string(key)].IsDefined();
}

Result<YAML::Node> YamlMapReader::value(std::string_view key) const {
  if (!has(key)) return error(key, "missing required key");
  return map_[std::string(key)];
}

Result<YAML::Node> YamlMapReader::scalar(std::string_view key) const {
  auto node = value(key);
  if (!node.ok()) return node;
  if (node->IsNull()) return error(key, "has no value");
  if (!node->IsScalar()) return error(key, "expected a single value, not a list or mapping");
  return node;
}

Result<std::string> YamlMapReader::text(std::string_view key) const {
  auto node = scalar(key);
  if (!node.ok()) return node.error();
  if (node->Scalar().empty()) return error(key, "must not be empty");
  return node->Scalar();
}

Result<std::vector<std::string>> YamlMapReader::text_list(std::string_view key) const {
  auto node = value(key);
  if (!node.ok()) return node.error();
  if (!node->IsSequence()) return error(key, "expected a list of names");
  std::vector<std::string> items;
  for (const YAML::Node& item : *node) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      return Error{file_, yaml_line(item), key_path(key), "every entry must be a non-empty name"};
    }
    items.push_back(item.Scalar());
  }
  return items;
}

Result<bool> YamlMapReader::boolean(std::string_view key) const {
  auto node = scalar(key);
  if (!node.ok()) return node.error();
  const std::string value = node->Scalar();
  if (node->Tag() != "!" && (value == "true" || value == "false")) return value == "true";
  return error(key, fmt::format("expected true or false, got '{}'", value));
}

Result<double> YamlMapReader::number(std::string_view key, double min, double max) const {
  auto node = scalar(key);
  if (!node.ok()) return node.error();
  const std::string raw = node->Scalar();
  // A quoted scalar ("12") is a string in JSON and YAML alike: a type error, not a number.
  double parsed = 0;
  if (node->Tag() == "!" || !YAML::convert<double>::decode(*node, parsed) || !std::isfinite(parsed)) {
    return error(key, fmt::format("expected a number, got '{}'", raw));
  }
  if (parsed < min || parsed > max) {
    return error(key, fmt::format("{} is out of range: expected {:g} to {:g}", raw, min, max));
  }
  return parsed;
}

Result<std::int64_t> YamlMapReader::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  auto parsed = number(key, static_cast<double>(min), static_cast<double>(max));
  if (!parsed.ok()) return parsed.error();
  if (std::floor(*parsed) != *parsed) return error(key, fmt::format("expected a whole number, got {:g}", *parsed));
  return static_cast<std::int64_t>(*parsed);
}

}  // namespace meshplan
