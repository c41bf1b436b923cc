#include "search/neighbours.hpp"

#include <algorithm>
#include <cmath>

#include "search/layout.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

std::vector<int> percent(const std::vector<double>& fractions) {
  std::vector<int> values;
  for (double fraction : fractions) values.push_back(static_cast<int>(std::lround(fraction * 100)));
  return values;
}

template <class Choice>
std::vector<int> indices(const std::vector<Choice>& choices, bool (*allowed)(Choice)) {
  std::vector<int> values;
  for (Choice choice : choices) {
    if (allowed(choice)) values.push_back(static_cast<int>(choice));
  }
  return values;
}

std::vector<int> flags(const std::vector<bool>& values) {
  std::vector<int> out;
  for (bool value : values) out.push_back(value ? 1 : 0);
  return out;
}

bool any_offload(OffloadChoice) { return true; }
bool any_recompute(RecomputeChoice) { return true; }
// FSDP has gradient checkpointing on or off (verl: model.enable_gradient_checkpointing).
bool fsdp_recompute(RecomputeChoice choice) {
  return choice == RecomputeChoice::none || choice == RecomputeChoice::full_uniform;
}

// The values the search tried along one dimension for a plan of `strategy`'s backend.
std::vector<int> values_of(Dimension dimension, const SearchSpace& space, const Strategy& strategy, bool rl) {
  const bool megatron = strategy.backend == Backend::megatron;
  const std::vector<int> none;
  switch (dimension) {
    case Dimension::tp: return megatron ? space.tp : none;
    case Dimension::pp: return megatron ? space.pp : none;
    case Dimension::vpp: return megatron ? space.vpp : none;
    case Dimension::cp: return megatron ? space.cp : none;
    case Dimension::ep: return megatron ? space.ep : none;
    case Dimension::ulysses: return megatron ? none : space.ulysses;
    case Dimension::micro_batch: return space.micro_batch;
    case Dimension::offload: return indices(space.offload, any_offload);
    case Dimension::recompute: return indices(space.recompute, megatron ? any_recompute : fsdp_recompute);
    case Dimension::rollout_tp: return rl ? space.rollout_tp : none;
    case Dimension::rollout_dp: return rl ? space.rollout_dp : none;
    case Dimension::gpu_memory_utilization: return rl ? percent(space.gpu_memory_utilization) : none;
    case Dimension::log_prob_micro_batch: return rl ? space.log_prob_micro_batch : none;
    case Dimension::a2a_overlap: return megatron && strategy.ep > 1 ? flags(space.moe_a2a_overlap) : none;
    case Dimension::megatron_fsdp: return megatron && strategy.pp == 1 ? flags(space.megatron_fsdp) : none;
    default: return none;  // backend (not one step), etp (follows TP unless pinned)
  }
}

void set(Strategy& s, RlSettings& rl, Dimension dimension, int value) {
  switch (dimension) {
    case Dimension::tp: s.tp = value; break;
    case Dimension::pp: s.pp = value; break;
    case Dimension::vpp: s.vpp = value; break;
    case Dimension::cp: s.cp = value; break;
    case Dimension::ep: s.ep = value; break;
    case Dimension::ulysses: s.ulysses_sp = value; break;
    case Dimension::micro_batch: s.micro_batch = value; break;
    case Dimension::offload:
      s.offload = to_offload(static_cast<OffloadChoice>(value));
      rl.ref_param_offload = (value & static_cast<int>(OffloadChoice::ref)) != 0;
      break;
    case Dimension::rollout_tp: rl.rollout_tp = value; break;
    case Dimension::rollout_dp: rl.rollout_dp = value; break;
    case Dimension::gpu_memory_utilization: rl.gpu_memory_utilization = value / 100.0; break;
    case Dimension::log_prob_micro_batch: rl.log_prob_micro_batch_per_gpu = value; break;
    case Dimension::a2a_overlap: s.moe_a2a_overlap = value != 0; break;
    case Dimension::megatron_fsdp: s.zero = value != 0 ? ZeroStage::zero3 : ZeroStage::none; break;
    default: break;
  }
}

bool dp_allowed(const SearchSpace& space, int dp) {
  return space.dp.empty() || std::find(space.dp.begin(), space.dp.end(), dp) != space.dp.end();
}

// The winner with `dimension` set to `value`, on the same GPUs: DP absorbs a change of TP, PP or
// CP; where it cannot (the GPUs do not factor, or DP is pinned), the other of TP and PP
// compensates so that DP stays ("TP=16, PP=1" against "TP=8, PP=2"). False when neither works.
bool change(Strategy& s, RlSettings& rl, Dimension dimension, int value, const SearchSpace& space) {
  const int gpus = s.world_size();
  const int model_parallel = s.tp * s.pp * s.cp;
  const bool etp_follows_tp = s.etp == s.tp;
  // What follows the parallel sizes: interleaving needs PP > 1 (verl R44), ETP tied to TP stays
  // tied, Megatron turns SP off at TP = 1 (verl-rules R31), and EP all-to-all overlap goes with
  // expert parallelism.
  const auto settle = [&] {
    if (dimension != Dimension::vpp && s.pp == 1) s.vpp = 1;
    if (etp_follows_tp) s.etp = s.tp;
    if (s.tp == 1) s.sequence_parallel = false;
    if (s.ep == 1) s.moe_a2a_overlap = false;
    if (s.pp > 1 && s.backend == Backend::megatron) s.zero = ZeroStage::none;  // the search's Megatron-FSDP is PP 1
  };
  set(s, rl, dimension, value);
  settle();
  const int changed = s.tp * s.pp * s.cp;
  if (gpus % changed == 0 && dp_allowed(space, gpus / changed)) {
    s.dp = gpus / changed;
    return true;
  }
  const bool model_parallel_dimension =
      dimension == Dimension::tp || dimension == Dimension::pp || dimension == Dimension::cp;
  if (!model_parallel_dimension) return false;
  int& partner = dimension == Dimension::pp ? s.tp : s.pp;
  const int others = changed / partner;
  if (model_parallel % others != 0) return false;
  partner = model_parallel / others;
  settle();
  return true;
}

}  // namespace

PlanCandidate evaluate_memory(const Strategy& strategy, const Workload& workload, const CostModel& cost) {
  PlanCandidate candidate;
  candidate.strategy = strategy;
  candidate.workload = workload;
  candidate.gpus = job_gpus(strategy, workload);
  candidate.memory = cost.memory(strategy, workload);
  for (std::size_t p = 0; p < kPlanPhaseCount; ++p) {
    if (candidate.memory.peak_bytes[p] > candidate.peak_bytes) {
      candidate.peak_bytes = candidate.memory.peak_bytes[p];
      candidate.peak_phase = static_cast<PlanPhase>(p);
    }
  }
  return candidate;
}

void evaluate_time(PlanCandidate& candidate, const CostModel& cost) {
  candidate.time = cost.time(candidate.strategy, candidate.workload, candidate.memory);
  candidate.step_seconds = 0;
  for (std::size_t p = 0; p < kPlanPhaseCount; ++p) {
    candidate.step_seconds += candidate.time.phase_seconds(static_cast<PlanPhase>(p));
  }
  candidate.tokens_per_second =
      candidate.step_seconds > 0 ? tokens_per_step(candidate.workload) / candidate.step_seconds : 0;
}

std::vector<Neighbour> neighbours_of(const PlanCandidate& winner, const NeighbourSearch& search) {
  const DimensionValues winner_values = dimension_values(winner);
  const bool rl = winner.workload.kind == WorkloadKind::rl;
  const auto recompute = static_cast<RecomputeChoice>(winner_values[static_cast<std::size_t>(Dimension::recompute)]);
  std::vector<Neighbour> neighbours;
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    const auto dimension = static_cast<Dimension>(d);
    for (int value : values_of(dimension, search.space, winner.strategy, rl)) {
      if (value == winner_values[d]) continue;
      Neighbour neighbour{dimension, winner_values, {}, false, {}};
      neighbour.values[d] = value;
      Strategy strategy = winner.strategy;
      RlSettings settings = winner.workload.rl;
      if (!change(strategy, settings, dimension, value, search.space)) {
        neighbour.broken_rule = "world.factorization";
        neighbours.push_back(neighbour);
        continue;
      }
      // The winner's own pipeline split stays while its stages do.
      if (strategy.pp != winner.strategy.pp || strategy.vpp != winner.strategy.vpp) {
        apply_balanced_split(strategy, search.num_layers);
      }
      const auto choice = dimension == Dimension::recompute ? static_cast<RecomputeChoice>(value) : recompute;
      apply_recompute(strategy, choice, search.num_layers);  // full_block's count follows PP x VPP
      Workload workload =
          with_rl_settings(winner.workload, search.space.dynamic_bsz, strategy.micro_batch, settings.rollout_tp,
                           settings.rollout_dp, settings.gpu_memory_utilization, settings.log_prob_micro_batch_per_gpu);
      workload.rl.ref_param_offload = settings.ref_param_offload;
      if (search.space.dynamic_bsz && rl) {  // token budgets other than the one changed stay the winner's
        const RlSettings& won = winner.workload.rl;
        if (dimension != Dimension::micro_batch) workload.rl.ppo_max_token_len_per_gpu = won.ppo_max_token_len_per_gpu;
        if (dimension != Dimension::log_prob_micro_batch) {
          workload.rl.log_prob_max_token_len_per_gpu = won.log_prob_max_token_len_per_gpu;
        }
      }
      neighbour.broken_rule = search.check(strategy, workload);
      if (!neighbour.broken_rule.empty() && dimension != Dimension::vpp && strategy.vpp > 1) {
        // A new PP (or TP/CP compensated by PP) may not take the winner's interleaving: try without.
        Strategy plain = strategy;
        plain.vpp = 1;
        if (plain.pp > 1) plain.moe_a2a_overlap = false;  // Megatron-core needs interleaving for it
        apply_balanced_split(plain, search.num_layers);
        apply_recompute(plain, choice, search.num_layers);
        if (search.check(plain, workload).empty()) {
          strategy = plain;
          neighbour.broken_rule = {};
        }
      }
      if (!neighbour.broken_rule.empty() && dimension != Dimension::a2a_overlap && strategy.moe_a2a_overlap) {
        // A choice Megatron-core refuses with the EP all-to-all overlap (full recompute, a PP
        // without interleaving) is compared as it would run: without the overlap.
        Strategy plain = strategy;
        plain.moe_a2a_overlap = false;
        if (search.check(plain, workload).empty()) {
          strategy = plain;
          neighbour.broken_rule = {};
        }
      }
      neighbour.candidate.strategy = strategy;
      neighbour.candidate.workload = workload;
      neighbour.values = dimension_values(neighbour.candidate);
      if (neighbour.broken_rule.empty()) {
        neighbour.candidate = evaluate_memory(strategy, workload, search.cost);
        neighbour.fits = neighbour.candidate.peak_bytes <= search.usable_bytes;
        if (neighbour.fits) evaluate_time(neighbour.candidate, search.cost);
      }
      neighbours.push_back(std::move(neighbour));
    }
  }
  return neighbours;
}

}  // namespace meshplan
