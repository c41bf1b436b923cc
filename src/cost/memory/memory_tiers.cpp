#include "cost/memory/memory_tiers.hpp"

#include <algorithm>
#include <cmath>

namespace meshplan {
namespace {

bool fits_within(const MemoryEstimate& e, double capacity_bytes) {
  return e.peak_bytes <= capacity_bytes && !e.kv_cache_exhausted && !e.kv_below_one_sequence;
}

}  // namespace

std::int64_t default_expected_length(std::int64_t max_length) {
  return std::max<std::int64_t>(1, std::int64_t(std::ceil(kDefaultExpectedLengthFraction * double(max_length))));
}

RlSettings with_expected_lengths(RlSettings rl) {
  if (rl.mean_prompt_len <= 0) rl.mean_prompt_len = default_expected_length(rl.prompt_len);
  if (rl.mean_response_len <= 0) rl.mean_response_len = default_expected_length(rl.response_len);
  return rl;
}

RlSettings with_given_lengths(RlSettings rl, std::int64_t mean_prompt_len, std::int64_t mean_response_len) {
  if (mean_prompt_len > 0) rl.mean_prompt_len = std::min(mean_prompt_len, rl.prompt_len);
  if (mean_response_len > 0) rl.mean_response_len = std::min(mean_response_len, rl.response_len);
  return rl;
}

MemoryTiers memory_tiers(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                         const Workload& workload, const MemoryOptions& options, double capacity_bytes) {
  MemoryTiers t;
  t.expected = estimate_memory(model, cluster, strategy, workload, options, nullptr);
  if (workload.kind != WorkloadKind::rl) {
    t.worst = t.expected;
    t.tier = fits_within(t.expected, capacity_bytes) ? MemoryTier::fits : MemoryTier::does_not_fit;
    return t;
  }
  Workload worst = workload;
  worst.rl.mean_prompt_len = 0;
  worst.rl.mean_response_len = 0;
  t.worst = estimate_memory(model, cluster, strategy, worst, options, nullptr);
  if (!fits_within(t.expected, capacity_bytes)) {
    t.tier = MemoryTier::does_not_fit;
  } else if (fits_within(t.worst, capacity_bytes)) {
    t.tier = MemoryTier::fits;
  } else {
    t.tier = MemoryTier::fits_expected;
    // The peak grows with the response length: bisect for the first mean length that does not fit.
    Workload probe = workload;
    probe.rl.mean_response_len = workload.rl.response_len;
    if (fits_within(estimate_memory(model, cluster, strategy, probe, options, nullptr), capacity_bytes)) {
      return t;  // only the longest prompts tip it over: no response length to name
    }
    std::int64_t lo = std::max<std::int64_t>(workload.rl.mean_response_len, 1);  // fits
    std::int64_t hi = workload.rl.response_len;                                  // does not
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      probe.rl.mean_response_len = mid;
      const MemoryEstimate e = estimate_memory(model, cluster, strategy, probe, options, nullptr);
      (fits_within(e, capacity_bytes) ? lo : hi) = mid;
    }
    t.tipping_mean_response_len = hi;
  }
  return t;
}

}  // namespace meshplan
