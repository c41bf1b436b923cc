// verl launch script. Key names are verl's (../shared/verl/config/_generated_ppo_megatron_trainer.yaml
// and _generated_ppo_trainer.yaml at verl b178a3cd); every key set here exists in the generated
// config, so no `+` is needed (verl-rules R1/R2).
#include <fmt/format.h>

#include <algorithm>

#include "report/launch.hpp"
#include "strategy/fp8_recipe.hpp"
#include "strategy/moe_dispatcher.hpp"
#include "strategy/rollout_engine.hpp"

namespace meshplan {
namespace {

std::string flag(bool value) { return value ? "True" : "False"; }

std::string dtype_name(Dtype dtype) { return dtype == Dtype::fp16 ? "float16" : "bfloat16"; }

void add(std::vector<std::string>& out, const std::string& key, const std::string& value) {
  out.push_back(key + "=" + value);
}

// Partial rollout is verl's V1 trainer (0.9.0 on; trainer/config/ppo_trainer.yaml trainer.v1): the
// colocate_async mode on the trainer's GPUs, separate_async with the engines on
// actor_rollout_ref.rollout.nnodes x n_gpus_per_node. SeparateAsyncTrainer asserts train_batch_size
// = parameter_sync_step x ppo_mini_batch_size and a checkpoint-engine backend other than naive
// (docs/advance/v1_async_trainer.md); nccl is the one the time model costs.
void add_v1_async(std::vector<std::string>& o, const LaunchSpec& launch, int gpus_per_node) {
  const RlSettings& rl = launch.workload.rl;
  const std::string mode = rl.rollout_gpus > 0 ? "separate_async" : "colocate_async";
  add(o, "trainer.use_v1", flag(true));
  add(o, "trainer.v1.trainer_mode", mode);
  add(o, "trainer.v1." + mode + ".num_warmup_batches", std::to_string(rl.warmup_batches));
  if (rl.rollout_gpus <= 0) return;
  const std::int64_t mini = rl.ppo_mini_batch > 0 ? rl.ppo_mini_batch : launch.workload.global_batch;
  add(o, "trainer.v1.separate_async.parameter_sync_step", std::to_string(launch.workload.global_batch / std::max<std::int64_t>(mini, 1)));
  const int engines_per_node = rl.rollout_gpus_per_node > 0 ? rl.rollout_gpus_per_node : gpus_per_node;
  add(o, "actor_rollout_ref.rollout.nnodes", std::to_string(rl.rollout_gpus / engines_per_node));
  add(o, "actor_rollout_ref.rollout.n_gpus_per_node", std::to_string(engines_per_node));
  add(o, "actor_rollout_ref.rollout.checkpoint_engine.backend", "nccl");
}

void add_megatron(std::vector<std::string>& o, const Strategy& s, const RlSettings& rl, std::int64_t num_layers) {
  const std::string m = "actor_rollout_ref.actor.megatron.";
  add(o, m + "tensor_model_parallel_size", std::to_string(s.tp));
  add(o, m + "pipeline_model_parallel_size", std::to_string(s.pp));
  if (s.vpp > 1) add(o, m + "virtual_pipeline_model_parallel_size", std::to_string(s.vpp));
  add(o, m + "context_parallel_size", std::to_string(s.cp));
  if (s.ep > 1) {
    add(o, m + "expert_model_parallel_size", std::to_string(s.ep));
    add(o, m + "expert_tensor_parallel_size", std::to_string(s.etp));
  }
  add(o, m + "sequence_parallel", flag(s.sequence_parallel));
  add(o, m + "use_distributed_optimizer", flag(s.distributed_optimizer));
  add(o, m + "param_offload", flag(s.offload.params));
  add(o, m + "grad_offload", flag(s.offload.grads));
  add(o, m + "optimizer_offload", flag(s.offload.optimizer));
  // Megatron-core's CPU optimizer, through the OptimizerConfig keys verl takes from
  // optim.override_optimizer_config (utils/megatron/optimizer.py init_megatron_optim_config).
  if (s.offload.optimizer_on_cpu) {
    const std::string c = "+actor_rollout_ref.actor.optim.override_optimizer_config.";
    add(o, c + "optimizer_cpu_offload", "True");
    add(o, c + "optimizer_offload_fraction", fmt::format("{:g}", s.offload.optimizer_fraction));
  }
  add(o, m + "dtype", dtype_name(s.compute_dtype));
  // Megatron-FSDP (verl since f2659862a, 2026-05; utils/megatron_utils.py defaults the sharding to
  // optim_grads_params).
  if (s.zero == ZeroStage::zero3) add(o, m + "use_megatron_fsdp", "True");
  const std::string t = m + "override_transformer_config.";
  // Not in verl's default override_transformer_config: added with '+' (as verl's DeepSeek examples do).
  if (s.first_stage_layers > 0) add(o, "+" + t + "num_layers_in_first_pipeline_stage", std::to_string(s.first_stage_layers));
  if (s.last_stage_layers > 0) add(o, "+" + t + "num_layers_in_last_pipeline_stage", std::to_string(s.last_stage_layers));
  if (s.pipeline_counts_embedding) add(o, "+" + t + "account_for_embedding_in_pipeline_split", "True");
  if (s.pipeline_counts_loss) add(o, "+" + t + "account_for_loss_in_pipeline_split", "True");
  // A Hydra quoted string inside shell double quotes ('|', '*' and '(' are not Hydra's unquoted
  // characters), as verl's run_deepseek_v4_flash_megatron.sh passes it.
  if (!s.pipeline_layout.empty()) add(o, "++" + t + "pipeline_model_parallel_layout", "\"'" + s.pipeline_layout + "'\"");
  if (s.recompute == Recompute::selective) {
    add(o, t + "recompute_granularity", "selective");
    if (s.recompute_modules != kDefaultRecomputeModules) {
      add(o, t + "recompute_modules", "[" + recompute_module_names(s.recompute_modules) + "]");
    }
  } else if (s.recompute == Recompute::full) {
    add(o, t + "recompute_granularity", "full");
    add(o, t + "recompute_method", s.recompute_method == RecomputeMethod::block ? "block" : "uniform");
    add(o, t + "recompute_num_layers", std::to_string(s.recompute_num_layers));
  }
  // TransformerConfig.overlap_moe_expert_parallel_comm: not in verl's default override map either.
  if (s.moe_a2a_overlap) add(o, "+" + t + "overlap_moe_expert_parallel_comm", "True");
  // verl's default is alltoall (models/mcore/config_converter.py); flex needs DeepEP installed.
  if (s.moe_dispatcher != MoeDispatcher::alltoall) {
    add(o, "+" + t + "moe_token_dispatcher_type", std::string(moe_dispatcher_name(s.moe_dispatcher)));
  }
  if (s.moe_dispatcher == MoeDispatcher::flex && s.moe_dispatcher_sms > 0) {
    add(o, "+" + t + "moe_flex_dispatcher_num_sms", std::to_string(s.moe_dispatcher_sms));
  }
  // Megatron-core's low-precision training through the same map, as verl's FP8 recipes set it
  // (verl-recipe recipe/dapo/test_dapo_8b_megatron_fp8train.sh: fp8=e4m3, fp8_recipe=blockwise).
  if (s.compute_dtype == Dtype::fp8) {
    const bool block_scaled = s.fp8_recipe == Fp8Recipe::mxfp8 || s.fp8_recipe == Fp8Recipe::blockwise;
    add(o, "+" + t + "fp8", block_scaled ? "e4m3" : "hybrid");
    add(o, "+" + t + "fp8_recipe", std::string(fp8_recipe_name(s.fp8_recipe)));
    if (s.fp8_param_gather) add(o, "+" + t + "fp8_param", "True");
    if (s.fp8_attention) add(o, "+" + t + "fp8_dot_product_attention", "True");
    if (s.fp8_output_proj) add(o, "+" + t + "fp8_output_proj", "True");
  } else if (s.compute_dtype == Dtype::fp4) {
    add(o, "+" + t + "fp4", "e2m1");
    add(o, "+" + t + "fp4_recipe", "nvfp4");
    if (s.fp4_param_gather) add(o, "+" + t + "fp4_param", "True");
  }
  if (s.activation_offload_layers > 0) {
    add(o, "+" + t + "cpu_offloading", "True");
    add(o, "+" + t + "cpu_offloading_num_layers",
        std::to_string(std::min<std::int64_t>(s.activation_offload_layers, num_layers - 1)));
  }
  add(o, "actor_rollout_ref.ref.megatron.param_offload", flag(rl.ref_param_offload));
}

void add_fsdp(std::vector<std::string>& o, const Strategy& s, const RlSettings& rl) {
  const std::string f = "actor_rollout_ref.actor.fsdp_config.";
  add(o, "actor_rollout_ref.actor.strategy", "fsdp");
  add(o, f + "fsdp_size", s.fsdp_shard_size > 0 ? std::to_string(s.fsdp_shard_size) : "-1");
  add(o, f + "param_offload", flag(s.offload.params));
  add(o, f + "optimizer_offload", flag(s.offload.optimizer));
  add(o, f + "dtype", dtype_name(s.compute_dtype));
  add(o, "actor_rollout_ref.actor.ulysses_sequence_parallel_size", std::to_string(s.ulysses_sp));
  // Ulysses SP needs remove-padding (verl-rules R12).
  add(o, "actor_rollout_ref.model.use_remove_padding", flag(true));
  add(o, "actor_rollout_ref.model.enable_gradient_checkpointing", flag(s.recompute != Recompute::none));
  if (s.activation_offload_layers > 0) add(o, "actor_rollout_ref.model.enable_activation_offload", flag(true));
  add(o, "actor_rollout_ref.ref.fsdp_config.param_offload", flag(rl.ref_param_offload));
}

}  // namespace

std::vector<std::string> verl_overrides(const LaunchSpec& launch) {
  const Strategy& s = launch.strategy;
  const Workload& w = launch.workload;
  const RlSettings& rl = w.rl;
  std::vector<std::string> o;
  add(o, "algorithm.adv_estimator", rl.use_critic ? "gae" : "grpo");
  // The run's own inputs come from the variables at the top of the script (verl_variables).
  add(o, "data.train_files", "\"$TRAIN_FILES\"");
  add(o, "data.val_files", "\"$VAL_FILES\"");
  add(o, "data.train_batch_size", std::to_string(w.global_batch));
  add(o, "data.max_prompt_length", std::to_string(rl.prompt_len));
  add(o, "data.max_response_length", std::to_string(rl.response_len));
  if (launch.dataloader_workers > 0) add(o, "data.dataloader_num_workers", std::to_string(launch.dataloader_workers));
  add(o, "actor_rollout_ref.model.path", "\"$MODEL_PATH\"");
  add(o, "actor_rollout_ref.actor.optim.lr", "\"$LR\"");
  add(o, "actor_rollout_ref.actor.ppo_mini_batch_size",
      std::to_string(rl.ppo_mini_batch > 0 ? rl.ppo_mini_batch : w.global_batch));
  add(o, "actor_rollout_ref.actor.ppo_epochs", std::to_string(rl.ppo_epochs));
  add(o, "actor_rollout_ref.actor.use_dynamic_bsz", flag(rl.use_dynamic_bsz));
  const int ppo_micro = rl.ppo_micro_batch_per_gpu > 0 ? rl.ppo_micro_batch_per_gpu : s.micro_batch;
  const int log_prob_micro = rl.log_prob_micro_batch_per_gpu > 0 ? rl.log_prob_micro_batch_per_gpu : s.micro_batch;
  if (rl.use_dynamic_bsz) {
    add(o, "actor_rollout_ref.actor.ppo_max_token_len_per_gpu", std::to_string(rl.ppo_max_token_len_per_gpu));
    add(o, "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu", std::to_string(rl.log_prob_max_token_len_per_gpu));
    add(o, "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu", std::to_string(rl.log_prob_max_token_len_per_gpu));
  } else {
    add(o, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", std::to_string(ppo_micro));
    add(o, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu", std::to_string(log_prob_micro));
    if (rl.use_reference) {
      add(o, "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", std::to_string(log_prob_micro));
    }
  }
  // The reference model is loaded for the KL loss (verl-rules R13: need_reference_policy).
  add(o, "actor_rollout_ref.actor.use_kl_loss", flag(rl.use_reference));
  if (rl.entropy_chunking) add(o, "actor_rollout_ref.actor.entropy_from_logits_with_chunking", flag(true));
  if (s.backend == Backend::megatron) add_megatron(o, s, rl, launch.model.num_layers);
  if (s.backend == Backend::fsdp) add_fsdp(o, s, rl);
  add(o, "actor_rollout_ref.rollout.name", std::string(rollout_engine_name(rl.engine)));
  add(o, "actor_rollout_ref.rollout.tensor_model_parallel_size", std::to_string(rl.rollout_tp));
  if (rl.rollout_dp > 1) {
    // vLLM data-parallel attention with the experts over TP x DP (verl RolloutConfig requires
    // expert_parallel_size == tensor_model_parallel_size * data_parallel_size).
    add(o, "actor_rollout_ref.rollout.data_parallel_size", std::to_string(rl.rollout_dp));
    add(o, "actor_rollout_ref.rollout.expert_parallel_size", std::to_string(rl.rollout_ep));
  }
  add(o, "actor_rollout_ref.rollout.gpu_memory_utilization", fmt::format("{:.2f}", rl.gpu_memory_utilization));
  add(o, "actor_rollout_ref.rollout.n", std::to_string(rl.n));
  add(o, "actor_rollout_ref.rollout.dtype", dtype_name(s.compute_dtype));
  // Engines on a pool of their own never sleep (the one-step-off config turns it off: the weights
  // stay for the NCCL sync).
  add(o, "actor_rollout_ref.rollout.free_cache_engine", flag(rl.free_cache_engine && rl.rollout_gpus == 0));
  add(o, "actor_rollout_ref.rollout.enforce_eager", flag(rl.enforce_eager));
  if (rl.rollout_fp8) add(o, "actor_rollout_ref.rollout.quantization", "fp8");
  if (rl.use_critic) {
    add(o, "critic.model.path", "\"$MODEL_PATH\"");
    add(o, "critic.optim.lr", "\"$CRITIC_LR\"");
    add(o, "critic.ppo_micro_batch_size_per_gpu", std::to_string(ppo_micro));
  }
  // Rule-based reward of verl's default_compute_score for the data's data_source, or the
  // compute_score of REWARD_FUNCTION_PATH (custom_reward_function; empty: the default).
  add(o, "custom_reward_function.path", "\"$REWARD_FUNCTION_PATH\"");
  add(o, "trainer.logger", "\"$LOGGER\"");
  add(o, "trainer.project_name", "\"$PROJECT_NAME\"");
  add(o, "trainer.experiment_name", "\"$EXPERIMENT_NAME\"");
  add(o, "trainer.total_epochs", "\"$TOTAL_EPOCHS\"");
  const NodeGroup& group = launch.cluster.groups.front();
  // Ray nodes are hosts: a rack-scale part's compute trays (GB200 NVL72: 4 GPUs), not its NVLink domain.
  add(o, "trainer.nnodes", std::to_string(launch.cluster.total_gpus() / group.gpus_per_host()));
  add(o, "trainer.n_gpus_per_node", std::to_string(group.gpus_per_host()));
  if (rl.partial_rollout) {
    add_v1_async(o, launch, group.gpus_per_host());
  } else if (rl.rollout_gpus > 0) {
    // The one-step-off trainer: OneStepOffRayTrainer asserts not hybrid_engine; its resource pool
    // manager places the engines on rollout.nnodes x rollout.n_gpus_per_node GPUs: whole nodes, or
    // the same GPUs of each of the trainer's nodes.
    add(o, "actor_rollout_ref.hybrid_engine", flag(false));
    const int engines_per_node = rl.rollout_gpus_per_node > 0 ? rl.rollout_gpus_per_node : group.gpus_per_host();
    add(o, "rollout.nnodes", std::to_string(rl.rollout_gpus / engines_per_node));
    add(o, "rollout.n_gpus_per_node", std::to_string(engines_per_node));
  }
  return o;
}

VerlEntry verl_entry(const LaunchSpec& launch) {
  const bool megatron = launch.strategy.backend == Backend::megatron;
  if (launch.workload.rl.rollout_gpus > 0 && !launch.workload.rl.partial_rollout) {
    return {"verl.experimental.one_step_off_policy.main_ppo",
            megatron ? "one_step_off_ppo_megatron_trainer" : "one_step_off_ppo_trainer"};
  }
  return {"verl.trainer.main_ppo", megatron ? "ppo_megatron_trainer" : "ppo_trainer"};
}

std::string verl_variables(const LaunchSpec& launch) {
  // Defaults of verl's GSM8K GRPO example (examples/grpo_trainer/run_qwen2-7b.sh at b178a3cd:
  // data from examples/data_preprocess/gsm8k.py, lr 1e-6, project verl_grpo_example_gsm8k,
  // 15 epochs; critic lr 1e-5 of examples/ppo_trainer/run_deepseek7b_llm.sh). The logger is the
  // console alone (the examples add wandb, which needs a login).
  const bool megatron = launch.strategy.backend == Backend::megatron;
  return fmt::format(
      "TRAIN_FILES=${{TRAIN_FILES:-$HOME/data/gsm8k/train.parquet}}\n"
      "VAL_FILES=${{VAL_FILES:-$HOME/data/gsm8k/test.parquet}}\n"
      "MODEL_PATH=${{MODEL_PATH:-{}}}\n"
      "LR=${{LR:-1e-6}}\n"
      "{}"
      "REWARD_FUNCTION_PATH=${{REWARD_FUNCTION_PATH:-}}  # a .py defining compute_score; empty: verl's rule-based score\n"
      "LOGGER=${{LOGGER:-'[\"console\"]'}}  # '[\"console\",\"wandb\"]' as in verl's examples\n"
      "PROJECT_NAME=${{PROJECT_NAME:-verl_grpo_example_gsm8k}}\n"
      "EXPERIMENT_NAME=${{EXPERIMENT_NAME:-{}_{}}}\n"
      "TOTAL_EPOCHS=${{TOTAL_EPOCHS:-15}}\n",
      launch.model_path, launch.workload.rl.use_critic ? "CRITIC_LR=${CRITIC_LR:-1e-5}\n" : "",
      launch.model.name, megatron ? "megatron" : "fsdp");
}

std::string emit_verl(const LaunchSpec& launch) {
  const VerlEntry entry = verl_entry(launch);
  const int rollout_gpus = launch.workload.rl.rollout_gpus;
  std::string script = fmt::format(
      "#!/usr/bin/env bash\n"
      "# verl launch generated by `meshplan plan` for {} on {} GPUs ({}){}.{}\n"
      "# Extra Hydra overrides given to this script are appended (\"$@\").\n"
      "set -euo pipefail\n\n{}\n"
      "python3 -m {} \\\n    --config-name={} \\\n",
      launch.model.name, launch.cluster.total_gpus() + rollout_gpus, launch.cluster.groups.front().gpu.id,
      rollout_gpus > 0 ? fmt::format(": the trainer on {}, the rollout engines on {} of their own, one step ahead",
                                     launch.cluster.total_gpus(), rollout_gpus)
                       : "",
      launch.workload.rl.partial_rollout ? "\n# Partial rollout is verl's V1 trainer (trainer.use_v1): verl 0.9.0 or later" : "",
      verl_variables(launch), entry.module, entry.config_name);
  for (const std::string& override_line : verl_overrides(launch)) script += "    " + override_line + " \\\n";
  script += "    \"$@\"\n";
  return script;
}

}  // namespace meshplan
