#pragma once
// The dimensions a plan is chosen along, as small integers, so the search can remember the best
// candidate for each value of each dimension (the runner-ups the explanation compares against).
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "search/candidate.hpp"

namespace meshplan {

enum class Dimension {
  backend, tp, pp, vpp, cp, ep, etp, ulysses, offload, micro_batch, recompute, rollout_tp, rollout_dp,
  gpu_memory_utilization, log_prob_micro_batch, a2a_overlap, megatron_fsdp, count
};
inline constexpr std::size_t kDimensionCount = static_cast<std::size_t>(Dimension::count);
using DimensionValues = std::array<int, kDimensionCount>;

/// The name used by --fix and in explanations ("tp", "recompute", "gmu", ...).
std::string_view dimension_name(Dimension dimension);

/// The rollout's dimensions (rollout_tp, rollout_dp, gmu, lp_mb): RL workloads only.
bool is_rl_dimension(Dimension dimension);

/// A candidate's value along every dimension (enums as their index, gmu in percent).
DimensionValues dimension_values(const PlanCandidate& candidate);

/// "TP=8", "recompute=full_uniform", "gmu=0.6", "backend=fsdp".
std::string format_dimension(Dimension dimension, int value);

}  // namespace meshplan
