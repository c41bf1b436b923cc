#pragma once
// `meshplan plan --json` (documented in docs/json.md).
#include <string>

#include "report/plan_report.hpp"

namespace meshplan {

struct PlanJsonInputs {
  const PlanView& view;
  const ModelSpec& model;
  const Cluster& cluster;
};

/// Schema version of `plan --json`; bumped on incompatible changes only.
inline constexpr int kPlanJsonSchemaVersion = 1;

std::string plan_json(const PlanJsonInputs& inputs);

}  // namespace meshplan
