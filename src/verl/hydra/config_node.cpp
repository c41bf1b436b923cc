#include "verl/hydra/config_node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace meshplan {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::info: return "info";
  }
  return "error";
}

namespace {
/// A node of `kind` whose `member` holds `value` (the other members keep their defaults).
template <class T>
ConfigNode holding(NodeKind kind, T ConfigNode::*member, T value) {
  ConfigNode node;
  node.kind = kind;
  node.*member = std::move(value);
  return node;
}
}  // namespace

ConfigNode::ConfigNode() = default;
ConfigNode::ConfigNode(const ConfigNode&) = default;
ConfigNode::ConfigNode(ConfigNode&&) noexcept = default;
ConfigNode& ConfigNode::operator=(const ConfigNode&) = default;
ConfigNode& ConfigNode::operator=(ConfigNode&&) noexcept = default;
ConfigNode::~ConfigNode() = default;

ConfigNode ConfigNode::make_null() { return {}; }

ConfigNode ConfigNode::make_bool(bool value) {
  return holding(NodeKind::boolean, &ConfigNode::boolean, value);
}

ConfigNode ConfigNode::make_int(std::int64_t value) {
  return holding(NodeKind::integer, &ConfigNode::integer, value);
}

ConfigNode ConfigNode::make_float(double value) {
  return holding(NodeKind::floating, &ConfigNode::floating, value);
}

ConfigNode ConfigNode::make_string(std::string value) {
  return holding(NodeKind::string, &ConfigNode::text, std::move(value));
}

ConfigNode ConfigNode::make_map() {
  ConfigNode node;
  node.kind = NodeKind::map;
  return node;
}

ConfigNode ConfigNode::make_unknown(std::string reason) {
  return holding(NodeKind::unknown, &ConfigNode::text, std::move(reason));
}

bool ConfigNode::has_interpolation() const {
  return kind == NodeKind::string && text.find("${") != std::string::npos;
}

ConfigNode* ConfigNode::child(std::string_view key) {
  if (kind == NodeKind::list) {
    // A list element by its index, as OmegaConf's dotted paths and Hydra's override keys
    // (`trainer.llm_engines.0.model_path`) address it.
    std::size_t index = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (key.empty() || error != std::errc() || end != key.data() + key.size() || index >= items.size()) return nullptr;
    return &items[index];
  }
  if (kind != NodeKind::map) return nullptr;
  for (auto& [name, value] : entries) {
    if (name == key) return &value;
  }
  return nullptr;
}

const ConfigNode* ConfigNode::child(std::string_view key) const {
  return const_cast<ConfigNode*>(this)->child(key);
}

ConfigNode& ConfigNode::set_child(std::string_view key, ConfigNode value) {
  if (ConfigNode* existing = child(key)) {
    *existing = std::move(value);
    return *existing;
  }
  entries.emplace_back(std::string(key), std::move(value));
  return entries.back().second;
}

bool ConfigNode::remove_child(std::string_view key) {
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
  if (it == entries.end()) return false;
  entries.erase(it);
  return true;
}

double ConfigNode::as_double() const {
  if (kind == NodeKind::integer) return static_cast<double>(integer);
  if (kind == NodeKind::floating) return floating;
  return 0;
}

std::string ConfigNode::to_text() const {
  switch (kind) {
    case NodeKind::null: return "null";
    case NodeKind::boolean: return boolean ? "true" : "false";
    case NodeKind::integer: return std::to_string(integer);
    case NodeKind::floating: {
      if (std::isinf(floating)) return floating > 0 ? "inf" : "-inf";
      if (std::isnan(floating)) return "nan";
      std::string shown = fmt::format("{}", floating);
      if (shown.find_first_of(".eE") == std::string::npos) shown += ".0";
      return shown;
    }
    case NodeKind::string: return text;
    case NodeKind::missing: return "???";
    case NodeKind::unknown: return "<unknown: " + text + ">";
    case NodeKind::list: {
      std::string out = "[";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i].to_text();
      return out + "]";
    }
    case NodeKind::map: {
      std::string out = "{";
      for (std::size_t i = 0; i < entries.size(); ++i) {
        out += (i ? "," : "") + entries[i].first + ":" + entries[i].second.to_text();
      }
      return out + "}";
    }
  }
  return "";
}

std::vector<std::string> split_key(std::string_view dotted) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    parts.emplace_back(dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

ConfigNode* find_path(ConfigNode& root, std::string_view dotted) {
  ConfigNode* node = &root;
  for (const std::string& part : split_key(dotted)) {
    node = node->child(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

const ConfigNode* find_path(const ConfigNode& root, std::string_view dotted) {
  return find_path(const_cast<ConfigNode&>(root), dotted);
}

namespace {
void collect_leaves(const ConfigNode& node, const std::string& prefix, std::vector<std::string>& out) {
  if (node.kind != NodeKind::map || (node.entries.empty() && !prefix.empty())) {
    out.push_back(prefix);
    return;
  }
  for (const auto& [name, value] : node.entries) {
    collect_leaves(value, prefix.empty() ? name : prefix + "." + name, out);
  }
}
}  // namespace

std::vector<std::string> leaf_keys(const ConfigNode& root) {
  std::vector<std::string> out;
  collect_leaves(root, "", out);
  return out;
}

}  // namespace meshplan
