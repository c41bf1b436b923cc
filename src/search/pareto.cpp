#include "search/pareto.hpp"

#include <algorithm>

namespace meshplan {

bool ParetoFrontier::accepts(double peak_bytes, double tokens_per_second) const {
  // The frontier ascends in both memory and throughput: the only point that can dominate the new
  // one is the fastest with memory <= peak_bytes, i.e. the last such point.
  const auto after = std::upper_bound(points_.begin(), points_.end(), peak_bytes,
                                      [](double bytes, const PlanCandidate& p) { return bytes < p.peak_bytes; });
  return after == points_.begin() || std::prev(after)->tokens_per_second < tokens_per_second;
}

void ParetoFrontier::add(const PlanCandidate& candidate) {
  if (!accepts(candidate.peak_bytes, candidate.tokens_per_second)) return;
  // Remove the points with memory >= the new one's and throughput <= the new one's.
  auto first = std::lower_bound(points_.begin(), points_.end(), candidate.peak_bytes,
                                [](const PlanCandidate& p, double bytes) { return p.peak_bytes < bytes; });
  auto last = first;
  while (last != points_.end() && last->tokens_per_second <= candidate.tokens_per_second) ++last;
  first = points_.erase(first, last);
  points_.insert(first, candidate);
}

}  // namespace meshplan
