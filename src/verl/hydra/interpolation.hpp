#pragma once
// OmegaConf interpolation resolution, as OmegaConf.resolve() does it (omegaconf 2.3):
// `${a.b}` absolute, `${.sibling}` / `${..uncle}` relative to the containing node,
// `${oc.select:key,default}` (default when the key is missing), `${oc.env:VAR,default}`
// (statically: the default, else unknown); strings with embedded interpolations are joined.
#include <vector>

#include "verl/hydra/config_node.hpp"

namespace meshplan {

/// Replaces every interpolation in `root` by its value; a finding (rule `config.interpolation`)
/// for each reference OmegaConf could not resolve (missing key, cycle).
std::vector<Finding> resolve_interpolations(ConfigNode& root);

}  // namespace meshplan
