#pragma once
// One evaluated plan: the strategy and RL settings, what it costs, and how it ranks.
#include <array>
#include <cstdint>

#include "search/cost_model.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

enum class Objective { throughput, memory, gpus };

struct PlanCandidate {
  Strategy strategy;
  Workload workload;  ///< with this candidate's RL settings (rollout TP, memory share, micro-batches)
  int gpus = 0;
  PlanMemory memory;
  PlanPhase peak_phase = PlanPhase::update;
  double peak_bytes = 0;
  PlanTime time;
  double step_seconds = 0;
  double tokens_per_second = 0;  ///< all GPUs together
};

/// Tokens one step processes: global_batch x seq_len for pretraining/SFT; for RL
/// train_batch_size x n x (prompt + response), the count verl's perf/throughput divides by
/// (verl/trainer/ppo/metric_utils.py: compute_throughout_metrics), at the maximum lengths.
double tokens_per_step(const Workload& workload);

/// Lexicographic sort key of a candidate under an objective (smaller ranks first):
/// throughput: more tokens/s, then less memory; memory: less memory, then more tokens/s;
/// gpus: fewer GPUs, then more tokens/s, then less memory.
struct RankKey {
  std::array<double, 3> parts{};
  bool operator<(const RankKey& other) const { return parts < other.parts; }
};
RankKey rank_key(int gpus, double peak_bytes, double tokens_per_second, Objective objective);
RankKey rank_key(const PlanCandidate& candidate, Objective objective);

}  // namespace meshplan
