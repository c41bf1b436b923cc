#include "verl/config_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "data/embedded.hpp"
#include "verl/hydra_value.hpp"

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
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return Error{file_name, 0, "", "invalid JSON object"};
  return from_json(parsed);
}

Result<ConfigNode> embedded_verl_base(std::string_view name) {
  const auto text = embedded_file(kSchemaFile);
  if (!text) return Error{kSchemaFile, 0, "", "the verl schema is not embedded in this build"};
  const nlohmann::json schema = nlohmann::json::parse(*text, nullptr, false);
  const std::string key(name);
  if (schema.is_discarded() || !schema.contains("configs")) return Error{kSchemaFile, 0, "", "invalid schema"};
  if (!schema["configs"].contains(key)) {
    std::string known;
    for (const auto& [config_name, unused] : schema["configs"].items()) known += (known.empty() ? "" : ", ") + config_name;
    return Error{"", 0, "--config-name", "unknown verl config '" + key + "' (embedded: " + known +
                                             "; use --verl-config DIR for your own config directory)"};
  }
  return from_json(schema["configs"][key]);
}

std::string embedded_verl_source() {
  const auto text = embedded_file(kSchemaFile);
  if (!text) return "";
  const nlohmann::json schema = nlohmann::json::parse(*text, nullptr, false);
  return schema.is_discarded() ? "" : schema.value("source", "");
}

}  // namespace meshplan
