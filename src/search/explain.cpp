#include "search/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "core/units.hpp"

namespace meshplan {
namespace {

// Alternatives closer than this to the winner (step time, or peak memory for the memory
// objective) are reported as making no measurable difference.
constexpr double kIndifferent = 0.005;
// At most this many values that do not fit or break a rule are named per choice.
constexpr std::size_t kNamedFailures = 3;

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : std::string(separator)) + part;
  return text;
}

std::string differing(const DimensionValues& mine, const DimensionValues& theirs) {
  std::vector<std::string> parts;
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    if (mine[d] != theirs[d]) parts.push_back(format_dimension(static_cast<Dimension>(d), mine[d]));
  }
  return join(parts, ", ");
}

// A plan's own choices, without those its backend does not have.
std::string plan_settings(const PlanCandidate& plan) {
  const DimensionValues values = dimension_values(plan);
  const bool fsdp = plan.strategy.backend == Backend::fsdp;
  const bool rl = plan.workload.kind == WorkloadKind::rl;
  std::vector<std::string> parts;
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    const auto dimension = static_cast<Dimension>(d);
    const bool megatron_only = dimension == Dimension::tp || dimension == Dimension::pp || dimension == Dimension::vpp ||
                               dimension == Dimension::cp || dimension == Dimension::ep || dimension == Dimension::etp ||
                               dimension == Dimension::megatron_fsdp;
    const bool rl_only = is_rl_dimension(dimension);
    if (dimension == Dimension::backend || (fsdp && megatron_only) || (!fsdp && dimension == Dimension::ulysses) ||
        (!rl && rl_only) || (dimension == Dimension::rollout_dp && values[d] == 1) ||
        (dimension == Dimension::a2a_overlap && plan.strategy.ep == 1)) {
      continue;
    }
    parts.push_back(format_dimension(dimension, values[d]));
  }
  parts.push_back(fmt::format("DP={}", plan.strategy.dp));
  return join(parts, ", ");
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
      if (w.moe_a2a_overlap && !o.moe_a2a_overlap) return "the expert all-to-all would no longer hide behind another micro-batch";
      return o.ep * o.etp > gpus_per_node ? "the expert all-to-all would cross nodes" : "the expert all-to-all grows";
    case TimeComponent::offload: return "offloaded states cross PCIe every step";
    case TimeComponent::moe_host_wait:
      if (o.cuda_graph_impl != w.cuda_graph_impl || o.cuda_graph_modules != w.cuda_graph_modules) {
        return "the MoE layers wait on host launches that CUDA graphs no longer capture";
      }
      if (o.ep < w.ep) return "more local experts make the host launch more expert GEMMs per MoE layer";
      if (o.micro_batch < w.micro_batch) return "more, smaller micro-batches each wait on the host's MoE launches";
      if (o.cp > w.cp) return "context parallelism splits each micro-batch's tokens, not the host's MoE launches";
      return "the MoE layers wait longer on the host's launches";
    case TimeComponent::compute:
      if (o.recompute != w.recompute || o.recompute_method != w.recompute_method ||
          o.recompute_modules != w.recompute_modules) {
        return "recomputation adds forward passes";
      }
      if (o.micro_batch < w.micro_batch) return "smaller micro-batches run smaller, less efficient GEMMs";
      return "each GPU computes less efficiently";
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

double objective_change(const PlanCandidate& other, const PlanCandidate& winner, Objective objective) {
  if (objective == Objective::memory) return winner.peak_bytes > 0 ? other.peak_bytes / winner.peak_bytes - 1 : 0;
  return winner.step_seconds > 0 ? other.step_seconds / winner.step_seconds - 1 : 0;
}

// The winner against one other plan: what changes, by how much, and why.
Versus measure(const PlanCandidate& winner, const PlanCandidate& other, std::string winner_setting,
               std::string other_setting, Objective objective, int gpus_per_node) {
  Versus v;
  v.winner_setting = std::move(winner_setting);
  v.other_setting = std::move(other_setting);
  v.step_time_change = winner.step_seconds > 0 ? other.step_seconds / winner.step_seconds - 1 : 0;
  v.peak_bytes_change = other.peak_bytes - winner.peak_bytes;
  v.cause_seconds = -1e300;
  for (std::size_t i = 0; i < kTimeComponentCount; ++i) {
    const double grows = other.time.seconds[i] - winner.time.seconds[i];
    if (grows > v.cause_seconds) {
      v.cause_seconds = grows;
      v.cause = static_cast<TimeComponent>(i);
    }
  }
  if (objective == Objective::memory) {
    v.reason = fmt::format("{:+.1f} GiB peak memory ({:+.0f}% step time)", bytes_to_gib(v.peak_bytes_change),
                           v.step_time_change * 100);
  } else {
    v.reason = fmt::format("{}, {:+.0f}% step time ({:+.2f} s of {})", cause_phrase(v.cause, winner, other, gpus_per_node),
                           v.step_time_change * 100, v.cause_seconds, time_component_name(v.cause));
  }
  return v;
}

// Choices with an order (sizes, shares) are compared with the best smaller and the best larger
// value; offload and recompute with the best other choice.
bool ordered(Dimension dimension) {
  return dimension != Dimension::offload && dimension != Dimension::recompute && dimension != Dimension::backend;
}

// One choice: the winner's value against the other values of the search space.
std::optional<Comparison> compare_choice(Dimension dimension, const std::vector<Neighbour>& others,
                                         const PlanCandidate& winner, Objective objective, double usable_bytes,
                                         int gpus_per_node, std::vector<std::string>& indifferent) {
  const DimensionValues winner_values = dimension_values(winner);
  const auto d = static_cast<std::size_t>(dimension);
  Comparison c;
  c.dimension = dimension;
  std::array<const Neighbour*, 2> best{};  // [0]: smaller (or any, unordered), [1]: larger
  bool any_valid = false;
  std::map<std::string, std::vector<std::string>> broken;  // rule -> settings
  for (const Neighbour& n : others) {
    std::string setting = differing(n.values, winner_values);
    if (setting.find(',') != std::string::npos) setting = "(" + setting + ")";
    if (!n.broken_rule.empty()) {
      // Values that do not factor the GPU count are not alternatives; the others are named.
      if (n.broken_rule != "world.factorization") broken[std::string(n.broken_rule)].push_back(setting);
      continue;
    }
    any_valid = true;
    if (!n.fits) {
      if (c.not_fitting.size() < kNamedFailures) {
        c.not_fitting.push_back(fmt::format("{} ({:.1f} GiB in {})", setting, bytes_to_gib(n.candidate.peak_bytes),
                                            plan_phase_name(n.candidate.peak_phase)));
      }
      continue;
    }
    if (objective_change(n.candidate, winner, objective) < kIndifferent) {
      indifferent.push_back(setting);
      continue;
    }
    const Neighbour*& slot = best[ordered(dimension) && n.values[d] > winner_values[d] ? 1 : 0];
    if (slot == nullptr || rank_key(n.candidate, objective) < rank_key(slot->candidate, objective)) slot = &n;
  }
  for (auto& [rule, settings] : broken) {
    if (settings.size() > kNamedFailures) settings.resize(kNamedFailures);
    c.breaking.push_back(fmt::format("{} {} {}", join(settings, ", "), settings.size() == 1 ? "breaks" : "break", rule));
  }
  const bool any_better_than = best[0] != nullptr || best[1] != nullptr;
  if (!any_valid || (!any_better_than && c.not_fitting.empty())) return std::nullopt;  // forced, or no difference
  std::vector<std::string> clauses;
  for (const Neighbour* n : best) {
    if (n == nullptr) continue;
    c.versus.push_back(measure(winner, n->candidate, differing(winner_values, n->values),
                               differing(n->values, winner_values), objective, gpus_per_node));
    const Versus& v = c.versus.back();
    clauses.push_back(fmt::format("{} rather than {}: {}", v.winner_setting, v.other_setting, v.reason));
  }
  const std::string winner_setting = format_dimension(dimension, winner_values[d]);
  std::string text = clauses.empty() ? fmt::format("{}: no other value fits in {:.1f} GiB: {}", winner_setting,
                                                   bytes_to_gib(usable_bytes), join(c.not_fitting, ", "))
                                     : join(clauses, "; ");
  if (!clauses.empty() && !c.not_fitting.empty()) text += fmt::format("; {} would not fit", join(c.not_fitting, ", "));
  if (!c.breaking.empty()) text += "; " + join(c.breaking, "; ");
  c.sentence = text;
  return c;
}

// The backend: the winner against the best plan of the other backend (no one-step change).
std::optional<Comparison> compare_backend(const SearchResult& result, const PlanCandidate& winner,
                                          Objective objective, int gpus_per_node) {
  const DimensionValues mine = dimension_values(winner);
  const auto d = static_cast<std::size_t>(Dimension::backend);
  for (const Alternative& alternative : result.alternatives) {
    if (alternative.dimension != Dimension::backend || alternative.value == mine[d]) continue;
    Comparison c;
    c.dimension = Dimension::backend;
    c.versus.push_back(measure(winner, alternative.candidate, format_dimension(Dimension::backend, mine[d]),
                               plan_settings(alternative.candidate), objective, gpus_per_node));
    const Versus& v = c.versus.back();
    c.sentence = fmt::format("{} rather than the best {} plan ({}): {}", v.winner_setting,
                             format_dimension(Dimension::backend, alternative.value), v.other_setting, v.reason);
    return c;
  }
  return std::nullopt;
}

// How much a choice matters: a forced choice first, then the largest loss of an alternative.
double weight(const Comparison& c, Objective objective) {
  if (c.versus.empty()) return 1e300;
  double largest = -1e300;
  for (const Versus& v : c.versus) {
    largest = std::max(largest, objective == Objective::memory ? v.peak_bytes_change : v.step_time_change);
  }
  return largest;
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
                     advice, agrees ? "agrees" : "differs, for the reasons above", s.tp, s.pp, s.cp, s.dp,
                     s.backend == Backend::fsdp ? ", FSDP" : "");
}

}  // namespace

Explanation explain_winner(const SearchResult& result, const ModelSpec& model, const Cluster& cluster,
                           Objective objective, const NeighbourSearch& search) {
  Explanation explanation;
  if (result.top.empty()) return explanation;
  const int gpus_per_node = cluster.groups.empty() ? 8 : cluster.groups.front().gpus_per_node;
  // The winner evaluated as one whole candidate, as its neighbours are.
  PlanCandidate winner = evaluate_memory(result.top.front().strategy, result.top.front().workload, search.cost);
  evaluate_time(winner, search.cost);
  const std::vector<Neighbour> neighbours = neighbours_of(winner, search);
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    std::vector<Neighbour> others;
    std::copy_if(neighbours.begin(), neighbours.end(), std::back_inserter(others),
                 [&](const Neighbour& n) { return static_cast<std::size_t>(n.dimension) == d; });
    if (others.empty()) continue;
    if (auto c = compare_choice(static_cast<Dimension>(d), others, winner, objective,
                                search.usable_bytes, gpus_per_node, explanation.indifferent)) {
      explanation.comparisons.push_back(std::move(*c));
    }
  }
  // The decisive choices first: the ones where nothing else fits, then the largest losses.
  std::stable_sort(explanation.comparisons.begin(), explanation.comparisons.end(),
                   [objective](const Comparison& a, const Comparison& b) {
                     return weight(a, objective) > weight(b, objective);
                   });
  if (auto backend = compare_backend(result, result.top.front(), objective, gpus_per_node)) {
    explanation.comparisons.insert(explanation.comparisons.begin(), std::move(*backend));
  }
  explanation.rule_of_thumb = rule_of_thumb(model, winner);
  return explanation;
}

}  // namespace meshplan
