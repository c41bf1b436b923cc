#include "search/candidate.hpp"

namespace meshplan {

double tokens_per_step(const Workload& workload) {
  if (workload.kind == WorkloadKind::rl) {
    return static_cast<double>(workload.global_batch) * workload.rl.n *
           static_cast<double>(workload.rl.prompt_len + workload.rl.response_len);
  }
  return static_cast<double>(workload.global_batch) * static_cast<double>(workload.seq_len);
}

RankKey rank_key(int gpus, double peak_bytes, double tokens_per_second, Objective objective) {
  switch (objective) {
    case Objective::memory: return RankKey{{peak_bytes, -tokens_per_second, 0}};
    case Objective::gpus: return RankKey{{static_cast<double>(gpus), -tokens_per_second, peak_bytes}};
    case Objective::throughput: break;
  }
  return RankKey{{-tokens_per_second, peak_bytes, 0}};
}

RankKey rank_key(const PlanCandidate& candidate, Objective objective) {
  return rank_key(candidate.gpus, candidate.peak_bytes, candidate.tokens_per_second, objective);
}

}  // namespace meshplan
