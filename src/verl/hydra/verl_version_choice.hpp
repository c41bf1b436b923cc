#pragma once
// Which embedded verl a launch is checked against: --verl-version (or the version file of
// --verl-path / a verl found next to the script), else a `verl==X` pin in the script, else the
// newest embedded version; with the one info line that says which and why.
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct VerlVersionChoice {
  VerlVersion version;
  bool assumed = false;     ///< nothing named a verl: the newest embedded
  std::string older_verl;   ///< a checkout's version older than every embedded one ("0.1")
  std::optional<VersionPin> vllm_pin;  ///< `vllm==X` installed by a script (its last pin)
  std::string vllm_pin_file;
  std::vector<Finding> findings;  ///< the info line (rule verl.version)
};

/// Errors (exit 2) for a --verl-version no embedded verl matches. `where` places the info line.
Result<VerlVersionChoice> choose_verl_version(const std::vector<InputText>& inputs, const VerlReadOptions& options,
                                              const SourceLocation& where);

}  // namespace meshplan
