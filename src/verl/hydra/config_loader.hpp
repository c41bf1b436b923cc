#pragma once
// Reading a configuration tree from YAML (a user's verl config, a config directory, or the
// embedded config tree of a verl version, hydra/verl_base.hpp).
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"

namespace meshplan {

/// A YAML document as a tree; every node's origin is file:line. Plain scalars are typed as
/// OmegaConf does, quoted ones stay strings, `???` is a missing mandatory value.
Result<ConfigNode> config_from_yaml(std::string_view text, const std::string& file_name);

}  // namespace meshplan
