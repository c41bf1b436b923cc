#pragma once
// One verl RL step on colocated GPUs (actor, rollout and reference share them), phase by phase
// as verl's trainer times them (verl/trainer/ppo/ray_trainer.py, marked_timer):
// timing_s/gen, timing_s/old_log_prob, timing_s/ref, timing_s/values, timing_s/update_critic,
// timing_s/update_actor.
#include <cstdint>

#include "cost/time/collectives.hpp"
#include "cost/time/time_estimate.hpp"
#include "cost/trace.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// The rollout (generation) of one step, per inference replica of `rollout_tp` GPUs.
struct RolloutTime {
  double weight_sync_s = 0;  ///< resharding the actor's weights into the engine (inside gen)
  double wake_sleep_s = 0;   ///< the engine's weights back from host memory and out again
  double prefill_s = 0;      ///< prompt tokens, compute-bound
  double decode_s = 0;       ///< response tokens, memory-bandwidth-bound
  double tail_s = 0;         ///< of decode_s: the longest responses decoding almost alone
  double resume_prefill_s = 0;  ///< of prefill_s: partial rollout's aborted responses prefilled again
  std::int64_t concurrent_sequences = 0;  ///< sequences decoded together per replica
  std::int64_t waves = 0;                 ///< rounds of C sequences the replica's share takes

  double total() const { return weight_sync_s + wake_sleep_s + prefill_s + decode_s; }
};

/// Expected largest number of touched experts on one GPU when `gpus` GPUs hold `experts_per_gpu`
/// experts each and every expert is touched with probability `touched_share`:
/// E[max of G Binomial(m, p)] = sum over x < m of 1 - F(x)^G.
double expected_max_touched_experts(int experts_per_gpu, double touched_share, int gpus);

/// Weight bytes one decode step reads on the busiest GPU of a replica when its MoE layers route
/// `routed_tokens` tokens (the in-flight sequences of all the replica's engines): every dense
/// weight over rollout_tp, and of the routed experts only those the tokens select, over the
/// replica's rollout_tp x rollout_dp GPUs (bf16).
double decode_weight_bytes(const ModelSpec& model, double routed_tokens, const RlSettings& rl);

/// `sequences` responses (mean length rl.mean_response_len, at most rl.response_len) after prompts
/// of rl.mean_prompt_len tokens, spread over rollout_gpus/(rollout_tp x rollout_dp) replicas; `kv_limited_sequences` is
/// how many sequences the KV budget of one replica holds (memory model: RolloutCapacity::
/// concurrent_sequences_per_replica; 0: no limit beyond the batch and rl.max_num_seqs).
RolloutTime rollout_time(const ModelSpec& model, const NodeGroup& node, const Strategy& actor,
                         const RlSettings& rl, std::int64_t sequences, std::int64_t kv_limited_sequences,
                         const EfficiencyConstants& constants, Trace* trace);

/// The step's rollout (timing_s/gen) alone: train_batch_size x n sequences, the KV-limited
/// concurrency of options.rollout_concurrent_sequences.
RolloutTime rl_step_rollout(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                            const Workload& workload, const TimeOptions& options, Trace* trace);

/// Engines of their own, off-policy: the generation of a batch without its weight sync, and
/// without its tail of long responses where in-flight updates let the next batches overlap it.
double off_policy_generation_seconds(const RolloutTime& rollout, const RlSettings& rl);

/// The step's critical path: generation then the trainer's work when colocated or on-policy;
/// with engines of their own running off_policy_steps >= 1 ahead, the slower of generation and
/// the trainer's work, plus the weight sync.
TimeBreakdown rl_step_critical_path(const RolloutTime& rollout, const TimeBreakdown& trainer, const RlSettings& rl,
                                    Trace* trace);

/// The whole RL step: phases, breakdown, throughput and the actor-update MFU.
TimeEstimate estimate_rl_step_time(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                   const Workload& workload, const TimeOptions& options, Trace* trace);

}  // namespace meshplan
