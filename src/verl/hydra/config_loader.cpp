#include "verl/hydra/config_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <map>

#include "core/nesting.hpp"
#include "core/text.hpp"
#include "data/embedded.hpp"
#include "verl/hydra/hydra_value.hpp"

namespace meshplan {
namespace {

constexpr const char* kSchemaFile = "verl/verl_schema.json";

ConfigNode from_yaml_node(const YAML::Node& node, const std::string& file) {
  ConfigNode out;
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out = ConfigNode::make_map();
      for (const auto& entry : node) out.set_child(entry.first.as<std::string>(), from_yaml_node(entry.second, file));
      break;
    case YAML::NodeType::Sequence:
      out.kind = NodeKind::list;
      for (const auto& item : node) out.items.push_back(from_yaml_node(item, file));
      break;
    case YAML::NodeType::Scalar:
      out = node.Tag() == "!" ? ConfigNode::make_string(node.Scalar()) : type_plain_scalar(node.Scalar());
      break;
    default:
      out = ConfigNode::make_null();
  }
  out.origin = SourceLocation{file, node.Mark().line + 1};
  return out;
}

ConfigNode from_json(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      ConfigNode out = ConfigNode::make_map();
      for (const auto& [key, child] : value.items()) out.set_child(key, from_json(child));
      return out;
    }
    case nlohmann::json::value_t::array: {
      ConfigNode out;
      out.kind = NodeKind::list;
      for (const auto& child : value) out.items.push_back(from_json(child));
      return out;
    }
    case nlohmann::json::value_t::boolean: return ConfigNode::make_bool(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return ConfigNode::make_int(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_float: return ConfigNode::make_float(value.get<double>());
    case nlohmann::json::value_t::string: {
      const auto text = value.get<std::string>();
      if (text == "???") return type_plain_scalar(text);
      return ConfigNode::make_string(text);
    }
    default: return ConfigNode::make_null();
  }
}

}  // namespace

Result<ConfigNode> config_from_yaml(std::string_view text, const std::string& file_name) {
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (root.IsNull()) return ConfigNode::make_map();
    if (!root.IsMap()) return Error{file_name, root.Mark().line + 1, "", "a config file must be a YAML mapping"};
    return from_yaml_node(root, file_name);
  } catch (const YAML::Exception& e) {
    return Error{file_name, e.mark.line + 1, "", "invalid YAML: " + e.msg};
  }
}

Result<ConfigNode> config_from_json(std::string_view text, const std::string& file_name) {
  if (const std::size_t at = json_nesting_overflow(text); at != std::string_view::npos) {
    return Error{file_name, line_of_offset(text, at), "",
                 "JSON nested deeper than " + std::to_string(kMaxJsonNesting) + " levels"};
  }
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return Error{file_name, 0, "", "invalid JSON object"};
  return from_json(parsed);
}

namespace {

// The schema parsed once (it is immutable and every check needs it).
struct ParsedSchema {
  std::map<std::string, ConfigNode, std::less<>> configs;
  std::string source;
  bool valid = false;
};

const ParsedSchema& parsed_schema() {
  static const ParsedSchema schema = [] {
    ParsedSchema out;
    const auto text = embedded_file(kSchemaFile);
    if (!text) return out;
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
    if (json.is_discarded() || !json.contains("configs")) return out;
    for (const auto& [name, tree] : json["configs"].items()) out.configs.emplace(name, from_json(tree));
    out.source = json.value("source", "");
    out.valid = true;
    return out;
  }();
  return schema;
}

}  // namespace

Result<ConfigNode> embedded_verl_base(std::string_view name) {
  const ParsedSchema& schema = parsed_schema();
  if (!schema.valid) return Error{kSchemaFile, 0, "", "the verl schema is missing or invalid in this build"};
  const auto it = schema.configs.find(name);
  if (name.empty()) {
    return Error{"", 0, "--config-name",
                 "the launch's --config-name is empty (a positional parameter or variable the script leaves unset); "
                 "give --config-name ppo_trainer|ppo_megatron_trainer, or --verl-config DIR"};
  }
  if (it == schema.configs.end()) {
    std::string known;
    for (const auto& [config_name, unused] : schema.configs) known += (known.empty() ? "" : ", ") + config_name;
    return Error{"", 0, "--config-name", "unknown verl config '" + std::string(name) + "' (embedded: " + known +
                                             "; use --verl-config DIR for your own config directory)"};
  }
  return it->second;
}

std::string embedded_verl_source() { return parsed_schema().source; }

}  // namespace meshplan
