#pragma once
// `meshplan estimate` as text: a table per phase with a bar per component, the peak, the GPU
// capacity and headroom, the verdict, the rollout KV accounting and the --explain trace.
#include <string>

#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "cost/trace.hpp"

namespace meshplan {

/// One table per phase; bars are scaled to the GPU capacity.
std::string render_memory_phases(const MemoryEstimate& estimate);

/// "fits (peak ... in phase P on stage S, headroom ...)" or "OOM by X GiB in phase P on rank R ...".
std::string memory_verdict(const MemoryEstimate& estimate);

/// "fits" | "fits_expected" | "does_not_fit" (JSON memory.tier).
const char* memory_tier_name(MemoryTier tier);

/// RL: the line under the verdict for every sequence at its maximum length (the warning tier,
/// with the mean response length where it tips over).
std::string render_length_tier(const MemoryTiers& tiers);

/// RL: replicas, KV budget, tokens and concurrent sequences it holds vs what the step needs;
/// host RAM per node.
std::string render_rollout_capacity(const MemoryEstimate& estimate, const RlSettings& rl);

/// Every traced term: name, value, formula, inputs, source.
std::string render_memory_trace(const Trace& trace);

}  // namespace meshplan
