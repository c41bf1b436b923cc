#include "verl/hydra/config_loader.hpp"

#include <yaml-cpp/yaml.h>

#include "verl/hydra/hydra_value.hpp"

namespace meshplan {
namespace {

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

}  // namespace meshplan
