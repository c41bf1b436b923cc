// Feature and option rules (verl_rules_features.cpp), over the FSDP baseline of
// check_support.hpp: 1 node x 8 GPUs, vLLM rollout TP 2, GRPO.
#include <doctest/doctest.h>

#include "rule_cases.hpp"

namespace meshplan::test {

namespace {
constexpr const char* kDapo = "reward_model.reward_manager=dapo";
constexpr const char* kOverlong = "+reward_model.reward_kwargs.overlong_buffer_cfg.enable=True";
constexpr const char* kBuffer = "+reward_model.reward_kwargs.overlong_buffer_cfg.len=4096";
constexpr const char* kNsys = "global_profiler.tool=nsys";
constexpr const char* kSteps = "global_profiler.steps=[1,2]";
}  // namespace

// clang-format off
const std::vector<RuleCase>& feature_rule_cases() {
  static const std::vector<RuleCase> cases = {
      // v0.7.1's vLLM sender: Qwen2.5-7B's embedding in the FSDP actor's fp32, 152064 x 3584 x 4 bytes =
      // 2079 MiB, over the default 2048 MiB bucket; 4096 holds it.
      {"rollout.weight-bucket-fits", false,
       {"actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes=4096"},
       {"actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes=2048"}, Severity::error,
       "actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes",
       "qwen2.5-7b-instruct's embedding, [152064, 3584] in float32 as the FSDP actor holds it, is 2079 MiB",
       "actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes=4096", false, false, "0.7.1"},
      // vLLM's MaxLoRARanks tops out at 512.
      {"rollout.vllm-lora-rank", false, {"actor_rollout_ref.model.lora_rank=512"}, {"actor_rollout_ref.model.lora_rank=1024"},
       Severity::error, "actor_rollout_ref.model.lora_rank", "lora_rank must be less than or equal to 512, but got 1024",
       "actor_rollout_ref.model.lora_rank=512"},
      {"rollout.trace-max-samples", false, {"actor_rollout_ref.rollout.trace.max_samples_per_step_per_worker=0"},
       {"actor_rollout_ref.rollout.trace.max_samples_per_step_per_worker=-1"}, Severity::error,
       "actor_rollout_ref.rollout.trace.max_samples_per_step_per_worker",
       "`max_samples_per_step_per_worker` must be a non-negative integer or null",
       "actor_rollout_ref.rollout.trace.max_samples_per_step_per_worker=null"},
      {"fsdp.engine-strategy", false, {"actor_rollout_ref.actor.fsdp_config.strategy=fsdp2"},
       {"actor_rollout_ref.actor.fsdp_config.strategy=fsdp3"}, Severity::error,
       "actor_rollout_ref.actor.fsdp_config.strategy", "strategy not supported: 'fsdp3' is not one of {fsdp, fsdp2}",
       "actor_rollout_ref.actor.fsdp_config.strategy=fsdp"},
      // A valid deprecated warmup_style replaces an invalid lr_scheduler_type before the check.
      {"fsdp.lr-scheduler", false,
       {"actor_rollout_ref.actor.optim.lr_scheduler_type=cosin", "actor_rollout_ref.actor.optim.warmup_style=cosine"},
       {"actor_rollout_ref.actor.optim.lr_scheduler_type=cosin"}, Severity::error,
       "actor_rollout_ref.actor.optim.lr_scheduler_type", "LR scheduler type 'cosin' is not one of {constant, cosine}",
       "actor_rollout_ref.actor.optim.lr_scheduler_type=cosine"},
      {"fsdp.lr-scheduler", false, {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2"},
       {"algorithm.adv_estimator=gae", "critic.ppo_micro_batch_size_per_gpu=2", "critic.optim.warmup_style=constnt"},
       Severity::error, "actor_rollout_ref.actor.optim.lr_scheduler_type",
       "LR scheduler type 'constnt' is not one of {constant, cosine}", "critic.optim.warmup_style=constant"},
      {"profiler.contents", false, {"actor_rollout_ref.actor.profiler.tool_config.torch.contents=[cuda,cpu]"},
       {"actor_rollout_ref.actor.profiler.tool_config.torch.contents=[cuda,gpu]"}, Severity::error,
       "actor_rollout_ref.actor.profiler.tool_config",
       "Profiler contents only supports [cuda, cpu, memory, shapes, stack, profile-by-stage, merge-profiles], but gets gpu",
       ""},
      {"profiler.contents", false, {"actor_rollout_ref.actor.profiler.tool_config.npu.level=level2"},
       {"actor_rollout_ref.actor.profiler.tool_config.npu.level=level3"}, Severity::error,
       "actor_rollout_ref.actor.profiler.tool_config", "NPU profiler level 'level3' is not one of",
       "actor_rollout_ref.actor.profiler.tool_config.npu.level=level0"},
      {"profiler.tool-limits", false, {"global_profiler.global_tool_config.torch_memory.stack_depth=1"},
       {"global_profiler.global_tool_config.torch_memory.stack_depth=0"}, Severity::error,
       "global_profiler.global_tool_config.torch_memory", "torch_memory stack_depth must be > 0",
       "global_profiler.global_tool_config.torch_memory.stack_depth=32"},
      {"profiler.tool-limits", false, {kNsys, kSteps},
       {kNsys, kSteps, "global_profiler.global_tool_config.nsys.worker_nsight_options=null"}, Severity::error,
       "global_profiler.global_tool_config.torch_memory",
       "worker_nsight_options must be set when using nsys with profile_steps", ""},
      // 2 nodes x 8: a TP 16 replica spans 2 nodes; TP 8 x DP 2 does too but uses rollout DP.
      {"rollout.vllm-multinode-tp", false,
       {"trainer.nnodes=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=8",
        "actor_rollout_ref.rollout.data_parallel_size=2"},
       {"trainer.nnodes=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=16"}, Severity::warning,
       "actor_rollout_ref.rollout.tensor_model_parallel_size",
       "a rollout replica of 16 GPUs spans 2 nodes with data_parallel_size 1", ""},
      // A sync rollout (vLLMRollout, external_launcher) starts no async server; a 16-GPU replica on
      // one 8-GPU node spans no nodes (xlan156/verl-agent: TP 2 on 1 GPU; the TP rules report it).
      {"rollout.vllm-multinode-tp", false,
       {"trainer.nnodes=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=16",
        "actor_rollout_ref.rollout.mode=sync"},
       {"trainer.nnodes=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=16"}, Severity::warning,
       "actor_rollout_ref.rollout.tensor_model_parallel_size", "spans 2 nodes", ""},
      {"rollout.vllm-multinode-tp", false, {"trainer.nnodes=1", "actor_rollout_ref.rollout.tensor_model_parallel_size=16"},
       {"trainer.nnodes=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=16"}, Severity::warning,
       "actor_rollout_ref.rollout.tensor_model_parallel_size", "spans 2 nodes", ""},
      // 2 nodes x 6 GPUs, TP 4 x DP 3 = EP 12 (R28 holds), a 12-GPU replica over whole nodes (R53
      // holds) with 6 GPUs per node: 6 % 4 != 0. A 4-GPU replica inside one node passes.
      {"rollout.vllm-expert-layout", false,
       {"trainer.n_gpus_per_node=6", "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
        "actor_rollout_ref.rollout.expert_parallel_size=4"},
       {"trainer.nnodes=2", "trainer.n_gpus_per_node=6", "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
        "actor_rollout_ref.rollout.data_parallel_size=3", "actor_rollout_ref.rollout.expert_parallel_size=12"},
       Severity::error, "actor_rollout_ref.rollout.expert_parallel_size",
       "gpus_per_node should be divisible by tensor_model_parallel_size (6 GPUs of the replica per node % TP 4 != 0)",
       ""},
      {"fsdp.feature-gates", false, {"actor_rollout_ref.model.tiled_mlp.enabled=True", "actor_rollout_ref.actor.strategy=fsdp2"},
       {"actor_rollout_ref.model.tiled_mlp.enabled=True"}, Severity::error, "actor_rollout_ref.model.tiled_mlp.enabled",
       "TiledMLP requires FSDP2. Set `actor_rollout_ref.actor.strategy=fsdp2`", "actor_rollout_ref.actor.strategy=fsdp2"},
      {"fsdp.feature-gates", false, {"actor_rollout_ref.model.mtp.enable=False"}, {"actor_rollout_ref.model.mtp.enable=True"},
       Severity::error, "actor_rollout_ref.model.tiled_mlp.enabled", "Right now, MTP is not supported in FSDP",
       "actor_rollout_ref.model.mtp.enable=False"},
      {"algorithm.estimator-prerequisites", false,
       {"algorithm.adv_estimator=optimal_token_baseline", "actor_rollout_ref.actor.calculate_sum_pi_squared=True"},
       {"algorithm.adv_estimator=optimal_token_baseline"}, Severity::error, "algorithm.adv_estimator",
       "Step-dependent optimal baseline (optimal_token_baseline) requires sum_pi_squared from actor",
       "actor_rollout_ref.actor.calculate_sum_pi_squared=True"},
      {"algorithm.estimator-prerequisites", false, {"actor_rollout_ref.actor.calculate_sum_pi_squared=True"},
       {"actor_rollout_ref.actor.calculate_sum_pi_squared=True", "actor_rollout_ref.model.use_fused_kernels=True"},
       Severity::error, "algorithm.adv_estimator",
       "calculate_sum_pi_squared is not supported with actor_rollout_ref.model.use_fused_kernels=True",
       "actor_rollout_ref.model.use_fused_kernels=False"},
      // buffer 4096 > max_resp_len 512; the fix shrinks the buffer to 512 / 5 = 102.
      {"reward.dapo-overlong", false, {kDapo, kOverlong, kBuffer, "+reward_model.reward_kwargs.max_resp_len=4096"},
       {kDapo, kOverlong, kBuffer, "+reward_model.reward_kwargs.max_resp_len=512"}, Severity::error,
       "reward_model.reward_kwargs.overlong_buffer_cfg.len",
       "max_resp_len must be larger than overlong_buffer.len: max_resp_len 512 < 4096",
       "reward_model.reward_kwargs.overlong_buffer_cfg.len=102"},
      // max_resp_len absent: the fix adds it (= data.max_response_length 512) and shrinks the buffer.
      {"reward.dapo-overlong", false, {kDapo, kOverlong, kBuffer, "+reward_model.reward_kwargs.max_resp_len=8192"},
       {kDapo, kOverlong, kBuffer}, Severity::error, "reward_model.reward_kwargs.overlong_buffer_cfg.len",
       "max_resp_len must be provided if overlong_buffer_cfg is set, but got None",
       "+reward_model.reward_kwargs.max_resp_len=512"},
      // The check runs whenever overlong_buffer_cfg is given, also with enable=False.
      {"reward.dapo-overlong", false,
       {kDapo, "+reward_model.reward_kwargs.overlong_buffer_cfg.enable=False", kBuffer,
        "+reward_model.reward_kwargs.max_resp_len=4096"},
       {kDapo, "+reward_model.reward_kwargs.overlong_buffer_cfg.enable=False", kBuffer,
        "+reward_model.reward_kwargs.max_resp_len=2048"},
       Severity::error, "reward_model.reward_kwargs.overlong_buffer_cfg.len",
       "max_resp_len 2048 < 4096", "reward_model.reward_kwargs.overlong_buffer_cfg.len=409"},
      {"rollout.agent-loop-name", false, {"actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent"},
       {"actor_rollout_ref.rollout.agent.default_agent_loop=single_turn"}, Severity::warning,
       "actor_rollout_ref.rollout.agent.default_agent_loop",
       "'s {single_turn_agent, tool_agent}; verl registers only these",
       "actor_rollout_ref.rollout.agent.default_agent_loop=single_turn_agent"},
      // CheckpointEngineRegistry.get at start-up; a custom backend module may register the name.
      {"rollout.checkpoint-engine-backend", false,
       {"actor_rollout_ref.rollout.checkpoint_engine.backend=ncl",
        "actor_rollout_ref.rollout.checkpoint_engine.custom_backend_module=my_pkg.engines"},
       {"actor_rollout_ref.rollout.checkpoint_engine.backend=ncl"}, Severity::error,
       "actor_rollout_ref.rollout.checkpoint_engine.backend", "Checkpoint engine 'ncl' is not one of verl 0.9.0's",
       "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl", false, false, "0.9.0"},
      // RolloutConfig.__post_init__ from verl 0.7.1 (b35cf93be): TensorRT-LLM takes its MoE layout from
      // moe_tensor_parallel_size x expert_parallel_size, the other engines refuse moe_tensor_parallel_size,
      // and only they must have EP == TP x DP (the baseline's rollout TP 2 x DP 1).
      {"rollout.moe-tensor-parallel", false, {"+actor_rollout_ref.rollout.moe_tensor_parallel_size=1"},
       {"+actor_rollout_ref.rollout.moe_tensor_parallel_size=2"}, Severity::error,
       "actor_rollout_ref.rollout.moe_tensor_parallel_size",
       "moe_tensor_parallel_size is only supported for trtllm (rollout.name is vllm)", "", false, false, "0.9.0"},
      {"rollout.moe-tensor-parallel", false,
       {"actor_rollout_ref.rollout.name=trtllm", "+actor_rollout_ref.rollout.moe_tensor_parallel_size=2"},
       {"actor_rollout_ref.rollout.name=trtllm", "+actor_rollout_ref.rollout.moe_tensor_parallel_size=2",
        "actor_rollout_ref.rollout.expert_parallel_size=2"},
       Severity::error, "actor_rollout_ref.rollout.moe_tensor_parallel_size",
       "must equal tensor_model_parallel_size (got 2 * 2 = 4, tensor_model_parallel_size=2)", "", false, false,
       "0.9.0"},
      {"rollout.expert-parallel", false,
       {"actor_rollout_ref.rollout.name=trtllm", "actor_rollout_ref.rollout.expert_parallel_size=4"},
       {"actor_rollout_ref.rollout.expert_parallel_size=4"}, Severity::error,
       "actor_rollout_ref.rollout.expert_parallel_size",
       "expert_parallel_size must be equal to tensor_model_parallel_size * data_parallel_size",
       "actor_rollout_ref.rollout.expert_parallel_size=2", false, false, "0.9.0"},
      // verl 0.4.1's vLLMRollout / SGLangRollout assert eager while the cache is freed (the baseline's
      // free_cache_engine is verl's default, True; the sync mode too).
      {"rollout.cuda-graphs-free-cache", false,
       {"actor_rollout_ref.rollout.enforce_eager=False", "actor_rollout_ref.rollout.free_cache_engine=False"},
       {"actor_rollout_ref.rollout.enforce_eager=False"}, Severity::error, "actor_rollout_ref.rollout.enforce_eager",
       "disable CUDA graph (enforce_eager = False) if free cache engine: verl 0.4.1's vLLMRollout asserts",
       "actor_rollout_ref.rollout.enforce_eager=True", false, false, "0.4.1"},
      // vLLM's async server builds its engine without the assertion; SGLangRollout has it in both modes.
      {"rollout.cuda-graphs-free-cache", false,
       {"actor_rollout_ref.rollout.enforce_eager=False", "actor_rollout_ref.rollout.mode=async"},
       {"actor_rollout_ref.rollout.enforce_eager=False", "actor_rollout_ref.rollout.mode=async",
        "actor_rollout_ref.rollout.name=sglang"},
       Severity::error, "actor_rollout_ref.rollout.enforce_eager", "verl 0.4.0's SGLangRollout asserts",
       "actor_rollout_ref.rollout.enforce_eager=True", false, false, "0.4.0"},
      // The sync vLLMRollout of verl 0.4.0 .. 0.6.1: 512 + 8192 tokens over the default 8192 batched
      // tokens with chunked prefill on; the async server has no such check.
      {"rollout.sync-chunked-prefill", false,
       {"actor_rollout_ref.rollout.mode=sync", "data.max_response_length=8192",
        "actor_rollout_ref.rollout.max_num_batched_tokens=8704"},
       {"actor_rollout_ref.rollout.mode=sync", "data.max_response_length=8192"}, Severity::error,
       "actor_rollout_ref.rollout.max_num_batched_tokens",
       "Enable chunked prefill, max_num_batched_tokens is smaller than max_model_len, please increase "
       "max_num_batched_tokens or disable chunked prefill (8192 < 8704); verl 0.6.1's sync vLLMRollout",
       "actor_rollout_ref.rollout.max_num_batched_tokens=8704", false, false, "0.6.1"},
      // SGLangRollout._verify_config (verl 0.4.0 .. 0.6.1): 512 + 512 tokens over max_model_len 768.
      {"rollout.sglang-max-model-len", false,
       {"actor_rollout_ref.rollout.name=sglang", "actor_rollout_ref.rollout.max_model_len=1024"},
       {"actor_rollout_ref.rollout.name=sglang", "actor_rollout_ref.rollout.max_model_len=768"}, Severity::error,
       "actor_rollout_ref.rollout.max_model_len",
       "max_model_len should be greater than total sequence length (prompt_length + response_length): 768 < 1024; "
       "verl 0.5.0's SGLangRollout asserts it",
       "actor_rollout_ref.rollout.max_model_len=1024", false, false, "0.5.0"},
      // vLLMRollout.__init__ (sync, verl 0.5.0): Qwen2.5-7B-Instruct's 32768 positions, no rope scaling.
      {"model.rollout-context", false, {"data.max_response_length=32256"}, {"data.max_response_length=32768"},
       Severity::error, "data.max_response_length",
       "model context length should be greater than total sequence length: 33280 tokens against "
       "qwen2.5-7b-instruct's max_position_embeddings 32768; verl 0.5.0's vLLMRollout",
       "data.max_response_length=32256", false, false, "0.5.0"},
  };
  return cases;
}
// clang-format on

TEST_CASE("verl feature and option rules") {
  for (const RuleCase& c : feature_rule_cases()) check_rule_case(c);
}

}  // namespace meshplan::test
