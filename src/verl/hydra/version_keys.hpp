#pragma once
// Hydra's unknown-key errors read across the embedded verl versions: a key the chosen verl lacks
// that another embedded verl has is most likely a launch written for that verl.
#include <map>
#include <string>
#include <vector>

#include "verl/rules/finding.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {

/// A key unknown to `chosen` but known to the newest embedded verl: a warning naming both
/// versions (the launch may run a newer verl), not an error.
void note_newer_keys(std::vector<Finding>& findings, const VerlVersion& chosen, const std::string& config_name,
                     const std::map<std::string, std::string>& group_choices);

/// `chosen` was assumed (the launch names no verl): a key it lacks that an older embedded verl
/// has is most likely a key removed since: a warning naming the versions that have it.
void note_older_keys(std::vector<Finding>& findings, const VerlVersion& chosen, const std::string& config_name,
                     const std::map<std::string, std::string>& group_choices);

}  // namespace meshplan
