#include "report/memory_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace meshplan {
namespace {

std::int64_t whole_bytes(double bytes) { return static_cast<std::int64_t>(std::llround(bytes)); }

}  // namespace

nlohmann::json memory_estimate_json(const MemoryEstimate& e, bool rl) {
  nlohmann::json phases = nlohmann::json::array();
  for (int i = 0; i < e.phase_count; ++i) {
    const PhaseMemory& phase = e.phases[i];
    nlohmann::json components = nlohmann::json::object();
    for (int c = 0; c < kMemoryComponentCount; ++c) {
      if (phase.bytes[c] > 0)
        components[memory_component_name(static_cast<MemoryComponent>(c))] = whole_bytes(phase.bytes[c]);
    }
    phases.push_back({{"name", memory_phase_name(phase.kind)},
                      {"stage", phase.stage},
                      {"peak_bytes", whole_bytes(phase.peak_bytes())},
                      {"components", components}});
  }
  nlohmann::json memory = {{"phases", phases},
                           {"peak_bytes", whole_bytes(e.peak_bytes)},
                           {"peak_phase", memory_phase_name(e.peak().kind)},
                           {"peak_stage", e.peak().stage},
                           {"capacity_bytes", whole_bytes(e.capacity_bytes)},
                           {"headroom_bytes", whole_bytes(e.headroom_bytes)},
                           {"fits", e.fits},
                           {"host_bytes_per_node", whole_bytes(e.host_bytes_per_node)}};
  if (rl) {
    const RolloutCapacity& r = e.rollout;
    memory["rollout"] = {{"replicas", r.replicas},
                         {"kv_bytes_per_token", whole_bytes(r.kv_bytes_per_token)},
                         {"kv_cache_bytes", whole_bytes(r.kv_cache_bytes)},
                         {"kv_tokens_per_replica", r.kv_tokens_per_replica},
                         {"tokens_per_sequence", r.tokens_per_sequence},
                         {"concurrent_sequences_per_replica", r.concurrent_sequences_per_replica},
                         {"sequences_per_step", r.sequences_per_step},
                         {"kv_tokens_needed", r.kv_tokens_needed},
                         {"kv_holds_all", r.kv_holds_all},
                         {"kv_cache_exhausted", e.kv_cache_exhausted}};
  }
  return memory;
}

}  // namespace meshplan
