#pragma once
// The Pareto frontier of memory (lower is better) against throughput (higher is better).
#include <vector>

#include "search/candidate.hpp"

namespace meshplan {

class ParetoFrontier {
 public:
  /// Adds a candidate unless another uses no more memory and is at least as fast (the first
  /// such point stays); removes the points the new one dominates.
  void add(const PlanCandidate& candidate);
  /// Would `add` keep a point with these numbers? (cheap test before building a candidate)
  bool accepts(double peak_bytes, double tokens_per_second) const;
  /// Sorted by memory ascending, so throughput ascends too.
  const std::vector<PlanCandidate>& points() const { return points_; }

 private:
  std::vector<PlanCandidate> points_;
};

}  // namespace meshplan
