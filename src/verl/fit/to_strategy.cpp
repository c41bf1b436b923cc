#include "verl/fit/to_strategy.hpp"

#include "cost/memory/memory_tiers.hpp"
#include "strategy/fp8_recipe.hpp"
#include "strategy/moe_dispatcher.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/rollout_engine.hpp"
#include "verl/fit/vllm_scheduling.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

/// Megatron-core's low-precision training, passed through override_transformer_config as verl's FP8
/// recipes set it (verl-recipe recipe/dapo/test_dapo_8b_megatron_fp8train.sh: fp8=e4m3,
/// fp8_recipe=blockwise): TransformerConfig.fp8 (a format; unset or false is bf16) with fp8_recipe,
/// fp8_param (kept and gathered in fp8), fp8_dot_product_attention and fp8_output_proj; fp4 ("e2m1", NVFP4) with
/// fp4_param.
void map_low_precision(const ConfigView& v, Strategy& s) {
  const auto set_format = [&](const std::string& key) {
    const auto value = v.text(key);
    return value && !v.is_null(key) && *value != "false" && *value != "False" && !value->empty();
  };
  const std::string t = A("megatron.override_transformer_config.");
  if (set_format(t + "fp8")) {
    s.compute_dtype = Dtype::fp8;
    s.fp8_recipe = parse_fp8_recipe(v.text(t + "fp8_recipe").value_or("delayed")).value_or(Fp8Recipe::delayed);
    s.fp8_param_gather = v.boolean(t + "fp8_param").value_or(false);
    s.fp8_attention = v.boolean(t + "fp8_dot_product_attention").value_or(false);
    s.fp8_output_proj = v.boolean(t + "fp8_output_proj").value_or(false);
  }
  if (set_format(t + "fp4")) {
    s.compute_dtype = Dtype::fp4;
    s.fp4_param_gather = v.boolean(t + "fp4_param").value_or(false);
  }
}

int as_int(const ConfigView& v, const std::string& key, long long fallback) {
  return static_cast<int>(v.integer(key).value_or(fallback));
}

// Megatron-core's pipeline_model_parallel_layout, a string or a list of stages (TransformerConfig
// accepts both): it also sets VPP when the launch leaves it unset.
void map_pipeline_layout(const ConfigNode* node, Strategy& s) {
  if (node == nullptr || node->kind == NodeKind::null) return;
  if (node->kind == NodeKind::list) {
    std::vector<std::vector<std::string>> stages;
    for (const ConfigNode& stage : node->items) {
      stages.emplace_back();
      if (stage.kind != NodeKind::list) stages.back().push_back("?" + stage.text);
      for (const ConfigNode& layer : stage.items) stages.back().push_back(layer.text);
    }
    s.pipeline_layout = pipeline_layout_from_names(stages);
  } else {
    s.pipeline_layout = node->text;
  }
  const auto layout = parse_pipeline_layout(s.pipeline_layout);
  if (layout && s.vpp <= 1) s.vpp = layout_vpp(*layout, s.pp);
}

void map_megatron(const ConfigView& v, Strategy& s) {
  s.backend = Backend::megatron;
  s.tp = as_int(v, A("megatron.tensor_model_parallel_size"), 1);
  s.pp = as_int(v, A("megatron.pipeline_model_parallel_size"), 1);
  s.cp = as_int(v, A("megatron.context_parallel_size"), 1);
  s.ep = as_int(v, A("megatron.expert_model_parallel_size"), 1);
  s.etp = v.is_null(A("megatron.expert_tensor_parallel_size")) ? s.tp : as_int(v, A("megatron.expert_tensor_parallel_size"), s.tp);
  s.vpp = v.is_null(A("megatron.virtual_pipeline_model_parallel_size"))
              ? 1
              : as_int(v, A("megatron.virtual_pipeline_model_parallel_size"), 1);
  s.sequence_parallel = v.boolean(A("megatron.sequence_parallel")).value_or(false) && s.tp > 1;
  s.distributed_optimizer = v.boolean(A("megatron.use_distributed_optimizer")).value_or(true);
  // verl utils/megatron/optimizer.py: with optim.use_precision_aware_optimizer (keys since
  // 64ea4542c, 2026-06) Megatron keeps Adam's m and v in optim.exp_avg_dtype / exp_avg_sq_dtype,
  // and the engine (workers/engine/megatron/transformer_impl.py) reduces gradients in
  // optim.main_grads_dtype; otherwise DistributedDataParallelConfig(grad_reduce_in_fp32=True)
  // (utils/megatron_utils.py). megatron.override_ddp_config.grad_reduce_in_fp32 wins over both.
  const bool precision_aware = v.boolean(A("optim.use_precision_aware_optimizer")).value_or(false);
  const auto dtype_bytes = [&](const char* key) {
    const std::string dtype = v.text(A(key)).value_or("fp32");
    return dtype == "bf16" || dtype == "fp16" || dtype == "bfloat16" || dtype == "float16" ? 2.0 : 4.0;
  };
  if (precision_aware) {
    s.adam_moment_bytes = dtype_bytes("optim.exp_avg_dtype") + dtype_bytes("optim.exp_avg_sq_dtype");
  }
  s.grad_reduce_in_fp32 = v.boolean(A("megatron.override_ddp_config.grad_reduce_in_fp32"))
                              .value_or(!precision_aware || dtype_bytes("optim.main_grads_dtype") == 4.0);
  // Megatron-FSDP (verl since f2659862a, 2026-05: megatron.use_megatron_fsdp; utils/megatron_utils.py
  // builds DistributedDataParallelConfig with data_parallel_sharding_strategy optim_grads_params and
  // the distributed optimizer unless override_ddp_config says otherwise).
  if (v.boolean(A("megatron.use_megatron_fsdp")).value_or(false)) {
    const std::string sharding =
        v.text(A("megatron.override_ddp_config.data_parallel_sharding_strategy")).value_or("optim_grads_params");
    s.zero = sharding == "optim_grads_params" ? ZeroStage::zero3
             : sharding == "optim_grads"      ? ZeroStage::zero2
             : sharding == "optim"            ? ZeroStage::zero1
                                              : ZeroStage::none;
    s.distributed_optimizer = true;
  }
  s.offload.params = v.boolean(A("megatron.param_offload")).value_or(false);
  s.offload.grads = v.boolean(A("megatron.grad_offload")).value_or(false);
  s.offload.optimizer = v.boolean(A("megatron.optimizer_offload")).value_or(false);
  // Megatron-core's CPU optimizer: verl builds OptimizerConfig with optim.override_optimizer_config's
  // keys replacing its own (utils/megatron/optimizer.py init_megatron_optim_config at 1dda039b9);
  // OptimizerConfig.optimizer_offload_fraction defaults to 0.0 (optimizer_config.py).
  s.offload.optimizer_on_cpu = v.boolean(A("optim.override_optimizer_config.optimizer_cpu_offload")).value_or(false);
  if (s.offload.optimizer_on_cpu) {
    s.offload.optimizer_fraction = v.number(A("optim.override_optimizer_config.optimizer_offload_fraction")).value_or(0.0);
  }
  const std::string granularity = v.text(A("megatron.override_transformer_config.recompute_granularity")).value_or("");
  s.recompute = granularity == "full" ? Recompute::full : granularity == "selective" ? Recompute::selective : Recompute::none;
  s.recompute_method = v.text(A("megatron.override_transformer_config.recompute_method")).value_or("") == "block"
                           ? RecomputeMethod::block
                           : RecomputeMethod::uniform;
  s.recompute_num_layers = as_int(v, A("megatron.override_transformer_config.recompute_num_layers"), 0);
  // verl passes override_transformer_config into Megatron-core's TransformerConfig (its engine
  // config defaults recompute_modules to ["core_attn"], trainer/config/engine/megatron.yaml).
  if (const ConfigNode* modules = v.node(A("megatron.override_transformer_config.recompute_modules"));
      modules != nullptr && modules->kind == NodeKind::list) {
    s.recompute_modules = 0;
    for (const ConfigNode& item : modules->items) {
      if (const auto module = recompute_module_of(item.text)) s.recompute_modules |= *module;
    }
  }
  // Megatron-core layer-level CPU offloading, passed through override_transformer_config
  // (ModelParallelConfig.cpu_offloading, cpu_offloading_num_layers).
  if (v.boolean(A("megatron.override_transformer_config.cpu_offloading")).value_or(false)) {
    s.activation_offload_layers = as_int(v, A("megatron.override_transformer_config.cpu_offloading_num_layers"), 0);
  }
  // Megatron-core TransformerConfig.activation_func_fp8_input_store, passed the same way.
  s.activation_func_fp8_input_store =
      v.boolean(A("megatron.override_transformer_config.activation_func_fp8_input_store")).value_or(false);
  // TransformerConfig.use_transformer_engine_op_fuser (TEGroupedMLP's fused ops), likewise.
  s.te_op_fuser = v.boolean(A("megatron.override_transformer_config.use_transformer_engine_op_fuser")).value_or(false);
  map_low_precision(v, s);
  // verl model.mtp (workers/config/model.py MtpConfig): enable loads the MTP layers, enable_train
  // adds their loss (Megatron-core mtp_num_layers from the checkpoint's config).
  s.train_mtp = v.boolean("actor_rollout_ref.model.mtp.enable").value_or(false) &&
                v.boolean("actor_rollout_ref.model.mtp.enable_train").value_or(false);
  s.first_stage_layers = as_int(v, A("megatron.override_transformer_config.num_layers_in_first_pipeline_stage"), 0);
  s.last_stage_layers = as_int(v, A("megatron.override_transformer_config.num_layers_in_last_pipeline_stage"), 0);
  s.pipeline_counts_embedding =
      v.boolean(A("megatron.override_transformer_config.account_for_embedding_in_pipeline_split")).value_or(false);
  s.pipeline_counts_loss =
      v.boolean(A("megatron.override_transformer_config.account_for_loss_in_pipeline_split")).value_or(false);
  map_pipeline_layout(v.node(A("megatron.override_transformer_config.pipeline_model_parallel_layout")), s);
  s.moe_a2a_overlap =
      v.boolean(A("megatron.override_transformer_config.overlap_moe_expert_parallel_comm")).value_or(false);
  // verl's own default is "alltoall" (models/mcore/config_converter.py).
  s.moe_dispatcher =
      parse_moe_dispatcher(v.text(A("megatron.override_transformer_config.moe_token_dispatcher_type")).value_or(""))
          .value_or(MoeDispatcher::alltoall);
  // moe_flex_dispatcher_num_sms, or the deprecated per-backend names it replaced (a GPU has at
  // most a few hundred SMs: a larger count is not taken).
  for (const char* key : {"moe_flex_dispatcher_num_sms", "moe_hybridep_num_sms", "moe_deepep_num_sms"}) {
    const auto sms = v.integer(A(std::string("megatron.override_transformer_config.") + key));
    if (sms && *sms > 0 && *sms <= 1024) {
      s.moe_dispatcher_sms = static_cast<int>(*sms);
      break;
    }
  }
}

void map_fsdp(const ConfigView& v, Strategy& s) {
  s.backend = Backend::fsdp;
  s.zero = ZeroStage::zero3;  // FSDP FULL_SHARD (verl fsdp_workers.py)
  s.ulysses_sp = static_cast<int>(v.actor_sp());
  const long long fsdp_size = v.integer(A("fsdp_config.fsdp_size")).value_or(-1);
  s.fsdp_shard_size = fsdp_size > 0 && fsdp_size < v.n_gpus() ? static_cast<int>(fsdp_size) : 0;
  s.offload.params = v.boolean(A("fsdp_config.param_offload")).value_or(false);
  s.offload.optimizer = v.boolean(A("fsdp_config.optimizer_offload")).value_or(false);
  s.recompute = v.boolean("actor_rollout_ref.model.enable_gradient_checkpointing").value_or(false) ? Recompute::full
                                                                                                  : Recompute::none;
  // verl utils/activation_offload.py (since v0.4.0): every FSDP unit's saved tensors but the last
  // go to host memory in the actor's training passes (the FSDP engine's build, transformer_impl.py).
  if (v.boolean("actor_rollout_ref.model.enable_activation_offload").value_or(false)) {
    s.activation_offload_layers = kOffloadAllButLastLayer;
  }
}

void map_rollout(const ConfigView& v, Workload& w) {
  RlSettings& rl = w.rl;
  rl.engine = parse_rollout_engine(v.text(R("name")).value_or("vllm")).value_or(RolloutEngine::vllm);
  rl.rollout_tp = as_int(v, R("tensor_model_parallel_size"), 1);
  rl.rollout_dp = as_int(v, R("data_parallel_size"), 1);
  rl.rollout_ep = as_int(v, R("expert_parallel_size"), 1);
  rl.n = as_int(v, R("n"), 1);
  rl.prompt_len = v.integer(R("prompt_length")).value_or(v.integer("data.max_prompt_length").value_or(512));
  rl.response_len = v.integer(R("response_length")).value_or(v.integer("data.max_response_length").value_or(512));
  rl.gpu_memory_utilization = v.number(R("gpu_memory_utilization")).value_or(0.5);
  rl.ppo_mini_batch = as_int(v, A("ppo_mini_batch_size"), 0);
  rl.use_dynamic_bsz = v.dynamic_bsz();
  rl.ppo_max_token_len_per_gpu = v.integer(A("ppo_max_token_len_per_gpu")).value_or(0);
  rl.log_prob_max_token_len_per_gpu = v.integer(R("log_prob_max_token_len_per_gpu")).value_or(0);
  rl.ppo_epochs = as_int(v, A("ppo_epochs"), 1);
  rl.use_reference = v.uses_reference();
  rl.use_critic = v.uses_critic();
  rl.entropy_chunking = v.boolean(A("entropy_from_logits_with_chunking")).value_or(false) ||
                        v.boolean(A("fsdp_config.entropy_from_logits_with_chunking")).value_or(false);
  // dp_actor.update_policy: calculate_entropy = calculate_entropy or entropy_coeff != 0.
  rl.entropy_in_update =
      v.boolean(A("calculate_entropy")).value_or(false) || v.number(A("entropy_coeff")).value_or(0.0) != 0.0;
  rl.use_fused_kernels = v.boolean("actor_rollout_ref.model.use_fused_kernels").value_or(false);
  rl.use_remove_padding = v.boolean("actor_rollout_ref.model.use_remove_padding").value_or(true);
  rl.ref_param_offload = v.boolean(REF("fsdp_config.param_offload")).value_or(false) ||
                         v.boolean(REF("megatron.param_offload")).value_or(false);
  // fsdp_workers.py _build_model_optimizer(role="ref"): torch_dtype = fsdp_config.model_dtype when
  // set (engine/fsdp.yaml sets fp32 from verl 0.6), else bf16 for a model that is not the actor.
  const auto ref_dtype = v.text(REF("fsdp_config.model_dtype"));
  rl.ref_param_bytes = ref_dtype && (*ref_dtype == "fp32" || *ref_dtype == "float32") ? 4 : 2;
  rl.free_cache_engine = v.boolean(R("free_cache_engine")).value_or(true);
  rl.enforce_eager = v.boolean(R("enforce_eager")).value_or(false);
  // verl passes rollout.quantization to the engine (vllm_async_server.py, sglang's server args);
  // torchao's layouts are not costed (its config file names them).
  rl.rollout_fp8 = v.text(R("quantization")).value_or("") == "fp8";
  rl.max_num_seqs = as_int(v, R("max_num_seqs"), rl.max_num_seqs);
  rl.max_num_batched_tokens = v.integer(R("max_num_batched_tokens")).value_or(rl.max_num_batched_tokens);
  rl.max_model_len = v.integer(R("max_model_len")).value_or(0);
  rl.weight_sync_bucket_bytes =
      v.integer(R("checkpoint_engine.update_weights_bucket_megabytes")).value_or(2048) << 20;
  if (v.separate_rollout_pool()) {
    // The one-step-off trainer: engines on the rollout pool, generating the next batch while the
    // trainer updates on this one (OneStepOffRayTrainer.fit_step: one batch in flight). The
    // fully-async trainer's engines run on its pool too and may run further ahead
    // (async_training.staleness_threshold, trigger_parameter_sync_step): costed as one step ahead,
    // as is the V1 trainer's separate-async mode (verl 0.9.0 on), whose engines sync every
    // trainer.v1.separate_async.parameter_sync_step mini-batches.
    rl.rollout_gpus = static_cast<int>(v.rollout_pool_gpus());
    rl.off_policy_steps = 1;
  }
  // Partial rollout: the V1 async modes abort the responses still decoding once a batch is ready
  // and resume them after the weight update (trainer/ppo/v1 trainer_colocate_async.py
  // on_sample_end, FullyAsyncLLMServerClient), with num_warmup_batches batches queued beside it;
  // the fully-async trainer resumes them when async_training.partial_rollout (its default from 0.7.0).
  const std::string v1_mode = v.v1_trainer() ? v.text("trainer.v1.trainer_mode").value_or("sync") : "";
  if (v1_mode == "colocate_async" || v1_mode == "separate_async") {
    rl.partial_rollout = true;
    rl.warmup_batches = as_int(v, "trainer.v1." + v1_mode + ".num_warmup_batches", 1);
  } else if (v.fully_async()) {
    rl.partial_rollout = v.boolean("async_training.partial_rollout").value_or(false);
  }
  w.seq_len = rl.prompt_len + rl.response_len;
  // Expected real lengths (use_remove_padding): a launch does not say them; the documented
  // default (cost/memory/memory_tiers.hpp) until --mean-prompt-len / --mean-response-len replace it.
  rl = with_expected_lengths(rl);
}

// Global micro-batch sizes (the deprecated *_micro_batch_size keys) are divided by the actor's
// data-parallel size (fsdp_workers.py / megatron_workers.py _normalize; verl-rules.md §0).
int per_gpu(const ConfigView& v, const std::string& per_gpu_key, const std::string& global_key, long long dp) {
  if (const auto value = v.integer(per_gpu_key)) return static_cast<int>(*value);
  const long long global = v.integer(global_key).value_or(0);
  return dp > 0 ? static_cast<int>(global / dp) : 0;
}

}  // namespace

VerlJob verl_to_strategy(const ConfigNode& config, std::optional<VerlTrainer> trainer) {
  ConfigView v(config, nullptr);
  if (trainer) v.set_trainer(*trainer);
  VerlJob job;
  job.nnodes = as_int(v, "trainer.nnodes", 1);
  job.gpus_per_node = as_int(v, "trainer.n_gpus_per_node", 8);
  Strategy& s = job.strategy;
  if (v.megatron()) {
    map_megatron(v, s);
  } else {
    map_fsdp(v, s);
  }
  const long long model_parallel = std::int64_t{s.tp} * s.pp * s.cp;
  s.dp = model_parallel > 0 ? static_cast<int>(v.n_gpus() / model_parallel) : 1;
  s.lora.rank = as_int(v, "actor_rollout_ref.model.lora_rank", 0);
  if (const auto targets = v.text("actor_rollout_ref.model.target_modules")) s.lora.target_modules = {*targets};
  Workload& w = job.workload;
  w.kind = WorkloadKind::rl;
  // A step's prompts: data.train_batch_size, or the fully-async trainer's ppo_mini_batch_size x
  // async_training.require_batches (its data.train_batch_size is 0).
  w.global_batch = v.step_prompts().value_or(0);
  map_rollout(v, w);
  const long long dp = v.actor_dp();
  RlSettings& rl = w.rl;
  rl.ppo_micro_batch_per_gpu = per_gpu(v, A("ppo_micro_batch_size_per_gpu"), A("ppo_micro_batch_size"), dp);
  rl.log_prob_micro_batch_per_gpu =
      per_gpu(v, R("log_prob_micro_batch_size_per_gpu"), R("log_prob_micro_batch_size"), dp);
  s.micro_batch = std::max(1, rl.ppo_micro_batch_per_gpu);
  job.global_ppo_micro_batch = !v.integer(A("ppo_micro_batch_size_per_gpu")) && v.integer(A("ppo_micro_batch_size"));
  job.global_log_prob_micro_batch =
      !v.integer(R("log_prob_micro_batch_size_per_gpu")) && v.integer(R("log_prob_micro_batch_size"));
  // A path the script builds from the environment ("$HOME/verl/models/Qwen3-32B") still names its
  // model in its last component, as a known path does.
  if (const ConfigNode* path = find_path(config, "actor_rollout_ref.model.path")) {
    job.model_path = path->kind == NodeKind::unknown && !path->written.empty() ? path->written : path->text;
  }
  job.too_large_key = v.too_large_key();
  if (!v.unknown_too_large()) {
    job.unknown_key = v.unknown_key();
    job.unknown_reason = v.unknown_reason();
  }
  return job;
}

VerlJob verl_to_strategy(const VerlLaunch& launch) {
  VerlJob job = verl_to_strategy(launch.config, launch.trainer);
  job.workload.rl.vllm_async_scheduling = verl_vllm_scheduling(launch).async_scheduling;
  // Transformer Engine's NVTE_DPA_FP8_RECIPE=F16 runs attention in 16 bits whatever the recipe's
  // fp8_dpa (dot_product_attention.py at v2.14 and v2.18: "ignore the recipe from autocast, set
  // fp8_dpa = False").
  const auto dpa_recipe = launch.environment.find("NVTE_DPA_FP8_RECIPE");
  if (dpa_recipe != launch.environment.end() && !dpa_recipe->second.unknown && dpa_recipe->second.text == "F16") {
    job.strategy.fp8_attention = false;
  }
  return job;
}

}  // namespace meshplan
