#include "search/layout.hpp"

#include <algorithm>

#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

bool allowed(const std::vector<int>& values, int value) {
  return values.empty() || std::find(values.begin(), values.end(), value) != values.end();
}

void add_megatron_layouts(const SearchSpace& space, int world, std::vector<Layout>& layouts) {
  const bool plain_allowed =
      std::find(space.megatron_fsdp.begin(), space.megatron_fsdp.end(), false) != space.megatron_fsdp.end();
  for (int tp : space.tp) {
    for (int pp : space.pp) {
      for (int cp : space.cp) {
        if (world % (tp * pp * cp) != 0) continue;
        const int dp = world / (tp * pp * cp);
        if (!allowed(space.dp, dp)) continue;
        for (int vpp : space.vpp) {
          for (int ep : space.ep) {
            std::vector<int> etps;
            for (int etp : space.etp) {
              const int value = etp == 0 ? tp : etp;
              if (std::find(etps.begin(), etps.end(), value) == etps.end()) etps.push_back(value);
            }
            for (int etp : etps) {
              std::vector<bool> sps = space.sequence_parallel;
              if (tp == 1) sps = {false};  // Megatron turns SP off at TP = 1 (verl-rules R31)
              for (bool sp : sps) {
                for (bool distopt : space.distributed_optimizer) {
                  const Layout layout{world, Backend::megatron, tp, pp, vpp, cp, ep, etp, dp, sp, distopt, 1, 0,
                                      false, 0, 0, false};
                  if (pp == 1) {
                    // Megatron-FSDP is tried where Megatron-Bridge's FSDP recipes run it: without pipeline
                    // parallelism, with DP to shard over (it brings the distributed optimizer along).
                    for (bool fsdp : space.megatron_fsdp) {
                      if (!fsdp) layouts.push_back(layout);
                      if (fsdp && dp > 1 && distopt) {
                        Layout sharded = layout;
                        sharded.megatron_fsdp = true;
                        layouts.push_back(sharded);
                      }
                    }
                    continue;
                  }
                  if (!plain_allowed) continue;  // --fix megatron_fsdp=1: PP > 1 is not tried with it
                  if (space.balanced_split) layouts.push_back(layout);
                  for (const auto& [first, last] : space.stage_splits) {
                    Layout split = layout;
                    split.split_given = true;
                    split.first_stage_layers = first;
                    split.last_stage_layers = last;
                    layouts.push_back(split);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

void add_fsdp_layouts(const SearchSpace& space, int world, std::vector<Layout>& layouts) {
  if (!allowed(space.dp, world)) return;
  for (int ulysses : space.ulysses) {
    for (int shard : space.fsdp_shard_size) {
      if (shard >= world) continue;  // HSDP over the whole world is plain full sharding (shard 0)
      layouts.push_back(
          Layout{world, Backend::fsdp, 1, 1, 1, 1, 1, 1, world, false, true, ulysses, shard, false, 0, 0, false});
    }
  }
}

}  // namespace

std::vector<Layout> enumerate_layouts(const SearchSpace& space) {
  std::vector<Layout> layouts;
  for (int world : space.world_sizes) {
    for (Backend backend : space.backends) {
      if (backend == Backend::megatron) add_megatron_layouts(space, world, layouts);
      if (backend == Backend::fsdp) add_fsdp_layouts(space, world, layouts);
    }
  }
  return layouts;
}

Strategy layout_strategy(const Layout& layout, Dtype compute_dtype, std::int64_t num_layers) {
  Strategy strategy;
  strategy.backend = layout.backend;
  strategy.tp = layout.tp;
  strategy.pp = layout.pp;
  strategy.vpp = layout.vpp;
  strategy.cp = layout.cp;
  strategy.ep = layout.ep;
  strategy.etp = layout.etp;
  strategy.dp = layout.dp;
  strategy.sequence_parallel = layout.sequence_parallel;
  strategy.distributed_optimizer = layout.backend == Backend::megatron && layout.distributed_optimizer;
  strategy.zero = layout.backend == Backend::fsdp || layout.megatron_fsdp ? ZeroStage::zero3 : ZeroStage::none;
  strategy.ulysses_sp = layout.ulysses;
  strategy.fsdp_shard_size = layout.fsdp_shard_size;
  strategy.compute_dtype = compute_dtype;
  if (layout.split_given) {
    strategy.first_stage_layers = layout.first_stage_layers;
    strategy.last_stage_layers = layout.last_stage_layers;
  } else {
    apply_balanced_split(strategy, num_layers);
  }
  return strategy;
}

RecomputeChoice recompute_choice_of(const Strategy& strategy) {
  switch (strategy.recompute) {
    case Recompute::none: return RecomputeChoice::none;
    case Recompute::selective:
      return strategy.recompute_modules == kRecomputeMoe ? RecomputeChoice::selective_moe : RecomputeChoice::selective;
    case Recompute::full: break;
  }
  return strategy.recompute_method == RecomputeMethod::block ? RecomputeChoice::full_block
                                                             : RecomputeChoice::full_uniform;
}

void apply_recompute(Strategy& strategy, RecomputeChoice choice, std::int64_t num_layers) {
  strategy.recompute = Recompute::none;
  strategy.recompute_method = RecomputeMethod::uniform;
  strategy.recompute_num_layers = 0;
  strategy.recompute_modules = kDefaultRecomputeModules;
  switch (choice) {
    case RecomputeChoice::none: break;
    case RecomputeChoice::selective: strategy.recompute = Recompute::selective; break;
    case RecomputeChoice::selective_moe:
      strategy.recompute = Recompute::selective;
      strategy.recompute_modules = kRecomputeMoe;
      break;
    case RecomputeChoice::full_uniform:
      strategy.recompute = Recompute::full;
      strategy.recompute_num_layers = 1;
      break;
    case RecomputeChoice::full_block: {
      strategy.recompute = Recompute::full;
      strategy.recompute_method = RecomputeMethod::block;
      const std::int64_t per_chunk = std::max<std::int64_t>(1, num_layers / (strategy.pp * strategy.vpp));
      strategy.recompute_num_layers = static_cast<int>(std::max<std::int64_t>(1, per_chunk / 2));
      break;
    }
  }
}

void set_rollout_layout(RlSettings& rl, int rollout_tp, int rollout_dp) {
  rl.rollout_tp = rollout_tp;
  rl.rollout_dp = rollout_dp;
  rl.rollout_ep = rollout_dp > 1 ? rollout_tp * rollout_dp : 1;
}

Workload with_rl_settings(const Workload& base, bool dynamic_bsz, int micro_batch, int rollout_tp, int rollout_dp,
                          double gmu, int log_prob_micro_batch) {
  Workload workload = base;
  if (workload.kind != WorkloadKind::rl) return workload;
  RlSettings& rl = workload.rl;
  rl.ppo_micro_batch_per_gpu = micro_batch;
  set_rollout_layout(rl, rollout_tp, rollout_dp);
  rl.gpu_memory_utilization = gmu;
  rl.log_prob_micro_batch_per_gpu = log_prob_micro_batch;
  rl.use_dynamic_bsz = dynamic_bsz;
  if (dynamic_bsz) {
    const std::int64_t width = rl.prompt_len + rl.response_len;
    rl.ppo_max_token_len_per_gpu = micro_batch * width;
    rl.log_prob_max_token_len_per_gpu = log_prob_micro_batch * width;
  }
  return workload;
}

void set_token_budgets(Workload& workload, Strategy* strategy, std::int64_t ppo_tokens, std::int64_t log_prob_tokens) {
  RlSettings& rl = workload.rl;
  const std::int64_t width = std::max<std::int64_t>(1, rl.prompt_len + rl.response_len);
  rl.ppo_max_token_len_per_gpu = ppo_tokens;
  rl.log_prob_max_token_len_per_gpu = log_prob_tokens;
  rl.ppo_micro_batch_per_gpu = static_cast<int>(std::max<std::int64_t>(1, ppo_tokens / width));
  rl.log_prob_micro_batch_per_gpu = static_cast<int>(std::max<std::int64_t>(1, log_prob_tokens / width));
  if (strategy) strategy->micro_batch = rl.ppo_micro_batch_per_gpu;
}

}  // namespace meshplan
