#include "search/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"

namespace meshplan {
namespace {

// Runner-ups per dimension: the best plan for each of up to this many other values.
constexpr int kAlternativesPerDimension = 3;

std::string differing(const DimensionValues& mine, const DimensionValues& theirs) {
  std::string text;
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    if (mine[d] == theirs[d]) continue;
    text += text.empty() ? "" : ", ";
    text += format_dimension(static_cast<Dimension>(d), mine[d]);
  }
  return text;
}

std::string cause_phrase(TimeComponent cause, const PlanCandidate& winner, const PlanCandidate& other,
                         int gpus_per_node) {
  const Strategy& w = winner.strategy;
  const Strategy& o = other.strategy;
  switch (cause) {
    case TimeComponent::tp_comm:
      return o.tp > gpus_per_node ? "TP all-reduce would cross nodes" : "TP all-reduces take longer";
    case TimeComponent::pp_bubble: return "the pipeline bubble (p-1)/(v*m) grows";
    case TimeComponent::pp_comm: return "pipeline activation sends grow";
    case TimeComponent::dp_comm_exposed: return "more data-parallel gradient communication is exposed";
    case TimeComponent::cp_comm: return "the context-parallel K/V exchange grows";
    case TimeComponent::ep_comm:
      return o.ep * o.etp > gpus_per_node ? "the expert all-to-all would cross nodes" : "the expert all-to-all grows";
    case TimeComponent::offload: return "offloaded states cross PCIe every step";
    case TimeComponent::compute:
      if (o.recompute != w.recompute || o.recompute_method != w.recompute_method) {
        return "recomputation adds forward passes";
      }
      if (o.micro_batch < w.micro_batch) return "smaller micro-batches run smaller, less efficient GEMMs";
      return "each GPU computes more or less efficiently";
    case TimeComponent::rollout:
      if (other.workload.rl.gpu_memory_utilization < winner.workload.rl.gpu_memory_utilization) {
        return "a smaller KV cache batches fewer sequences during generation";
      }
      return "generation is slower";
    case TimeComponent::log_prob: return "the log-prob passes are slower";
    case TimeComponent::weight_sync: return "the weight sync to the rollout engine is slower";
    case TimeComponent::count: break;
  }
  return "";
}

Comparison compare(const Alternative& alternative, const PlanCandidate& winner, const DimensionValues& winner_values,
                   int gpus_per_node, Objective objective) {
  const PlanCandidate& other = alternative.candidate;
  Comparison c;
  c.dimension = alternative.dimension;
  const DimensionValues other_values = dimension_values(other);
  c.winner_setting = differing(winner_values, other_values);
  c.other_setting = differing(other_values, winner_values);
  c.step_time_change = winner.step_seconds > 0 ? other.step_seconds / winner.step_seconds - 1 : 0;
  c.peak_bytes_change = other.peak_bytes - winner.peak_bytes;
  c.cause_seconds = -1e300;
  for (std::size_t i = 0; i < kTimeComponentCount; ++i) {
    const double grows = other.time.seconds[i] - winner.time.seconds[i];
    if (grows > c.cause_seconds) {
      c.cause_seconds = grows;
      c.cause = static_cast<TimeComponent>(i);
    }
  }
  const std::string head = fmt::format("{} instead of {}", c.winner_setting, c.other_setting);
  if (c.step_time_change > 0.0005) {
    c.sentence = fmt::format("{} because {}: {:+.0f}% step time ({:+.2f} s of {})", head,
                             cause_phrase(c.cause, winner, other, gpus_per_node), c.step_time_change * 100,
                             c.cause_seconds, time_component_name(c.cause));
  } else if (objective == Objective::gpus && other.gpus > winner.gpus) {
    c.sentence = fmt::format("{}: needs {} GPUs instead of {}", head, other.gpus, winner.gpus);
  } else {
    c.sentence = fmt::format("{}: {:+.1f} GiB peak memory at {:+.0f}% step time", head,
                             bytes_to_gib(c.peak_bytes_change), c.step_time_change * 100);
  }
  return c;
}

// The seeds' decision tree (../shared/seeds/000: model < 10B: data parallel first; 10B-100B:
// tensor x data parallel; > 100B: tensor x pipeline x data parallel).
std::string rule_of_thumb(const ModelSpec& model, const PlanCandidate& winner) {
  const double billions = static_cast<double>(model.total_params) / 1e9;
  const Strategy& s = winner.strategy;
  std::string advice;
  bool agrees = false;
  if (billions < 10) {
    advice = "data parallel first";
    agrees = s.tp * s.pp * s.cp == 1;
  } else if (billions <= 100) {
    advice = "tensor x data parallel";
    agrees = s.tp > 1 && s.pp == 1;
  } else {
    advice = "tensor x pipeline x data parallel";
    agrees = s.tp > 1 && s.pp > 1;
  }
  return fmt::format("rule of thumb for a {:.1f}B model: {}; the search {} (TP={}, PP={}, CP={}, DP={}{})", billions,
                     advice, agrees ? "agrees" : "differs, from the numbers above", s.tp, s.pp, s.cp, s.dp,
                     s.backend == Backend::fsdp ? ", FSDP" : "");
}

}  // namespace

Explanation explain_winner(const SearchResult& result, const ModelSpec& model, const Cluster& cluster,
                           Objective objective) {
  Explanation explanation;
  if (result.top.empty()) return explanation;
  const PlanCandidate& winner = result.top.front();
  const DimensionValues winner_values = dimension_values(winner);
  const int gpus_per_node = cluster.groups.empty() ? 8 : cluster.groups.front().gpus_per_node;
  std::array<int, kDimensionCount> shown{};
  for (const Alternative& alternative : result.alternatives) {  // best first within each dimension
    const auto d = static_cast<std::size_t>(alternative.dimension);
    if (shown[d] >= kAlternativesPerDimension || alternative.value == winner_values[d]) continue;
    Comparison comparison = compare(alternative, winner, winner_values, gpus_per_node, objective);
    const bool repeated = std::any_of(explanation.comparisons.begin(), explanation.comparisons.end(),
                                      [&](const Comparison& c) { return c.other_setting == comparison.other_setting; });
    if (repeated) continue;
    ++shown[d];
    explanation.comparisons.push_back(std::move(comparison));
  }
  explanation.rule_of_thumb = rule_of_thumb(model, winner);
  return explanation;
}

}  // namespace meshplan
