#include "cost/time/time_estimate.hpp"

namespace meshplan {

void TimeBreakdown::add(const TimeBreakdown& other, double times) {
  compute += times * other.compute;
  moe_host_wait += times * other.moe_host_wait;
  tp_comm += times * other.tp_comm;
  pp_bubble += times * other.pp_bubble;
  pp_comm += times * other.pp_comm;
  dp_comm_exposed += times * other.dp_comm_exposed;
  cp_comm += times * other.cp_comm;
  ep_comm += times * other.ep_comm;
  offload += times * other.offload;
  rollout += times * other.rollout;
}

void TimeEstimate::add_phase(const char* name, double seconds) {
  if (num_phases >= kMaxPhases) return;
  phases[static_cast<std::size_t>(num_phases)] = TimePhase{name, seconds};
  ++num_phases;
}

void TimeEstimate::insert_phase(int index, const char* name, double seconds) {
  if (num_phases >= kMaxPhases || index < 0 || index > num_phases) return;
  for (int i = num_phases; i > index; --i) phases[static_cast<std::size_t>(i)] = phases[static_cast<std::size_t>(i - 1)];
  phases[static_cast<std::size_t>(index)] = TimePhase{name, seconds};
  ++num_phases;
}

}  // namespace meshplan
