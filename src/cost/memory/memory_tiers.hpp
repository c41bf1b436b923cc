#pragma once
// Verdict tiers of a verl RL memory estimate (docs/memory-model.md "Verdict tiers"): with
// use_remove_padding the trainer holds the real tokens of a micro-batch, so whether a phase fits
// depends on the lengths the rollout produces. The estimate is made at the expected lengths
// (given, or the documented default) and again with every sequence at its maximum:
// - fits: both fit;
// - fits_expected: fits at the expected lengths, not when every response reaches
//   max_response_length (a warning naming the mean response length where it tips over);
// - does_not_fit: a phase does not fit at the expected lengths (or at the dynamic-bsz token
//   budget, which verl enforces whatever the lengths), or the engine cannot start.
#include <cstdint>

#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// The expected real length of a prompt or a response when none is given: a quarter of its
/// maximum. Based on verl's tuned GSM8K launches (examples/tuning/): prompts of ~128 tokens under
/// max_prompt_length 512 (question + verl's gsm8k.py instruction + chat template) and responses
/// of a few hundred tokens under max_response_length 1024.
inline constexpr double kDefaultExpectedLengthFraction = 0.25;
std::int64_t default_expected_length(std::int64_t max_length);

/// `rl` with mean_prompt_len / mean_response_len set to the default where they are 0.
RlSettings with_expected_lengths(RlSettings rl);

/// `rl` at the expected lengths a user gave (--mean-prompt-len / --mean-response-len; 0: not
/// given, the current one stays), each at most its maximum.
RlSettings with_given_lengths(RlSettings rl, std::int64_t mean_prompt_len, std::int64_t mean_response_len);

enum class MemoryTier : std::uint8_t { fits, fits_expected, does_not_fit };

struct MemoryTiers {
  MemoryTier tier = MemoryTier::does_not_fit;
  MemoryEstimate expected;  ///< at rl.mean_* lengths (the caller sets them; 0 = the maxima)
  MemoryEstimate worst;     ///< every prompt and response at its maximum
  /// fits_expected: the smallest mean response length (tokens) at which a phase no longer fits at
  /// the expected prompt length (0 when only the longest prompts tip it over).
  std::int64_t tipping_mean_response_len = 0;
};

/// Both estimates and the tier; `capacity_bytes` is what a phase may use (the planner passes the
/// GPU memory less its headroom). Pretrain / SFT have no length tiers: worst = expected.
MemoryTiers memory_tiers(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                         const Workload& workload, const MemoryOptions& options, double capacity_bytes);

}  // namespace meshplan
