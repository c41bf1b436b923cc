// The batch rules (strategy/strategy_rule.hpp): the global batch against DP x micro-batch, verl's
// mini-batches, interleaved micro-batch groups and the RL rollout's TP.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "strategy/strategy_rule.hpp"

namespace meshplan::strategy_rule {
namespace {

bool is_rl(const Inputs& in) { return in.w.kind == WorkloadKind::rl; }
int ppo_micro(const Inputs& in) {
  return in.w.rl.ppo_micro_batch_per_gpu > 0 ? in.w.rl.ppo_micro_batch_per_gpu : in.s.micro_batch;
}
std::int64_t rl_mini(const Inputs& in) {
  return in.w.rl.ppo_mini_batch > 0 ? in.w.rl.ppo_mini_batch : in.w.global_batch;
}
/// verl's data-parallel size of the actor: N / (TP*PP*CP) for Megatron, N / ulysses for FSDP.
std::int64_t actor_dp(const Inputs& in) {
  const std::int64_t model_parallel =
      in.s.backend == Backend::fsdp ? in.s.ulysses_sp : std::int64_t{in.s.tp} * in.s.pp * in.s.cp;
  return model_parallel > 0 ? world(in) / model_parallel : 0;
}

/// Micro-batches one optimizer step runs per rank: global / (DP x micro) for pretraining, the
/// per-GPU mini-batch (mini x n / DP) over the micro-batch for RL; 0 when not known statically
/// (dynamic batch sizes) or the batch does not divide.
std::int64_t micro_batches_per_update(const Inputs& in) {
  const std::int64_t dp = actor_dp(in);
  if (dp <= 0) return 0;
  if (!is_rl(in)) {
    const std::int64_t per_rank = dp * in.s.micro_batch;
    return in.w.global_batch > 0 && divides(per_rank, in.w.global_batch) ? in.w.global_batch / per_rank : 0;
  }
  if (in.w.rl.use_dynamic_bsz) return 0;
  const std::int64_t local = rl_mini(in) * in.w.rl.n / dp;
  return divides(ppo_micro(in), local) ? local / ppo_micro(in) : 0;
}

/// A rollout replica of `rtp` x rollout_dp GPUs tiles the nodes (R52, R53) and vLLM splits the
/// heads evenly over `rtp`.
bool rollout_tp_valid(const Inputs& in, std::int64_t rtp) {
  const std::int64_t per_node = in.c.groups.empty() ? 0 : in.c.groups.front().gpus_per_node;
  const std::int64_t replica = rtp * std::max(in.w.rl.rollout_dp, 1);
  // Engines on GPUs of their own tile those GPUs; colocated ones tile the trainer's.
  const std::int64_t gpus = in.w.rl.rollout_gpus > 0 ? in.w.rl.rollout_gpus : world(in);
  const bool tiles = replica <= per_node ? divides(replica, per_node) && divides(replica, gpus)
                                         : divides(per_node, replica) && divides(replica, gpus);
  // vLLM gated_delta_net_state_shape: divide(num_v_heads, tp) asserts; qwen3_next.py shards the
  // key heads as num_k_heads // tp.
  return rtp >= 1 && tiles && divides(rtp, heads(in)) && (divides(rtp, kv_heads(in)) || divides(kv_heads(in), rtp)) &&
         divides_linear_heads(in, rtp);
}

const std::array<Rule, 5> kBatchRules{{
    // The batch's DP: FSDP's Ulysses ranks of one group share their sequences (actor_dp).
    {{"batch.global-divisible", "the global batch is a multiple of DP x micro-batch (pretrain/SFT)",
      "Megatron arguments.py (global batch divisible by micro batch x DP)"},
     [](const Inputs& in) {
       return !is_rl(in) && in.w.global_batch > 0 && !divides(actor_dp(in) * in.s.micro_batch, in.w.global_batch);
     },
     [](const Inputs& in, Violation& v) {
       const std::int64_t dp = std::max<std::int64_t>(1, actor_dp(in));
       v.message = fmt::format("global batch {} is not divisible by DP x micro-batch = {} x {}", in.w.global_batch,
                               dp, in.s.micro_batch);
       v.valid = "micro-batch in " + values_where(in.w.global_batch / dp, [&](std::int64_t mb) {
                   return divides(dp * mb, in.w.global_batch);
                 });
     }},
    {{"rl.train-batch-ge-mini", "data.train_batch_size >= actor.ppo_mini_batch_size", "verl ActorConfig.validate (R9)"},
     [](const Inputs& in) { return is_rl(in) && in.w.global_batch < rl_mini(in); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("train_batch_size ({}) must be >= actor.ppo_mini_batch_size ({})", in.w.global_batch,
                               rl_mini(in));
     }},
    {{"rl.mini-batch-divisible", "the per-GPU mini-batch (mini x n / DP) is a positive multiple of the micro-batch",
      "verl fsdp_workers / megatron_workers batch normalisation"},
     [](const Inputs& in) {
       if (!is_rl(in) || in.w.rl.use_dynamic_bsz) return false;
       const std::int64_t dp = actor_dp(in);
       const std::int64_t local = dp > 0 ? rl_mini(in) * in.w.rl.n / dp : 0;
       return local <= 0 || !divides(ppo_micro(in), local);
     },
     [](const Inputs& in, Violation& v) {
       const std::int64_t dp = actor_dp(in);
       v.message = fmt::format("ppo_mini_batch_size x n / DP = {} x {} / {} = {} is not a positive multiple of "
                               "ppo_micro_batch_size_per_gpu={}", rl_mini(in), in.w.rl.n, dp,
                               dp > 0 ? rl_mini(in) * in.w.rl.n / dp : 0, ppo_micro(in));
     }},
    {{"vpp.micro-batch-groups",
      "with VPP > 1 the micro-batches of a step (RL: of a mini-batch) number at least PP and a multiple of PP",
      "Megatron-core interleaved schedule (microbatch_group_size_per_vp_stage = PP); verl R66"},
     [](const Inputs& in) {
       if (in.s.vpp <= 1 || in.s.pp <= 1) return false;
       const std::int64_t m = micro_batches_per_update(in);
       return m > 0 && (m < in.s.pp || m % in.s.pp != 0);
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("{} micro-batches per {} with PP={} and VPP={}: the interleaved schedule runs them in "
                               "groups of PP",
                               micro_batches_per_update(in), is_rl(in) ? "mini-batch" : "step", in.s.pp, in.s.vpp);
       v.valid = "a micro-batch count that is a positive multiple of PP, or VPP=1";
     }},
    {{"rl.rollout-tp",
      "rollout TP tiles the nodes (divides the GPUs per node, or is a multiple of it that divides the GPUs) "
      "and the attention heads",
      "verl vLLM rollout (R52: world % rollout TP; R53: a replica larger than a node spans whole nodes; "
      "R55); vLLM heads % tp, linear-attention heads % tp (mamba_utils.gated_delta_net_state_shape)"},
     [](const Inputs& in) { return is_rl(in) && !rollout_tp_valid(in, in.w.rl.rollout_tp); },
     [](const Inputs& in, Violation& v) {
       const int per_node = in.c.groups.empty() ? 0 : in.c.groups.front().gpus_per_node;
       const std::int64_t gpus = in.w.rl.rollout_gpus > 0 ? in.w.rl.rollout_gpus : world(in);
       v.message = fmt::format("rollout TP={} with {} GPUs per node, {} {}GPUs, {} heads, {} KV heads", in.w.rl.rollout_tp,
                               per_node, gpus, in.w.rl.rollout_gpus > 0 ? "rollout " : "", heads(in), kv_heads(in));
       v.valid = "rollout TP in " + values_where(gpus, [&](std::int64_t t) { return rollout_tp_valid(in, t); });
     }},
}};

}  // namespace

std::span<const Rule> batch_rules() { return kBatchRules; }

}  // namespace meshplan::strategy_rule
