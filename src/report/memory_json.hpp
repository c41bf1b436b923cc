#pragma once
// The `memory` object of `meshplan estimate --json`. Returns nlohmann::json so that a command
// can merge other objects (the time estimate) beside it.
#include <nlohmann/json_fwd.hpp>

#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// {phases: [{name, stage, peak_bytes, components: {name: bytes}}], peak_bytes, peak_phase,
///  capacity_bytes, headroom_bytes, fits, host_bytes_per_node, rollout?: {...}}.
nlohmann::json memory_estimate_json(const MemoryEstimate& estimate, bool rl);

}  // namespace meshplan
