// Megatron worker rules (verl_rules_megatron.cpp), over the Megatron baseline of
// check_support.hpp: 8 GPUs, TP 2 (dp 4), train 64, mini 16, micro 2, rollout.n 4.
#include <doctest/doctest.h>

#include "rule_cases.hpp"

namespace meshplan::test {

namespace {
constexpr const char* kPp2 = "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2";
constexpr const char* kVpp2 = "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size=2";
constexpr const char* kKlLoss = "actor_rollout_ref.actor.use_kl_loss=True";
}  // namespace

// clang-format off
const std::vector<RuleCase>& megatron_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // 0.9.0's engine reads actor.megatron.router_replay.mode, not the actor's.
      {"actor.router-replay-engine-key", true,
       {"actor_rollout_ref.actor.router_replay.mode=R3", "actor_rollout_ref.actor.megatron.router_replay.mode=R3"},
       {"actor_rollout_ref.actor.router_replay.mode=R3"}, Severity::warning,
       "actor_rollout_ref.actor.router_replay.mode",
       "router replay stays off: verl 0.9.0's engine workers read actor_rollout_ref.actor.megatron.router_replay.mode "
       "(disabled)", "actor_rollout_ref.actor.megatron.router_replay.mode=R3", false, false, "0.9.0"},
      // Megatron-core's optimizer compares clip_grad > 0.0 every step: null is a TypeError.
      {"megatron.grad-clip-set", true, {"actor_rollout_ref.actor.optim.clip_grad=0.5"},
       {"actor_rollout_ref.actor.optim.clip_grad=null"}, Severity::error, "actor_rollout_ref.actor.optim.clip_grad",
       "Megatron-core's optimizer step compares config.clip_grad > 0.0 and actor_rollout_ref.actor.optim.clip_grad is "
       "null", "actor_rollout_ref.actor.optim.clip_grad=1.0"},
      // Dynamic CP packs up to max_seqlen_per_dp_cp_rank tokens a DP x CP rank: unset is refused (0.9.0).
      {"megatron.dynamic-cp", true,
       {"actor_rollout_ref.actor.megatron.dynamic_context_parallel=True",
        "actor_rollout_ref.actor.megatron.max_seqlen_per_dp_cp_rank=4096"},
       {"actor_rollout_ref.actor.megatron.dynamic_context_parallel=True"}, Severity::error,
       "actor_rollout_ref.actor.megatron.dynamic_context_parallel",
       "max_seqlen_per_dp_cp_rank must be a positive integer when dynamic_context_parallel is enabled",
       "actor_rollout_ref.actor.megatron.max_seqlen_per_dp_cp_rank=1024", false, false, "0.9.0"},
      // The legacy Megatron actor of v0.7.1: R3 replays the rollout's experts, R2 must not get them too.
      {"megatron.router-replay-source", true,
       {"actor_rollout_ref.actor.router_replay.mode=R3",
        "actor_rollout_ref.rollout.enable_rollout_routing_replay=True"},
       {"actor_rollout_ref.actor.router_replay.mode=R3"}, Severity::error,
       "actor_rollout_ref.actor.router_replay.mode",
       "routed_experts must be in data.batch.keys(): router_replay.mode R3 replays the rollout's experts",
       "actor_rollout_ref.rollout.enable_rollout_routing_replay=True", false, false, "0.7.1"},
      {"megatron.router-replay-source", true, {"actor_rollout_ref.actor.router_replay.mode=R2"},
       {"actor_rollout_ref.actor.router_replay.mode=R2",
        "actor_rollout_ref.rollout.enable_rollout_routing_replay=True"},
       Severity::error, "actor_rollout_ref.actor.router_replay.mode",
       "Detected conflicting router replay configuration: router_replay.mode='R2' and "
       "enable_rollout_routing_replay=True",
       "actor_rollout_ref.rollout.enable_rollout_routing_replay=False", false, false, "0.7.1"},
      // 0.9.0's Megatron engine: R3 replays the rollout's experts, R2 must not get them too.
      {"engine.router-replay-source", true,
       {"actor_rollout_ref.actor.megatron.router_replay.mode=R3",
        "actor_rollout_ref.rollout.enable_rollout_routing_replay=True"},
       {"actor_rollout_ref.actor.megatron.router_replay.mode=R3"}, Severity::error,
       "actor_rollout_ref.actor.megatron.router_replay.mode",
       "router_replay.mode R3 replays the rollout's experts, which only "
       "actor_rollout_ref.rollout.enable_rollout_routing_replay=True returns",
       "actor_rollout_ref.rollout.enable_rollout_routing_replay=True", false, false, "0.9.0"},
      {"engine.router-replay-source", true, {"actor_rollout_ref.actor.megatron.router_replay.mode=R2"},
       {"actor_rollout_ref.actor.megatron.router_replay.mode=R2",
        "actor_rollout_ref.rollout.enable_rollout_routing_replay=True"},
       Severity::error, "actor_rollout_ref.actor.megatron.router_replay.mode",
       "Detected conflicting router replay configuration: router_replay.mode='R2' and "
       "enable_rollout_routing_replay=True",
       "actor_rollout_ref.rollout.enable_rollout_routing_replay=False", false, false, "0.8.0"},
      {"megatron.no-ulysses", true, {"+actor_rollout_ref.actor.ulysses_sequence_parallel_size=1"},
       {"+actor_rollout_ref.actor.ulysses_sequence_parallel_size=2"}, Severity::error,
       "actor_rollout_ref.actor.ulysses_sequence_parallel_size", "asserts ulysses_sequence_parallel_size == 1",
       "~actor_rollout_ref.actor.ulysses_sequence_parallel_size"},
      {"megatron.shuffle-needs-seed", true, {"actor_rollout_ref.actor.shuffle=True"},
       {"actor_rollout_ref.actor.shuffle=True", "actor_rollout_ref.actor.data_loader_seed=null"}, Severity::error,
       "actor_rollout_ref.actor.shuffle", "If shuffle dataloader, seed must be manually set",
       "actor_rollout_ref.actor.data_loader_seed=42"},
      {"megatron.mtp-needs-mbridge", true, {"actor_rollout_ref.model.mtp.enable=True"},
       {"actor_rollout_ref.model.mtp.enable=True", "actor_rollout_ref.actor.megatron.use_mbridge=False"}, Severity::error,
       "actor_rollout_ref.model.mtp.enable", "MTP requires use_mbridge to be True",
       "actor_rollout_ref.actor.megatron.use_mbridge=True"},
      // Qwen2.5-7B has no MTP layers (num_nextn_predict_layers absent = 0).
      {"model.mtp-needs-nextn-layers", true, {"actor_rollout_ref.model.mtp.enable=False"},
       {"actor_rollout_ref.model.mtp.enable=True"}, Severity::error, "actor_rollout_ref.model.mtp.enable",
       "MTP requires at least one nextn_predict_layer: qwen2.5-7b-instruct has num_nextn_predict_layers 0",
       "actor_rollout_ref.model.mtp.enable=False"},
      {"megatron.fp16-needs-mbridge", true, {"actor_rollout_ref.actor.megatron.dtype=float16"},
       {"actor_rollout_ref.actor.megatron.dtype=float16", "actor_rollout_ref.actor.megatron.use_mbridge=False"},
       Severity::error, "actor_rollout_ref.actor.megatron.dtype", "fp16 mode requires use_mbridge to be True",
       "actor_rollout_ref.actor.megatron.use_mbridge=True"},
      // vanilla_mbridge defaults to True in the Megatron YAML.
      {"megatron.lora-needs-bridge", true,
       {"actor_rollout_ref.model.lora.rank=8", "actor_rollout_ref.actor.megatron.vanilla_mbridge=False"},
       {"actor_rollout_ref.model.lora.rank=8"}, Severity::error, "actor_rollout_ref.model.lora.rank",
       "LoRA/PEFT only supported via Megatron-Bridge", "actor_rollout_ref.actor.megatron.vanilla_mbridge=False"},
      {"megatron.ref-load-weight", true,
       {kKlLoss, "actor_rollout_ref.actor.load_weight=False", "actor_rollout_ref.ref.load_weight=False"},
       {kKlLoss, "actor_rollout_ref.actor.load_weight=False"}, Severity::error, "actor_rollout_ref.ref.load_weight",
       "asserts actor.load_weight == ref.load_weight", "actor_rollout_ref.actor.load_weight=True"},
      {"megatron.ref-micro-set", true, {kDynamicBsz, kKlLoss},
       {kDynamicBsz, kKlLoss, "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=null"}, Severity::error,
       "actor_rollout_ref.ref.log_prob_micro_batch_size", "should not be None at the same time",
       "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1"},
      // fix: 2 x (512 + 512).
      {"megatron.dynamic-needs-budget", true, {kDynamicBsz},
       {kDynamicBsz, "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=null"}, Severity::error,
       "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
       "max_token_len must be set when use_dynamic_bsz is True (actor_rollout_ref.actor.ppo_max_token_len_per_gpu is null)",
       "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=2048"},
      // TP 2 x PP 2: dp 2; mini 16 x 4 // 2 = 32; micro 2: 16 micro-batches (even); micro 3:
      // ceil(32 / 3) = 11, not a multiple of PP 2.
      {"megatron.vpp-micro-batches", true, {kPp2, kVpp2},
       {kPp2, kVpp2, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3"}, Severity::error,
       "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size",
       "11 micro-batches per mini batch (ceil(32 / micro 3)) do not fit Megatron-core's interleaved (VPP) schedule with "
       "pipeline_model_parallel_size 2 and microbatch_group_size_per_vp_stage 2", ""},
      // micro 2: 32 / 2 = 16 micro-batches. Group 3 (>= PP 2): 16 % 3 = 1, neither 0 nor >= PP 2;
      // group 4: 16 % 4 = 0 passes.
      {"megatron.vpp-micro-batches", true,
       {kPp2, kVpp2, "+actor_rollout_ref.actor.megatron.override_transformer_config.microbatch_group_size_per_vp_stage=4"},
       {kPp2, kVpp2, "+actor_rollout_ref.actor.megatron.override_transformer_config.microbatch_group_size_per_vp_stage=3"},
       Severity::error, "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size",
       "16 micro-batches per mini batch (ceil(32 / micro 2)) do not fit", ""},
      // The remainder boundary: 16 micro-batches in groups of 7 leave 16 % 7 = 2 = PP, which Megatron-core
      // accepts (M % G >= PP); groups of 5 leave 1 < PP.
      {"megatron.vpp-micro-batches", true,
       {kPp2, kVpp2, "+actor_rollout_ref.actor.megatron.override_transformer_config.microbatch_group_size_per_vp_stage=7"},
       {kPp2, kVpp2, "+actor_rollout_ref.actor.megatron.override_transformer_config.microbatch_group_size_per_vp_stage=5"},
       Severity::error, "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size",
       "16 micro-batches per mini batch (ceil(32 / micro 2)) do not fit", ""},
      // Dynamic bsz: mini 1 x n 1 // dp 2 = 0 sequences < group (= PP) 2; fix mini = 2 x 2 / 1 = 4 (local 2).
      {"megatron.vpp-micro-batches", true, {kPp2, kVpp2, kDynamicBsz},
       {kPp2, kVpp2, kDynamicBsz, "actor_rollout_ref.rollout.n=1", "actor_rollout_ref.actor.ppo_mini_batch_size=1"},
       Severity::error, "actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size",
       "the local mini batch holds 0 sequences (= 1 * 1 // dp 2)", "actor_rollout_ref.actor.ppo_mini_batch_size=4"},
      // MegatronEngine.__init__ (the engine workers; verl 0.9.0 has no others) asserts use_mbridge.
      {"megatron.engine-needs-mbridge", true, {"actor_rollout_ref.actor.megatron.use_mbridge=True"},
       {"actor_rollout_ref.actor.megatron.use_mbridge=False"}, Severity::error,
       "actor_rollout_ref.actor.megatron.use_mbridge",
       "use_mbridge must be True (actor_rollout_ref.actor.megatron.use_mbridge=False)",
       "actor_rollout_ref.actor.megatron.use_mbridge=True", false, false, "0.9.0"},
      // The Megatron critic's compute_values reads a micro batch even under dynamic batch sizes.
      {"megatron.forward-micro-batch", true,
       {"algorithm.adv_estimator=gae", "critic.use_dynamic_bsz=True", "critic.ppo_micro_batch_size_per_gpu=2"},
       {"algorithm.adv_estimator=gae", "critic.use_dynamic_bsz=True", "critic.ppo_micro_batch_size_per_gpu=null"},
       Severity::error, "critic.ppo_micro_batch_size_per_gpu",
       "micro batch size is needed for forward compute: the Megatron critic's compute_values",
       "critic.ppo_micro_batch_size_per_gpu=1"},
      // Megatron-core's combined 1F1B schedule asks forward_step for a schedule plan; verl 0.9.0's
      // Megatron engine takes no such argument.
      {"megatron.a2a-overlap-forward-step", true, {},
       {"+actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm=True"},
       Severity::error, "actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm",
       "forward_step() got an unexpected keyword argument 'return_schedule_plan'",
       "actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm=False", false,
       false, "0.9.0"},
  };
  return cases;
}
// clang-format on

TEST_CASE("verl Megatron worker rules") {
  for (const RuleCase& c : megatron_rule_cases()) check_rule_case(c);
}

}  // namespace meshplan::test
