#include "search/search.hpp"

#include <algorithm>
#include <limits>

#include "search/layout.hpp"
#include "search/pareto.hpp"

namespace meshplan {
namespace {

// One option of one phase, evaluated once per (layout, offload).
struct PhaseOption {
  Strategy strategy;
  Workload workload;
  PlanMemory memory;
  PlanTime time;
  double peak_bytes = 0;
  double seconds = 0;
  DimensionValues values{};
};

struct PhaseOptions {
  std::vector<PhaseOption> fitting;
  std::int64_t passed_rules = 0;          ///< options that broke no rule
  double least_peak_bytes = std::numeric_limits<double>::infinity();
  std::vector<PhaseOption> all_passing;   ///< the least-memory rule-passing option (closest miss)
  std::map<std::string, std::int64_t> rejected_by_rule;  ///< options, not candidates
};

class Searcher {
 public:
  Searcher(const ModelSpec& model, const SearchSpace& space, const Workload& workload,
           const CostModel& cost, const RuleCheck& check, const SearchOptions& options)
      : model_(model), space_(space), workload_(workload), cost_(cost), check_(check), options_(options),
        usable_bytes_(cost.capacity_bytes * (1.0 - options.headroom)),
        tokens_per_step_(tokens_per_step(workload)), rl_(workload.kind == WorkloadKind::rl),
        train_batches_(space.dynamic_bsz && rl_ ? space.ppo_token_budgets : widen(space.micro_batch)),
        log_prob_batches_(space.dynamic_bsz ? space.log_prob_token_budgets : widen(space.log_prob_micro_batch)) {}

  SearchResult run() {
    const std::vector<Layout> layouts = enumerate_layouts(space_);
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      search_layout(layouts[i]);
      if (options_.progress) options_.progress(i + 1, layouts.size());
    }
    result_.usable_bytes = usable_bytes_;
    result_.top = top_;
    result_.pareto = pareto_.points();
    result_.alternatives = alternatives_;
    if (result_.feasible == 0 && closest_) result_.closest_miss = *closest_;
    return result_;
  }

 private:
  std::vector<RecomputeChoice> recompute_choices(Backend backend) const {
    if (backend == Backend::megatron) return space_.recompute;
    // FSDP has gradient checkpointing on or off (verl: model.enable_gradient_checkpointing).
    std::vector<RecomputeChoice> choices;
    for (RecomputeChoice choice : space_.recompute) {
      if (choice == RecomputeChoice::none || choice == RecomputeChoice::full_uniform) choices.push_back(choice);
    }
    return choices;
  }

  std::int64_t rollout_option_count() const {
    return rl_ ? static_cast<std::int64_t>(space_.rollout_tp.size() * space_.rollout_dp.size() *
                                           space_.gpu_memory_utilization.size())
               : 1;
  }
  std::int64_t log_prob_option_count() const {
    return rl_ ? static_cast<std::int64_t>(log_prob_batches().size()) : 1;
  }

  // The actor's micro-batch choices: micro-batches, or with dynamic batch sizes token budgets.
  const std::vector<std::int64_t>& train_batches() const { return train_batches_; }
  const std::vector<std::int64_t>& log_prob_batches() const { return log_prob_batches_; }

  static std::vector<std::int64_t> widen(const std::vector<int>& values) {
    return std::vector<std::int64_t>(values.begin(), values.end());
  }

  // One actor-update or log-prob choice on top of `workload` (and the strategy's micro-batch).
  void set_train_batch(Strategy& strategy, Workload& workload, std::int64_t batch) const {
    if (space_.dynamic_bsz && rl_) {
      set_token_budgets(workload, &strategy, batch, workload.rl.log_prob_max_token_len_per_gpu);
    } else {
      strategy.micro_batch = static_cast<int>(batch);
      if (rl_) workload.rl.ppo_micro_batch_per_gpu = static_cast<int>(batch);
    }
  }
  void set_log_prob_batch(Workload& workload, std::int64_t batch) const {
    if (space_.dynamic_bsz) {
      set_token_budgets(workload, nullptr, workload.rl.ppo_max_token_len_per_gpu, batch);
    } else {
      workload.rl.log_prob_micro_batch_per_gpu = static_cast<int>(batch);
    }
  }

  Workload with_rl(const Workload& base, int micro_batch, int rollout_tp, int rollout_dp, double gmu,
                   int log_prob_micro) const {
    return with_rl_settings(base, space_.dynamic_bsz, micro_batch, rollout_tp, rollout_dp, gmu, log_prob_micro);
  }

  // Evaluates one option for `phase`: rules, then memory, then (if it fits) time.
  void evaluate(PhaseOptions& options, PlanPhase phase, Strategy strategy, Workload workload) {
    const std::string_view rule = check_(strategy, workload);
    if (!rule.empty()) {
      ++options.rejected_by_rule[std::string(rule)];
      return;
    }
    ++options.passed_rules;
    PhaseOption option{std::move(strategy), std::move(workload), {}, {}, 0, 0, {}};
    PlanCandidate probe;
    probe.strategy = option.strategy;
    probe.workload = option.workload;
    option.values = dimension_values(probe);
    option.memory = phase == PlanPhase::rollout && cost_.rollout_memory
                        ? cost_.rollout_memory(option.strategy, option.workload)
                        : cost_.memory(option.strategy, option.workload);
    if (phase == PlanPhase::rollout && !option.memory.broken_rule.empty()) {
      --options.passed_rules;
      ++options.rejected_by_rule[std::string(option.memory.broken_rule)];
      return;
    }
    option.peak_bytes = option.memory.of(phase);
    if (option.peak_bytes > usable_bytes_) {
      if (option.peak_bytes < options.least_peak_bytes) {
        options.least_peak_bytes = option.peak_bytes;
        options.all_passing.assign(1, option);
      }
      return;
    }
    if (phase == PlanPhase::rollout && cost_.rollout_seconds) {
      option.time.seconds[static_cast<std::size_t>(TimeComponent::rollout)] =
          cost_.rollout_seconds(option.strategy, option.workload, option.memory);
    } else {
      option.time = cost_.time(option.strategy, option.workload, option.memory);
    }
    option.seconds = option.time.phase_seconds(phase);
    if (option.peak_bytes < options.least_peak_bytes) {
      options.least_peak_bytes = option.peak_bytes;
      options.all_passing.assign(1, option);
    }
    options.fitting.push_back(std::move(option));
  }

  void search_layout(const Layout& layout) {
    Strategy base = layout_strategy(layout, space_.compute_dtype, model_.num_layers);
    base.lora = space_.lora;
    base.train_mtp = space_.train_mtp;
    if (layout.backend == Backend::megatron) {
      base.cuda_graph_impl = space_.cuda_graph_impl;
      base.cuda_graph_modules = space_.cuda_graph_modules;
      base.moe_dispatcher = space_.moe_dispatcher;
      base.moe_dispatcher_sms = space_.moe_dispatcher_sms;
      if (space_.optimizer_on_cpu) {
        base.offload.optimizer_on_cpu = true;
        base.offload.optimizer_fraction = space_.optimizer_on_cpu_fraction;
      }
    }
    Workload base_workload = with_rl(workload_, space_.micro_batch.front(), rl_ ? space_.rollout_tp.front() : 1,
                                     rl_ ? space_.rollout_dp.front() : 1, rl_ ? space_.gpu_memory_utilization.front() : 0,
                                     rl_ ? space_.log_prob_micro_batch.front() : 0);
    set_train_batch(base, base_workload, train_batches().front());
    if (rl_) set_log_prob_batch(base_workload, log_prob_batches().front());
    const std::vector<RecomputeChoice> recomputes = recompute_choices(layout.backend);
    const std::vector<bool> overlaps = a2a_overlap_choices(base);
    const std::int64_t train_count =
        static_cast<std::int64_t>(train_batches().size() * recomputes.size() * overlaps.size());
    const std::int64_t per_offload = train_count * rollout_option_count() * log_prob_option_count();
    const std::vector<OffloadChoice> offloads = offload_choices(base);
    const std::int64_t layout_size = per_offload * static_cast<std::int64_t>(offloads.size());
    result_.searched += layout_size;
    if (const std::string_view rule = check_(base, base_workload); !rule.empty()) {
      result_.rejected[std::string(rule)] += layout_size;
      return;
    }
    for (OffloadChoice offload : offloads) {
      Strategy with_offload = base;
      Workload offload_workload = base_workload;
      apply_offload(with_offload, offload_workload, offload);
      search_offload(with_offload, offload_workload, recomputes, overlaps);
    }
  }

  // Megatron-FSDP already shards what the actor's offload would move, and verl's
  // offload_megatron_model_to_cpu (utils/megatron_utils.py) handles Megatron's DDP buffers, not
  // Megatron-FSDP's sharded parameters: with it the search offloads the reference model at most.
  std::vector<OffloadChoice> offload_choices(const Strategy& base) const {
    if (base.backend != Backend::megatron || base.zero != ZeroStage::zero3) return space_.offload;
    std::vector<OffloadChoice> choices;
    for (OffloadChoice offload : space_.offload) {
      if (offload == OffloadChoice::none || offload == OffloadChoice::ref) choices.push_back(offload);
    }
    return choices;
  }

  // EP all-to-all overlap is a Megatron setting of layouts with expert parallelism; elsewhere the
  // search leaves it off, unless --fix a2a_overlap=1 asks for it (and the rules then refuse it).
  std::vector<bool> a2a_overlap_choices(const Strategy& base) const {
    if (base.backend == Backend::megatron && base.ep > 1) return space_.moe_a2a_overlap;
    const bool only_on = space_.moe_a2a_overlap.size() == 1 && space_.moe_a2a_overlap.front();
    return {only_on};
  }

  void search_offload(const Strategy& base, const Workload& base_workload,
                      const std::vector<RecomputeChoice>& recomputes, const std::vector<bool>& overlaps) {
    PhaseOptions train;
    for (std::int64_t batch : train_batches()) {
      for (RecomputeChoice recompute : recomputes) {
        for (bool overlap : overlaps) {
          Strategy strategy = base;
          Workload workload = base_workload;
          set_train_batch(strategy, workload, batch);
          apply_recompute(strategy, recompute, model_.num_layers);
          strategy.moe_a2a_overlap = overlap;
          evaluate(train, PlanPhase::update, std::move(strategy), std::move(workload));
        }
      }
    }
    PhaseOptions rollout;
    PhaseOptions log_prob;
    if (rl_) {
      for (int rollout_tp : space_.rollout_tp) {
        for (int rollout_dp : space_.rollout_dp) {
          for (double gmu : space_.gpu_memory_utilization) {
            Workload workload = base_workload;
            set_rollout_layout(workload.rl, rollout_tp, rollout_dp);
            workload.rl.gpu_memory_utilization = gmu;
            evaluate(rollout, PlanPhase::rollout, base, std::move(workload));
          }
        }
      }
      for (std::int64_t batch : log_prob_batches()) {
        Workload workload = base_workload;
        set_log_prob_batch(workload, batch);
        evaluate(log_prob, PlanPhase::log_prob, base, std::move(workload));
      }
    } else {
      rollout.fitting.push_back(PhaseOption{base, base_workload, {}, {}, 0, 0, {}});
      rollout.passed_rules = 1;
      log_prob = rollout;
      rollout.least_peak_bytes = log_prob.least_peak_bytes = 0;
      rollout.all_passing = rollout.fitting;
      log_prob.all_passing = log_prob.fitting;
    }
    count_rejections(train, rollout, log_prob);
    combine(train, rollout, log_prob);
  }

  // Candidates are attributed to the first phase whose option broke a rule (update, rollout,
  // log-prob), then to memory; the counts add up to the candidates of this (layout, offload).
  void count_rejections(const PhaseOptions& train, const PhaseOptions& rollout, const PhaseOptions& log_prob) {
    const std::int64_t rollout_all = rollout_option_count();
    const std::int64_t log_prob_all = log_prob_option_count();
    for (const auto& [rule, count] : train.rejected_by_rule) result_.rejected[rule] += count * rollout_all * log_prob_all;
    for (const auto& [rule, count] : rollout.rejected_by_rule) {
      result_.rejected[rule] += train.passed_rules * count * log_prob_all;
    }
    for (const auto& [rule, count] : log_prob.rejected_by_rule) {
      result_.rejected[rule] += train.passed_rules * rollout.passed_rules * count;
    }
    const auto fit = static_cast<std::int64_t>(train.fitting.size() * rollout.fitting.size() * log_prob.fitting.size());
    const std::int64_t passed = train.passed_rules * rollout.passed_rules * log_prob.passed_rules;
    if (passed > fit) result_.rejected["memory"] += passed - fit;
    result_.feasible += fit;
  }

  PlanCandidate build(const PhaseOption& train, const PhaseOption& rollout, const PhaseOption& log_prob) const {
    PlanCandidate candidate;
    candidate.strategy = train.strategy;
    candidate.workload = train.workload;
    RlSettings& rl = candidate.workload.rl;
    set_rollout_layout(rl, rollout.workload.rl.rollout_tp, rollout.workload.rl.rollout_dp);
    rl.gpu_memory_utilization = rollout.workload.rl.gpu_memory_utilization;
    rl.log_prob_micro_batch_per_gpu = log_prob.workload.rl.log_prob_micro_batch_per_gpu;
    rl.log_prob_max_token_len_per_gpu = log_prob.workload.rl.log_prob_max_token_len_per_gpu;
    candidate.gpus = job_gpus(train.strategy, candidate.workload);
    const std::array<const PhaseOption*, kPlanPhaseCount> by_phase = {&rollout, &log_prob, &train};
    for (std::size_t p = 0; p < kPlanPhaseCount; ++p) {
      candidate.memory.peak_bytes[p] = by_phase[p]->memory.peak_bytes[p];
      if (candidate.memory.peak_bytes[p] > candidate.peak_bytes) {
        candidate.peak_bytes = candidate.memory.peak_bytes[p];
        candidate.peak_phase = static_cast<PlanPhase>(p);
      }
    }
    for (std::size_t c = 0; c < kTimeComponentCount; ++c) {
      const auto phase = static_cast<std::size_t>(phase_of(static_cast<TimeComponent>(c)));
      candidate.time.seconds[c] = by_phase[phase]->time.seconds[c];
    }
    // The update's MFU depends on the training layout only (verl perf/mfu/actor).
    candidate.time.update_mfu = train.time.update_mfu;
    candidate.step_seconds = train.seconds + rollout.seconds + log_prob.seconds;
    candidate.tokens_per_second = candidate.step_seconds > 0 ? tokens_per_step_ / candidate.step_seconds : 0;
    return candidate;
  }

  void combine(const PhaseOptions& train, const PhaseOptions& rollout, const PhaseOptions& log_prob) {
    if (!train.all_passing.empty() && !rollout.all_passing.empty() && !log_prob.all_passing.empty()) {
      const double least = std::max({train.least_peak_bytes, rollout.least_peak_bytes, log_prob.least_peak_bytes});
      if (!closest_ || least < closest_->peak_bytes) {
        closest_ = build(train.all_passing.front(), rollout.all_passing.front(), log_prob.all_passing.front());
      }
    }
    for (const PhaseOption& t : train.fitting) {
      for (const PhaseOption& r : rollout.fitting) {
        for (const PhaseOption& l : log_prob.fitting) {
          const double peak = std::max({t.peak_bytes, r.peak_bytes, l.peak_bytes});
          const double seconds = t.seconds + r.seconds + l.seconds;
          const double tokens_per_second = seconds > 0 ? tokens_per_step_ / seconds : 0;
          const int gpus = t.strategy.world_size();
          add_sample(peak, tokens_per_second);
          const RankKey key = rank_key(gpus, peak, tokens_per_second, options_.objective);
          const bool enters_top = static_cast<int>(top_.size()) < options_.top_k ||
                                  key < rank_key(top_.back(), options_.objective);
          const bool enters_pareto = pareto_.accepts(peak, tokens_per_second);
          std::optional<PlanCandidate> candidate;
          auto built = [&]() -> const PlanCandidate& {
            if (!candidate) candidate = build(t, r, l);
            return *candidate;
          };
          if (enters_top) insert_top(built());
          if (enters_pareto) pareto_.add(built());
          update_alternatives(key, t, built);
        }
      }
    }
  }

  // Keeps every stride-th feasible point; when the sample is full, every other point is dropped
  // and the stride doubles, so the sample stays evenly spread over the search order.
  void add_sample(double peak, double tokens_per_second) {
    if (sample_countdown_-- > 0) return;
    sample_countdown_ = sample_stride_ - 1;
    result_.sample.emplace_back(peak, tokens_per_second);
    if (result_.sample.size() < SearchResult::kSampleLimit) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < result_.sample.size(); i += 2) result_.sample[kept++] = result_.sample[i];
    result_.sample.resize(kept);
    sample_stride_ *= 2;
    sample_countdown_ = sample_stride_ - 1;
  }

  // The top list keeps one candidate per plan shape: candidates that differ only in micro-batch
  // sizes or the rollout memory share are variants of one plan, and only the best is listed.
  static DimensionValues shape_of(const PlanCandidate& candidate) {
    DimensionValues shape = dimension_values(candidate);
    for (Dimension d : {Dimension::micro_batch, Dimension::log_prob_micro_batch, Dimension::gpu_memory_utilization}) {
      shape[static_cast<std::size_t>(d)] = 0;
    }
    return shape;
  }

  void insert_top(const PlanCandidate& candidate) {
    const RankKey key = rank_key(candidate, options_.objective);
    const DimensionValues shape = shape_of(candidate);
    const auto same = std::find_if(top_.begin(), top_.end(), [&](const PlanCandidate& c) { return shape_of(c) == shape; });
    if (same != top_.end()) {
      if (!(key < rank_key(*same, options_.objective))) return;
      top_.erase(same);
    }
    const auto at = std::upper_bound(top_.begin(), top_.end(), key, [&](const RankKey& k, const PlanCandidate& c) {
      return k < rank_key(c, options_.objective);
    });
    top_.insert(at, candidate);
    if (static_cast<int>(top_.size()) > options_.top_k) top_.pop_back();
  }

  // The best candidate of each backend, for the explanation's backend comparison.
  template <class Build>
  void update_alternatives(const RankKey& key, const PhaseOption& t, Build& built) {
    const int backend = t.values[static_cast<std::size_t>(Dimension::backend)];
    auto slot = std::find_if(alternatives_.begin(), alternatives_.end(),
                             [&](const Alternative& a) { return a.value == backend; });
    if (slot == alternatives_.end()) {
      alternatives_.push_back(Alternative{Dimension::backend, backend, built()});
    } else if (key < rank_key(slot->candidate, options_.objective)) {
      slot->candidate = built();
    }
  }

  const ModelSpec& model_;
  const SearchSpace& space_;
  const Workload& workload_;
  const CostModel& cost_;
  const RuleCheck& check_;
  const SearchOptions& options_;
  const double usable_bytes_;
  const double tokens_per_step_;
  const bool rl_;
  const std::vector<std::int64_t> train_batches_;
  const std::vector<std::int64_t> log_prob_batches_;
  SearchResult result_;
  std::vector<PlanCandidate> top_;
  ParetoFrontier pareto_;
  std::vector<Alternative> alternatives_;
  std::optional<PlanCandidate> closest_;
  std::int64_t sample_stride_ = 1;
  std::int64_t sample_countdown_ = 0;
};

}  // namespace

SearchResult search_plans(const ModelSpec& model, const SearchSpace& space, const Workload& workload,
                          const CostModel& cost, const RuleCheck& check, const SearchOptions& options) {
  return Searcher(model, space, workload, cost, check, options).run();
}

}  // namespace meshplan
