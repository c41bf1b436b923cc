#pragma once
// What a strategy rule sees and the helpers its tables share (strategy/validate.hpp is the
// interface; the tables are layout_rules.cpp, feature_rules.cpp and batch_rules.cpp, evaluated in
// that order by validate.cpp). Internal to src/strategy.
#include <cstdint>
#include <span>
#include <string>

#include "strategy/validate.hpp"

namespace meshplan::strategy_rule {

struct Inputs {
  const Strategy& s;
  const ModelSpec& m;
  const Cluster& c;
  const Workload& w;
};

struct Rule {
  RuleInfo info;
  bool (*violated)(const Inputs&);
  void (*explain)(const Inputs&, Violation&);
};

/// Cheapest and most basic first, so `first_violation` prunes early: the parallel sizes against
/// the model and the cluster (the first rule, every size at least 1, guards every later division).
std::span<const Rule> layout_rules();
/// Recomputation, offloading, the MoE all-to-all overlap, precisions and CUDA graphs.
std::span<const Rule> feature_rules();
/// Batch sizes against DP and the micro-batch, and the RL rollout's TP.
std::span<const Rule> batch_rules();

inline bool divides(std::int64_t divisor, std::int64_t value) { return divisor > 0 && value % divisor == 0; }

/// "{1, 2, 4}": the values in [1, limit] for which `ok` holds.
template <class Predicate>
std::string values_where(std::int64_t limit, Predicate ok) {
  std::string list;
  for (std::int64_t v = 1; v <= limit; ++v) {
    if (!ok(v)) continue;
    list += list.empty() ? "" : ", ";
    list += std::to_string(v);
  }
  return "{" + list + "}";
}

inline std::int64_t world(const Inputs& in) { return in.c.total_gpus(); }
inline std::int64_t kv_heads(const Inputs& in) { return in.m.attention.num_kv_heads; }
inline std::int64_t heads(const Inputs& in) { return in.m.attention.num_heads; }
/// Key and value heads of the linear-attention layers (0, 0 for models without them).
inline std::int64_t linear_key_heads(const Inputs& in) {
  return in.m.linear_attention ? in.m.linear_attention->num_key_heads : 0;
}
inline std::int64_t linear_value_heads(const Inputs& in) {
  return in.m.linear_attention ? in.m.linear_attention->num_value_heads : 0;
}
/// `tp` splits the linear-attention heads evenly (trivially true without such layers).
inline bool divides_linear_heads(const Inputs& in, std::int64_t tp) {
  return !in.m.linear_attention || (divides(tp, linear_key_heads(in)) && divides(tp, linear_value_heads(in)));
}

}  // namespace meshplan::strategy_rule
