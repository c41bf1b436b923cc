#pragma once
// verl RL with the actor, reference, critic and rollout engine colocated on the same GPUs:
// the memory of each phase of one step (rollout, old/ref log-probs, actor and critic updates,
// weight sync), what each phase keeps resident from the others, and host RAM for offloads.
// Batch normalisation follows verl-rules.md §0.
#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// Fills e.phases, e.rollout, e.kv_cache_exhausted and e.host_bytes_per_node (per GPU here; the
/// caller multiplies by GPUs per node). Needs e.capacity_bytes.
void add_rl_phases(MemoryEstimate& e, const ModelSpec& model, const Strategy& strategy,
                   const Workload& workload, const MemoryOptions& options, Trace* trace);

/// Tokens of one sequence as the trainer sees them: prompt + response, or the expected real
/// lengths when use_remove_padding packs micro-batches without padding.
double rl_trainer_tokens_per_sequence(const RlSettings& rl);

}  // namespace meshplan
