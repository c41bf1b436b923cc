#pragma once
// `check` as a library call: read the launch, run every rule table, count the findings.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "verl/verl_launch.hpp"

namespace meshplan {

struct CheckOptions {
  VerlReadOptions read;
  std::string model;  ///< --model: an embedded preset name ("" = from actor_rollout_ref.model.path)
};

struct CheckReport {
  std::string config_name;
  std::string verl_source;        ///< the verl version the schema comes from
  std::vector<Finding> findings;  ///< in input order, then rule order
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};

/// Errors only for unusable input (exit 2); rule violations are findings.
Result<CheckReport> check_launch(const std::vector<InputText>& inputs, const CheckOptions& options);

}  // namespace meshplan
