#include "search/cost_model.hpp"

namespace meshplan {

std::string_view plan_phase_name(PlanPhase phase) {
  switch (phase) {
    case PlanPhase::rollout: return "rollout";
    case PlanPhase::log_prob: return "log_prob";
    case PlanPhase::update: return "update";
    case PlanPhase::count: break;
  }
  return "?";
}

std::string_view time_component_name(TimeComponent component) {
  static constexpr std::array<std::string_view, kTimeComponentCount> kNames = {
      "compute", "moe_host_wait", "tp_comm", "pp_bubble", "pp_comm", "dp_comm_exposed", "cp_comm", "ep_comm",
      "offload", "rollout", "log_prob", "weight_sync"};
  const auto index = static_cast<std::size_t>(component);
  return index < kNames.size() ? kNames[index] : "?";
}

PlanPhase phase_of(TimeComponent component) {
  switch (component) {
    case TimeComponent::rollout:
    case TimeComponent::weight_sync: return PlanPhase::rollout;
    case TimeComponent::log_prob: return PlanPhase::log_prob;
    default: return PlanPhase::update;
  }
}

double PlanTime::phase_seconds(PlanPhase phase) const {
  double total = 0;
  for (std::size_t i = 0; i < kTimeComponentCount; ++i) {
    if (phase_of(static_cast<TimeComponent>(i)) == phase) total += seconds[i];
  }
  return total;
}

}  // namespace meshplan
