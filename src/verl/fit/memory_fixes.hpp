#pragma once
// Fixes for a verl launch whose memory does not fit: each candidate change is applied to the
// job and re-estimated (memory at the lengths the caller gives, and step time), so a fix is
// offered only when it clears the shortfall, or, when none does, the one that shrinks it most.
// Never a value the launch already has; under use_dynamic_bsz the token budgets, not the
// micro-batch sizes (which verl ignores there). Ordered by their cost in step time.
#include <string>
#include <vector>

#include "cost/memory/memory_estimate.hpp"
#include "cost/time/time_estimate.hpp"
#include "verl/fit/to_strategy.hpp"

namespace meshplan {

struct MemoryFix {
  std::vector<std::string> overrides;  ///< override lines ("key=value") applied together
  VerlJob job;            ///< the job with the fix applied
  double peak_bytes = 0;  ///< re-estimated peak over all phases
  MemoryPhaseKind peak_phase = MemoryPhaseKind::train;
  bool fits = false;        ///< every phase fits `capacity_bytes` and the engine can start
  double step_seconds = 0;  ///< re-estimated step time (the order of the list)
};

/// Fixes for `job` on `cluster` (RL workload at the lengths it holds). `capacity_bytes` is what a
/// phase may use. The list is sorted by step time, fitting fixes first.
std::vector<MemoryFix> memory_fixes(const VerlJob& job, const ModelSpec& model, const Cluster& cluster,
                                    double capacity_bytes);

/// The job's time estimate, its rollout decoding as many sequences at once as its KV budget holds.
TimeEstimate job_time(const VerlJob& job, const ModelSpec& model, const Cluster& cluster);

/// job_time's step seconds.
double job_step_seconds(const VerlJob& job, const ModelSpec& model, const Cluster& cluster);

/// `job` (a launch with the override `lines` applied) re-estimated: memory against `capacity_bytes`
/// and step time.
MemoryFix evaluate_fix(const std::vector<std::string>& lines, const VerlJob& job, const ModelSpec& model,
                       const Cluster& cluster, double capacity_bytes);

/// "key=value -> peak X GiB in phase (fits), step time +Y%" for a finding's message.
std::string describe_fix(const MemoryFix& fix, double baseline_step_seconds);

}  // namespace meshplan
