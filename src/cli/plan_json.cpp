#include "cli/plan_json.hpp"

#include <nlohmann/json.hpp>

#include "cost/memory/memory_estimate.hpp"
#include "report/memory_json.hpp"
#include "cost/time/host_cpu_sensitivity.hpp"
#include "cost/time/step_time.hpp"
#include "report/time_report.hpp"
#include "search/dimension.hpp"
#include "search/real_cost_model.hpp"
#include "search/search_space.hpp"
#include "search/sized_cluster.hpp"
#include "strategy/moe_dispatcher.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

json strategy_json(const PlanCandidate& c) {
  const Strategy& s = c.strategy;
  const DimensionValues values = dimension_values(c);
  json j = {{"backend", s.backend == Backend::megatron ? "megatron" : "fsdp"},
            {"tp", s.tp}, {"pp", s.pp}, {"vpp", s.vpp}, {"cp", s.cp}, {"ep", s.ep}, {"etp", s.etp}, {"dp", s.dp},
            {"sequence_parallel", s.sequence_parallel}, {"distributed_optimizer", s.distributed_optimizer},
            {"ulysses_sp", s.ulysses_sp}, {"fsdp_shard_size", s.fsdp_shard_size}, {"micro_batch", s.micro_batch},
            {"recompute", recompute_choice_name(static_cast<RecomputeChoice>(values[static_cast<std::size_t>(Dimension::recompute)]))},
            {"recompute_num_layers", s.recompute_num_layers},
            {"first_stage_layers", s.first_stage_layers},
            {"last_stage_layers", s.last_stage_layers},
            {"account_for_embedding_in_pipeline_split", s.pipeline_counts_embedding},
            {"account_for_loss_in_pipeline_split", s.pipeline_counts_loss},
            {"pipeline_layout", s.pipeline_layout},
            {"moe_a2a_overlap", s.moe_a2a_overlap},
            {"moe_token_dispatcher_type", std::string(moe_dispatcher_name(s.moe_dispatcher))},
            {"cuda_graph_impl", cuda_graph_impl_name(s.cuda_graph_impl)},
            {"cuda_graph_modules", cuda_graph_module_names(s.cuda_graph_modules)},
            {"megatron_fsdp", s.backend == Backend::megatron && s.zero == ZeroStage::zero3},
            {"offload", offload_choice_name(static_cast<OffloadChoice>(values[static_cast<std::size_t>(Dimension::offload)]))},
            {"cpu_optimizer_fraction", s.offload.optimizer_on_cpu ? s.offload.optimizer_fraction : 0.0},
            {"compute_dtype", s.compute_dtype == Dtype::fp16 ? "fp16" : "bf16"}};
  if (c.workload.kind == WorkloadKind::rl) {
    const RlSettings& rl = c.workload.rl;
    j["rl"] = {{"rollout_tp", rl.rollout_tp}, {"rollout_dp", rl.rollout_dp}, {"rollout_ep", rl.rollout_ep},
               {"gpu_memory_utilization", rl.gpu_memory_utilization},
               {"ppo_micro_batch_size_per_gpu", rl.ppo_micro_batch_per_gpu},
               {"log_prob_micro_batch_size_per_gpu", rl.log_prob_micro_batch_per_gpu},
               {"use_dynamic_bsz", rl.use_dynamic_bsz}, {"ppo_max_token_len_per_gpu", rl.ppo_max_token_len_per_gpu},
               {"log_prob_max_token_len_per_gpu", rl.log_prob_max_token_len_per_gpu},
               {"ref_param_offload", rl.ref_param_offload}, {"rollout_gpus", rl.rollout_gpus},
               {"off_policy_steps", rl.off_policy_steps}, {"partial_rollout", rl.partial_rollout}};
  }
  return j;
}

// The candidate's estimate in the shape of `estimate --json`: its `memory` object (the same
// builder) and `time` with phases, breakdown and utilisation (issue 4's field names).
json estimate_json(const PlanCandidate& c, const PlanJsonInputs& in) {
  const Cluster sized = first_gpus(in.cluster, c.gpus);
  const ModelSpec& model = in.model;
  const MemoryEstimate memory = estimate_memory(model, sized, c.strategy, c.workload, MemoryOptions{}, nullptr);
  const TimeOptions options = time_options_for(memory, in.time_options);
  const TimeEstimate time = estimate_time(model, sized, c.strategy, c.workload, options, nullptr);
  json time_json = time_to_json(time);
  time_json["host_cpu"] = host_cpu_sensitivity_json(host_cpu_sensitivity(model, sized, c.strategy, c.workload, options));
  time_json["actor_update_mfu"] = time.actor_update_mfu;  // present in every plan candidate, 0 outside RL
  time_json["accuracy"] = time_accuracy_json(
      time_accuracy_for(model, sized.groups.front().gpu, c.strategy, c.workload, time.moe_host_wait_share()));
  return {{"memory", memory_estimate_json(memory, c.workload.kind == WorkloadKind::rl)}, {"time", time_json}};
}

json point_json(const PlanCandidate& c) {
  return {{"strategy", strategy_json(c)}, {"gpus", c.gpus}, {"peak_bytes", c.peak_bytes},
          {"peak_phase", plan_phase_name(c.peak_phase)}, {"step_seconds", c.step_seconds},
          {"tokens_per_second", c.tokens_per_second}};
}

}  // namespace

std::string plan_json(const PlanJsonInputs& in) {
  const PlanView& view = in.view;
  const SearchResult& r = *view.result;
  json out = {{"schema_version", kPlanJsonSchemaVersion}, {"model", view.model_name}, {"cluster", view.cluster_text},
              {"workload", view.workload_name}, {"objective", view.objective_name}, {"headroom", view.headroom},
              {"searched", r.searched}, {"feasible", r.feasible}, {"rejected", r.rejected},
              {"usable_bytes", r.usable_bytes}, {"elapsed_ms", view.elapsed_ms}};
  if (!view.cluster_notes.empty()) out["cluster_notes"] = view.cluster_notes;
  json candidates = json::array();
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    json entry = point_json(r.top[i]);
    entry["rank"] = i + 1;
    entry["estimate"] = estimate_json(r.top[i], in);
    candidates.push_back(entry);
  }
  out["candidates"] = candidates;
  if (view.baseline) {
    const PlanCandidate& b = view.baseline->baseline.candidate;
    for (std::size_t i = 0; i < r.top.size(); ++i) {
      candidates[i]["speedup_over_baseline"] = speedup_over_baseline(*view.baseline, r.top[i]);
    }
    out["candidates"] = candidates;
    json baseline = point_json(b);
    baseline["source"] = view.baseline->source;
    // A launch that breaks a rule cannot start (a TP x PP x CP that does not divide its GPUs
    // leaves no data-parallel rank): it has no estimate and no verdict on memory.
    const bool runs = view.baseline->baseline.broken_rule.empty();
    baseline["estimate"] = runs ? estimate_json(b, in) : json(nullptr);
    baseline["fits"] = runs ? json(view.baseline->baseline.fits) : json(nullptr);
    baseline["broken_rule"] = view.baseline->baseline.broken_rule;
    baseline["broken_message"] = view.baseline->broken_message;
    baseline["outside_space"] = view.baseline->outside_space;
    out["baseline"] = baseline;
  }
  json pareto = json::array();
  for (const PlanCandidate& c : r.pareto) pareto.push_back(point_json(c));
  out["pareto"] = pareto;
  if (r.closest_miss) {
    out["closest_miss"] = point_json(*r.closest_miss);
    json remedies = json::array();
    for (const Remedy& remedy : view.remedies) {
      remedies.push_back({{"change", remedy.change}, {"peak_bytes", remedy.peak_bytes}, {"fits", remedy.fits}});
    }
    out["remedies"] = remedies;
  }
  if (view.explanation) {
    json comparisons = json::array();
    for (const Comparison& c : view.explanation->comparisons) {
      json versus = json::array();
      for (const Versus& v : c.versus) {
        versus.push_back({{"winner", v.winner_setting}, {"other", v.other_setting},
                          {"step_time_change", v.step_time_change}, {"peak_bytes_change", v.peak_bytes_change},
                          {"cause", time_component_name(v.cause)}, {"cause_seconds", v.cause_seconds}});
      }
      comparisons.push_back({{"dimension", dimension_name(c.dimension)}, {"versus", versus},
                             {"not_fitting", c.not_fitting}, {"breaking", c.breaking}, {"sentence", c.sentence}});
    }
    out["explanation"] = {{"comparisons", comparisons},
                          {"indifferent", view.explanation->indifferent},
                          {"rule_of_thumb", view.explanation->rule_of_thumb}};
  }
  if (view.data_loader.images_per_step > 0) {
    out["data_loader"] = {{"images_per_step", view.data_loader.images_per_step},
                          {"cpu_seconds_per_step", view.data_loader.cpu_seconds_per_step},
                          {"dataloader_num_workers", view.data_loader.workers}};
  }
  if (view.heterogeneous) {
    const HeterogeneousPlan& h = *view.heterogeneous;
    json shares = json::array();
    for (const GroupShare& s : h.pipeline) {
      shares.push_back({{"gpu", s.gpu}, {"gpus", s.gpus}, {"layers", s.layers}, {"max_layers", s.max_layers}});
    }
    out["heterogeneous"] = {{"compute_dtype", h.compute_dtype == Dtype::fp16 ? "fp16" : "bf16"}, {"choice", h.choice},
                            {"gain_over_alone", h.gain_over_alone}, {"pipeline", shares},
                            {"pipeline_step_seconds", h.pipeline_step_seconds},
                            {"pool_split_step_seconds", h.pool_split_step_seconds}, {"explanation", h.explanation}};
  }
  if (view.min_gpus) out["min_gpus"] = *view.min_gpus;
  if (!view.placements.empty()) {
    nlohmann::json placements = nlohmann::json::array();
    for (const PlanView::Placement& p : view.placements) {
      placements.push_back({{"engine_gpus", p.engine_gpus},
                            {"trainer_gpus", p.trainer_gpus},
                            {"step_seconds", p.best ? nlohmann::json(p.best->step_seconds) : nlohmann::json()},
                            {"strategy", p.best ? nlohmann::json(describe_strategy(*p.best)) : nlohmann::json()}});
    }
    out["placements"] = placements;
  }
  return out.dump(2);
}

}  // namespace meshplan
