#include "search/baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "search/layout.hpp"
#include "search/neighbours.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

template <class T>
bool contains(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

template <class T>
void add(std::vector<T>& values, const T& value) {
  if (!contains(values, value)) values.push_back(value);
}

bool same_gmu(double a, double b) { return std::lround(a * 100) == std::lround(b * 100); }


// The explicit split of the launch when it differs from the planner's balanced one.
std::optional<std::pair<int, int>> own_split(const Strategy& s, std::int64_t num_layers) {
  if (s.pp < 2 || (s.first_stage_layers == 0 && s.last_stage_layers == 0)) return std::nullopt;
  Strategy balanced = s;
  apply_balanced_split(balanced, num_layers);
  if (balanced.first_stage_layers == s.first_stage_layers && balanced.last_stage_layers == s.last_stage_layers) {
    return std::nullopt;
  }
  return std::pair<int, int>{s.first_stage_layers, s.last_stage_layers};
}

// The search's recompute for a choice sets its own layer count and Megatron-core's default
// selective modules; a launch with another count or other modules is outside the space.
bool recompute_reachable(const Strategy& s, std::int64_t num_layers) {
  if (s.backend == Backend::fsdp) return true;  // gradient checkpointing on or off
  Strategy probe = s;
  apply_recompute(probe, recompute_choice_of(s), num_layers);
  if (s.recompute == Recompute::selective) return probe.recompute_modules == s.recompute_modules;
  return probe.recompute_num_layers == s.recompute_num_layers || s.recompute != Recompute::full;
}

}  // namespace

void normalize_launch(Strategy& strategy, Workload& workload, const ModelSpec& model) {
  // verl leaves expert_tensor_parallel_size null (= TP for MoE layers); a dense model has none.
  if (!model.is_moe()) strategy.etp = 1;
  // FSDP checkpoints every layer or none (verl model.enable_gradient_checkpointing).
  if (strategy.backend == Backend::fsdp && strategy.recompute == Recompute::full) {
    apply_recompute(strategy, RecomputeChoice::full_uniform, model.num_layers);
  }
  if (workload.kind != WorkloadKind::rl) return;
  RlSettings& rl = workload.rl;
  if (rl.use_dynamic_bsz) {
    set_token_budgets(workload, &strategy, rl.ppo_max_token_len_per_gpu, rl.log_prob_max_token_len_per_gpu);
    return;
  }
  rl.ppo_micro_batch_per_gpu = strategy.micro_batch;
  if (rl.log_prob_micro_batch_per_gpu == 0) rl.log_prob_micro_batch_per_gpu = strategy.micro_batch;
}

Baseline evaluate_baseline(const Strategy& strategy, const Workload& workload, const CostModel& cost,
                           const RuleCheck& check, double usable_bytes) {
  Baseline baseline;
  baseline.broken_rule = std::string(check(strategy, workload));
  baseline.candidate = evaluate_memory(strategy, workload, cost);
  baseline.fits = baseline.candidate.peak_bytes <= usable_bytes;
  evaluate_time(baseline.candidate, cost);
  return baseline;
}

void include_in_space(SearchSpace& space, const Strategy& s, const Workload& w, std::int64_t num_layers) {
  add(space.world_sizes, s.world_size());
  add(space.backends, s.backend);
  if (s.backend == Backend::megatron) {
    for (auto [values, value] : {std::pair{&space.tp, s.tp}, {&space.pp, s.pp}, {&space.vpp, s.vpp},
                                 {&space.cp, s.cp}, {&space.ep, s.ep}, {&space.etp, s.etp}}) {
      add(*values, value);
    }
    if (s.tp > 1) add(space.sequence_parallel, s.sequence_parallel);
    add(space.distributed_optimizer, s.distributed_optimizer);
    add(space.moe_a2a_overlap, s.moe_a2a_overlap);
    add(space.megatron_fsdp, s.zero == ZeroStage::zero3);
    if (const auto split = own_split(s, num_layers)) add(space.stage_splits, *split);
  } else {
    add(space.ulysses, s.ulysses_sp);
    add(space.fsdp_shard_size, s.fsdp_shard_size);
  }
  add(space.offload, offload_choice(s.offload, w.kind == WorkloadKind::rl && w.rl.ref_param_offload));
  add(space.recompute, recompute_choice_of(s));
  space.lora = s.lora;
  space.train_mtp = s.train_mtp;
  if (w.kind != WorkloadKind::rl) {
    add(space.micro_batch, s.micro_batch);
    return;
  }
  const RlSettings& rl = w.rl;
  add(space.rollout_tp, rl.rollout_tp);
  add(space.rollout_dp, rl.rollout_dp);
  if (std::none_of(space.gpu_memory_utilization.begin(), space.gpu_memory_utilization.end(),
                   [&](double gmu) { return same_gmu(gmu, rl.gpu_memory_utilization); })) {
    space.gpu_memory_utilization.push_back(rl.gpu_memory_utilization);
  }
  if (space.dynamic_bsz) {
    add(space.ppo_token_budgets, rl.ppo_max_token_len_per_gpu);
    add(space.log_prob_token_budgets, rl.log_prob_max_token_len_per_gpu);
  } else {
    add(space.micro_batch, s.micro_batch);
    add(space.log_prob_micro_batch, rl.log_prob_micro_batch_per_gpu);
  }
}

std::vector<std::string> outside_space(const SearchSpace& space, const Strategy& s, const Workload& w,
                                       std::int64_t num_layers) {
  std::vector<std::string> outside;
  auto need = [&](bool in, std::string what) {
    if (!in) outside.push_back(std::move(what));
  };
  need(contains(space.world_sizes, s.world_size()), fmt::format("gpus={}", s.world_size()));
  need(contains(space.backends, s.backend), s.backend == Backend::megatron ? "backend=megatron" : "backend=fsdp");
  if (s.backend == Backend::megatron) {
    for (auto [name, values, value] : {std::tuple{"tp", &space.tp, s.tp}, {"pp", &space.pp, s.pp},
                                       {"vpp", &space.vpp, s.vpp}, {"cp", &space.cp, s.cp}, {"ep", &space.ep, s.ep}}) {
      need(contains(*values, value), fmt::format("{}={}", name, value));
    }
    need(contains(space.etp, s.etp) || (s.etp == s.tp && contains(space.etp, 0)), fmt::format("etp={}", s.etp));
    need(s.tp == 1 || contains(space.sequence_parallel, s.sequence_parallel),
         fmt::format("sp={}", s.sequence_parallel ? 1 : 0));
    need(contains(space.distributed_optimizer, s.distributed_optimizer),
         fmt::format("distopt={}", s.distributed_optimizer ? 1 : 0));
    need(contains(space.moe_a2a_overlap, s.moe_a2a_overlap), fmt::format("a2a_overlap={}", s.moe_a2a_overlap ? 1 : 0));
    need(contains(space.megatron_fsdp, s.zero == ZeroStage::zero3),
         fmt::format("megatron_fsdp={}", s.zero == ZeroStage::zero3 ? 1 : 0));
    const auto split = own_split(s, num_layers);
    need(split ? contains(space.stage_splits, *split) : s.pp == 1 || space.balanced_split,
         fmt::format("first_stage={},last_stage={}", s.first_stage_layers, s.last_stage_layers));
  } else {
    need(contains(space.ulysses, s.ulysses_sp), fmt::format("ulysses={}", s.ulysses_sp));
    need(contains(space.fsdp_shard_size, s.fsdp_shard_size), fmt::format("fsdp_shard={}", s.fsdp_shard_size));
  }
  const OffloadChoice offload = offload_choice(s.offload, w.kind == WorkloadKind::rl && w.rl.ref_param_offload);
  need(contains(space.offload, offload), "offload=" + offload_choice_name(offload));
  need(contains(space.recompute, recompute_choice_of(s)) && recompute_reachable(s, num_layers),
       s.recompute == Recompute::selective
           ? fmt::format("recompute=selective with recompute_modules=[{}]", recompute_module_names(s.recompute_modules))
           : fmt::format("recompute={} with recompute_num_layers={}", recompute_choice_name(recompute_choice_of(s)),
                         s.recompute_num_layers));
  need(space.lora.rank == s.lora.rank, fmt::format("lora_rank={}", s.lora.rank));
  need(s.activation_offload_layers == 0, "activation offloading (the search does not offload activations)");
  need(!s.activation_func_fp8_input_store,
       "activation_func_fp8_input_store (the search keeps the MLP activation input in 16 bits)");
  need(!s.te_op_fuser, "use_transformer_engine_op_fuser (the search runs Megatron-core's unfused expert path)");
  // A launch training in FP8 or NVFP4 (verl's override_transformer_config.fp8 / fp4): the search's
  // candidates compute in the dtype every GPU of the cluster supports (search_space.cpp).
  need(s.compute_dtype == space.compute_dtype,
       fmt::format("compute dtype {} (the search plans in {})", compute_dtype_name(s.compute_dtype),
                   compute_dtype_name(space.compute_dtype)));
  need(s.backend == Backend::fsdp || s.zero != ZeroStage::zero2,
       "Megatron-FSDP optim_grads (the search tries optim_grads_params)");
  need(s.backend == Backend::fsdp || s.zero != ZeroStage::zero3 || (s.pp == 1 && s.dp > 1),
       "Megatron-FSDP with PP > 1 (the search tries it at PP 1)");
  if (w.kind != WorkloadKind::rl) {
    need(contains(space.micro_batch, s.micro_batch), fmt::format("mb={}", s.micro_batch));
    return outside;
  }
  const RlSettings& rl = w.rl;
  need(contains(space.rollout_tp, rl.rollout_tp), fmt::format("rollout_tp={}", rl.rollout_tp));
  need(contains(space.rollout_dp, rl.rollout_dp), fmt::format("rollout_dp={}", rl.rollout_dp));
  need(std::any_of(space.gpu_memory_utilization.begin(), space.gpu_memory_utilization.end(),
                   [&](double gmu) { return same_gmu(gmu, rl.gpu_memory_utilization); }),
       fmt::format("gmu={:g}", rl.gpu_memory_utilization));
  need(space.dynamic_bsz == rl.use_dynamic_bsz, fmt::format("dynamic_bsz={}", rl.use_dynamic_bsz ? 1 : 0));
  if (space.dynamic_bsz) {
    need(contains(space.ppo_token_budgets, rl.ppo_max_token_len_per_gpu),
         fmt::format("ppo_max_token_len_per_gpu={}", rl.ppo_max_token_len_per_gpu));
    need(contains(space.log_prob_token_budgets, rl.log_prob_max_token_len_per_gpu),
         fmt::format("log_prob_max_token_len_per_gpu={}", rl.log_prob_max_token_len_per_gpu));
  } else {
    need(contains(space.micro_batch, s.micro_batch), fmt::format("mb={}", s.micro_batch));
    need(contains(space.log_prob_micro_batch, rl.log_prob_micro_batch_per_gpu),
         fmt::format("lp_mb={}", rl.log_prob_micro_batch_per_gpu));
  }
  return outside;
}

}  // namespace meshplan
