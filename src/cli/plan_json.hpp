#pragma once
// `meshplan plan --json` (documented in docs/json.md).
#include <string>

#include "cost/time/time_estimate.hpp"
#include "report/plan_report.hpp"

namespace meshplan {

struct PlanJsonInputs {
  const PlanView& view;
  const ModelSpec& model;
  const Cluster& cluster;
  const TimeOptions& time_options;  ///< the plan's own (--moe-dropless-imbalance): each estimate is the ranked one
};

/// Schema version of `plan --json`; bumped on incompatible changes only.
inline constexpr int kPlanJsonSchemaVersion = 1;

std::string plan_json(const PlanJsonInputs& inputs);

}  // namespace meshplan
