#pragma once
// When nothing fits: what the closest miss would need. Each remedy is the closest miss with one
// change, re-evaluated by the memory model (more GPUs, offload, recompute, smaller micro-batch,
// a smaller rollout memory share).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/candidate.hpp"
#include "search/cost_model.hpp"

namespace meshplan {

struct Remedy {
  std::string change;     ///< e.g. "offload params, grads and optimizer states (offload=all)"
  double peak_bytes = 0;  ///< the closest miss's peak with this change
  bool fits = false;
};

/// Remedies for `closest` in the order a user would try them, each re-estimated; only those that
/// fit or lower the peak are returned. `usable_bytes` is the capacity after headroom.
std::vector<Remedy> remedies_for(const PlanCandidate& closest, const CostModel& cost, double usable_bytes);

/// Smallest GPU count for which `fits(gpus)` holds: powers of two below a node, then whole
/// nodes (doubling, then the first fitting count between the last two tries). nullopt when even
/// `max_gpus` does not fit.
std::optional<int> smallest_fitting_gpus(const std::function<bool(int)>& fits, int gpus_per_node, int max_gpus);

}  // namespace meshplan
