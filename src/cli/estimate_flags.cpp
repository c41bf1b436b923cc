#include "cli/estimate_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "cli/inert_flags.hpp"
#include "cli/moe_dispatcher_flags.hpp"
#include "strategy/fp8_recipe.hpp"
#include "cli/number_checks.hpp"
#include "cli/rl_flag_group.hpp"
#include "strategy/rollout_engine.hpp"
#include "core/units.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "hardware/cluster_spec.hpp"
#include "strategy/pipeline_layout.hpp"

namespace meshplan {
namespace {

/// Megatron-core's own checks of first_last_layers_bf16 under fp8 (transformer_config.py
/// __post_init__, d98e8a64d): not with the delayed recipe, and at most num_layers / PP layers at
/// either end.
Status check_bf16_edge_layers(const Strategy& s, const ModelSpec& model) {
  if (s.bf16_first_layers + s.bf16_last_layers == 0 || s.compute_dtype != Dtype::fp8) return Ok{};
  if (s.fp8_recipe == Fp8Recipe::delayed) {
    return Error{"", 0, "--first-last-layers-bf16",
                 "Delayed scaling does not support first / last layer in BF16 (Megatron-core); give --fp8-recipe "
                 "tensorwise, mxfp8 or blockwise"};
  }
  const std::int64_t per_stage = model.num_layers / std::max(s.pp, 1);
  for (const auto& [flag, count] : {std::pair{"--num-layers-at-start-in-bf16", s.bf16_first_layers},
                                    std::pair{"--num-layers-at-end-in-bf16", s.bf16_last_layers}}) {
    if (count > per_stage) {
      return Error{"", 0, flag,
                   fmt::format("{} must be between 0 and number of layers per pipeline stage ({}) (Megatron-core)",
                               count, per_stage)};
    }
  }
  return Ok{};
}

bool given(const CLI::App& command, const char* name) { return command.get_option(name)->count() > 0; }

Status parse_offload(const std::string& list, Offload& offload) {
  std::size_t start = 0;
  while (start <= list.size() && !list.empty()) {
    const std::size_t comma = list.find(',', start);
    const std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "params") {
      offload.params = true;
    } else if (item == "grads") {
      offload.grads = true;
    } else if (item == "optimizer") {
      offload.optimizer = true;
    } else {
      return Error{"", 0, "--offload",
                   fmt::format("unknown item '{}'; valid: params, grads, optimizer", item)};
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Ok{};
}

/// --recompute-modules: Megatron-core's module names, comma-separated; "" keeps the default list.
Status parse_recompute_modules(const std::vector<std::string>& names, std::uint16_t& modules) {
  if (names.empty()) return Ok{};
  modules = 0;
  for (const std::string& name : names) {
    const auto module = recompute_module_of(name);
    if (!module) {
      return Error{"", 0, "--recompute-modules",
                   fmt::format("unknown module '{}'; valid: {}", name, known_recompute_module_names())};
    }
    modules |= *module;
  }
  return Ok{};
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string::npos ? text.size() : comma;
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

Dtype dtype_of(const std::string& name) {
  if (name == "fp16") return Dtype::fp16;
  if (name == "fp8") return Dtype::fp8;
  if (name == "fp4") return Dtype::fp4;
  if (name == "fp32") return Dtype::fp32;
  return Dtype::bf16;
}

Recompute recompute_of(const std::string& name) {
  if (name == "selective") return Recompute::selective;
  if (name == "full") return Recompute::full;
  return Recompute::none;
}

void fill_rl(const CLI::App& command, const EstimateFlags& f, const Cluster& cluster, EstimateInputs& in) {
  RlSettings& rl = in.workload.rl;
  Workload& w = in.workload;
  auto note = [&](const char* flag, std::string text) {
    if (!given(command, flag)) in.chosen.push_back(std::move(text));
  };
  rl.engine = parse_rollout_engine(f.rollout_engine).value_or(RolloutEngine::vllm);
  apply_rollout_placement(f.placement, rl);
  rl.rollout_gpus_per_node = rollout_gpus_per_shared_host(cluster, rl.rollout_gpus);
  if (rl.rollout_gpus > 0) {
    in.chosen.push_back(fmt::format("rollout engines on {} GPUs of their own, the trainer on the other {}{}",
                                    rl.rollout_gpus, cluster.total_gpus() - rl.rollout_gpus,
                                    rl.off_policy_steps > 0
                                        ? fmt::format("; generation runs up to {} step(s) ahead of training",
                                                      rl.off_policy_steps)
                                        : "; the trainer waits for each step's generation"));
  }
  if (rl.partial_rollout) {
    in.chosen.push_back(fmt::format("partial rollout: the engines hold {} batch(es) of prompts and abort the responses "
                                    "still decoding when a batch is ready",
                                    1 + rl.warmup_batches));
  }
  rl.rollout_tp = std::min(f.rollout_tp, std::max(rl.rollout_gpus > 0 ? rl.rollout_gpus : cluster.total_gpus(), 1));
  note("--rollout-tp", fmt::format("rollout TP {} (verl default 2{})", rl.rollout_tp,
                                   rl.rollout_tp < f.rollout_tp ? ", capped by the GPU count" : ""));
  rl.rollout_dp = f.rollout_dp;
  rl.rollout_ep = f.rollout_ep;
  rl.n = f.rollout_n;
  note("--rollout-n", "rollout n 1 (verl default)");
  rl.prompt_len = f.prompt_len;
  rl.response_len = f.response_len;
  note("--prompt-len", "prompt length 512 (verl data.max_prompt_length default)");
  note("--response-len", "response length 512 (verl data.max_response_length default)");
  w.seq_len = rl.prompt_len + rl.response_len;
  w.global_batch = f.global_batch > 0 ? f.global_batch : 1024;
  note("--global-batch", "train batch 1024 prompts (verl data.train_batch_size default)");
  rl.ppo_mini_batch = f.mini_batch;
  note("--mini-batch", "PPO mini-batch 256 prompts (verl default)");
  rl.gpu_memory_utilization = f.gpu_memory_utilization;
  note("--gpu-memory-utilization", "gpu_memory_utilization 0.5 (verl default)");
  rl.ppo_micro_batch_per_gpu = f.ppo_micro_batch > 0 ? f.ppo_micro_batch : in.strategy.micro_batch;
  rl.log_prob_micro_batch_per_gpu =
      f.log_prob_micro_batch > 0 ? f.log_prob_micro_batch : in.strategy.micro_batch;
  note("--ppo-micro-batch",
       fmt::format("ppo_micro_batch_size_per_gpu = micro-batch {}", in.strategy.micro_batch));
  rl.use_dynamic_bsz = f.dynamic_bsz;
  rl.ppo_max_token_len_per_gpu = f.ppo_max_token_len;
  rl.log_prob_max_token_len_per_gpu =
      f.log_prob_max_token_len > 0 ? f.log_prob_max_token_len : f.ppo_max_token_len;
  rl.max_num_seqs = f.max_num_seqs;
  rl.max_num_batched_tokens = f.max_num_batched_tokens;
  rl.use_reference = !f.no_reference;
  rl.use_critic = f.critic;
  rl.entropy_in_update = f.entropy_in_update;
  rl.entropy_chunking = f.entropy_chunking;
  rl.entropy_chunk_tokens = f.entropy_chunk;
  rl.free_cache_engine = !f.no_free_cache_engine;
  rl.enforce_eager = f.enforce_eager;
  rl.rollout_fp8 = f.rollout_quantization == "fp8";
  rl.framework = f.rl_framework == "nemo-rl" ? RlFramework::nemo_rl : RlFramework::verl;
  if (rl.framework == RlFramework::nemo_rl && rl.rollout_gpus > 0 && !given(command, "--weight-broadcast")) {
    // NeMo RL's engines of their own take its packed broadcast at the link's rate
    // (broadcast_weights_for_collective; the calibration's NeMo RL sources), not verl's checkpoint engine.
    rl.standalone_weight_sync = StandaloneWeightSync::link_rate;
    in.chosen.push_back("NeMo RL's weight broadcast to engines of their own: pipelined at the link's rate "
                        "(--weight-broadcast)");
  }
  rl.vllm_async_scheduling = !f.no_async_scheduling;
  if (rl.engine == RolloutEngine::vllm) {
    note("--no-async-scheduling",
         "vLLM async scheduling: the engine's host work hides behind each decode step (vLLM 0.14.0 on, as verl 0.9.0 "
         "installs)");
  }
  rl.ref_param_offload = f.ref_offload;
  rl.ref_param_bytes = f.ref_model_dtype == "fp32" ? 4 : 2;
  if (in.strategy.backend == Backend::fsdp && rl.use_reference && in.strategy.lora.rank == 0) {
    note("--ref-model-dtype", "FSDP reference weights in fp32 (ref.fsdp_config.model_dtype, verl >= 0.6)");
  }
  rl.use_remove_padding = !f.no_remove_padding;
  rl.mean_prompt_len = std::min(f.mean_prompt_len, rl.prompt_len);
  rl.mean_response_len = std::min(f.mean_response_len, rl.response_len);
  rl = with_expected_lengths(rl);
  note("--mean-prompt-len", fmt::format("expected prompt {} tokens (a quarter of the maximum, as in verl's GSM8K "
                                        "examples; the verdict also checks the maximum)",
                                        rl.mean_prompt_len));
  note("--mean-response-len", fmt::format("expected response {} tokens (a quarter of the maximum)",
                                          rl.mean_response_len));
}

/// An option that accepts only a number > 0.
template <class T>
void add_positive(CLI::App& c, const char* name, T& value, const char* description) {
  c.add_option(name, value, description)->check(positive_number());
}

}  // namespace

void add_estimate_flags(CLI::App& c, EstimateFlags& f) {
  c.add_option("--model", f.model, "preset name, config.json or its directory")->required();
  c.add_option("--cluster", f.cluster, "NODESxGPUSxTYPE[+...] or a YAML/JSON cluster file")->required();
  c.add_option("--gpu-catalog", f.gpu_catalog, "GPU catalog file instead of the built-in one");
  c.add_option("--workload", f.workload, "pretrain | sft | rl")
      ->check(CLI::IsMember({"pretrain", "sft", "rl"}));
  c.add_option("--backend", f.backend, "megatron | fsdp")->check(CLI::IsMember({"megatron", "fsdp"}));
  c.add_flag("--fsdp", f.fsdp, "FSDP backend (verl fsdp/fsdp2), full shard unless --zero");
  add_positive(c, "--tp", f.tp, "tensor parallel");
  add_positive(c, "--pp", f.pp, "pipeline parallel");
  add_positive(c, "--vpp", f.vpp, "virtual pipeline stages per rank");
  add_positive(c, "--first-stage-layers", f.first_stage_layers,
               "uneven pipeline: decoder layers on the first stage (Megatron --decoder-first-pipeline-num-layers)");
  add_positive(c, "--last-stage-layers", f.last_stage_layers,
               "uneven pipeline: decoder layers on the last stage (Megatron --decoder-last-pipeline-num-layers)");
  c.add_flag("--account-for-embedding-in-pipeline-split", f.account_for_embedding,
             "even pipeline split: the input embedding counts as a layer of the first stage (Megatron-LM flag of this "
             "name; Megatron-Bridge's 405B and Qwen3-235B-A22B recipes set it)");
  c.add_flag("--account-for-loss-in-pipeline-split", f.account_for_loss,
             "even pipeline split: the output layer and loss count as a layer of the last stage (Megatron-LM flag of "
             "this name)");
  c.add_option("--pipeline-layout", f.pipeline_layout,
               "custom pipeline layout, e.g. \"Et*4|(t*4|)*14tmL\" (Megatron --pipeline-model-parallel-layout: E embedding, "
               "t decoder layer, m MTP layer, L loss, | next stage; stages = PP x VPP)");
  add_positive(c, "--cp", f.cp, "context parallel");
  add_positive(c, "--ep", f.ep, "expert parallel");
  add_positive(c, "--etp", f.etp, "expert tensor parallel");
  add_positive(c, "--dp", f.dp, "data parallel (default: derived from the cluster)");
  add_positive(c, "--micro-batch", f.micro_batch, "sequences per micro-batch per GPU");
  add_positive(c, "--global-batch", f.global_batch,
               "sequences per step (rl: data.train_batch_size in prompts)");
  c.add_option("--seq-len", f.seq_len, "tokens per sequence (pretrain/sft)")
      ->check(number_between(1, 100'000'000));
  c.add_option("--recompute", f.recompute, "none | selective | full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  c.add_option("--recompute-method", f.recompute_method, "uniform | block")
      ->check(CLI::IsMember({"uniform", "block"}));
  add_positive(c, "--recompute-num-layers", f.recompute_num_layers,
               "layers per chunk (uniform) or count (block)");
  c.add_option("--recompute-modules", f.recompute_modules,
               "selective recompute: Megatron-core recompute_modules, comma list of core_attn, moe_act, "
               "layernorm, mla_up_proj, mlp, moe, shared_experts (default core_attn)");
  add_positive(c, "--activation-offload-layers", f.activation_offload_layers,
               "decoder layers whose saved activations go to host memory (Megatron-core cpu_offloading_num_layers)");
  c.add_flag("--activation-offload", f.activation_offload,
             "offload every decoder layer's saved activations but the last (verl model.enable_activation_offload)");
  c.add_flag("--fp8-params", f.fp8_params,
             "the decoder layers' weights held in fp8, 1 byte each, no transpose kept (Transformer Engine "
             "fp8_model_init with the parameters' transpose cache off: NeMo fp8_params + "
             "disable_parameter_transpose_cache)");
  c.add_option("--fp8-recipe", f.fp8_recipe,
               "with --dtype fp8: Transformer Engine's recipe, delayed (the default), tensorwise (current "
               "scaling), mxfp8 (Blackwell) or blockwise (Megatron-LM --fp8-recipe); decides FP8 attention's kernel")
      ->check(CLI::IsMember({"delayed", "tensorwise", "mxfp8", "blockwise"}));
  c.add_flag("--fp8-output-proj", f.fp8_output_proj,
             "with --dtype fp8 --fp8-recipe mxfp8: the output layer as a Transformer Engine linear in MXFP8 "
             "(Megatron-core fp8_output_proj; otherwise it runs in bf16)");
  c.add_flag("--first-last-layers-bf16", f.first_last_layers_bf16,
             "with --dtype fp8 or fp4: the first and last decoder layers in bf16, their GEMMs at the bf16 rate "
             "(Megatron-core first_last_layers_bf16)");
  c.add_option("--num-layers-at-start-in-bf16", f.bf16_start_layers,
               "with --first-last-layers-bf16: the first layers in bf16 (Megatron-core default 1)")
      ->check(CLI::NonNegativeNumber);
  c.add_option("--num-layers-at-end-in-bf16", f.bf16_end_layers,
               "with --first-last-layers-bf16: the last layers in bf16 (Megatron-core default 1)")
      ->check(CLI::NonNegativeNumber);
  c.add_flag("--fp8-dot-product-attention", f.fp8_attention,
             "attention in FP8 too, at cuDNN's measured FP8 rate (Megatron-LM --fp8-dot-product-attention)");
  c.add_flag("--use-transformer-engine-op-fuser", f.te_op_fuser,
             "the routed experts' FC1, activation and FC2 as Transformer Engine's fused ops (Megatron-core "
             "use_transformer_engine_op_fuser): gpt-oss's clamped GLU and expert biases cost no passes apart");
  c.add_flag("--activation-func-fp8-input-store", f.activation_func_fp8_input_store,
             "the MLP activation function keeps its input for the backward in fp8 (Megatron-LM "
             "--activation-func-fp8-input-store; Megatron-core activation_func_fp8_input_store)");
  c.add_flag("--mtp", f.mtp,
             "train the model's multi-token-prediction layers with it (Megatron --mtp-num-layers; verl "
             "model.mtp.enable_train)");
  c.add_option("--mtp-num-layers", f.mtp_num_layers,
               "MTP depths trained, implies --mtp (Megatron --mtp-num-layers): more than the model's MTP "
               "modules runs its one module at each depth (--mtp-use-repeated-layer; Nemotron 3 Super's recipes: 2)")
      ->check(CLI::PositiveNumber);
  c.add_flag("--sequence-parallel", f.sequence_parallel, "Megatron sequence parallelism (with TP)");
  c.add_option("--zero", f.zero,
               "ZeRO stage 0..3 (FSDP backend; Megatron: 2 and 3 are Megatron-FSDP's optim_grads and "
               "optim_grads_params)")
      ->check(number_between(0, 3));
  c.add_flag("--moe-a2a-overlap", f.moe_a2a_overlap,
             "hide the EP all-to-all behind another micro-batch's computation (Megatron "
             "--overlap-moe-expert-parallel-comm; verl override_transformer_config.overlap_moe_expert_parallel_comm)");
  add_moe_dispatcher_flags(c, f.moe_dispatcher);
  add_cuda_graph_flags(c, f.cuda_graphs);
  c.add_flag("--megatron-fsdp", f.megatron_fsdp,
             "Megatron-FSDP, data_parallel_sharding_strategy optim_grads_params (Megatron-LM --use-megatron-fsdp; "
             "verl actor.megatron.use_megatron_fsdp)");
  add_positive(c, "--fsdp-shard-size", f.fsdp_shard_size, "hybrid-shard group size (verl fsdp_size)");
  add_positive(c, "--ulysses", f.ulysses, "Ulysses sequence parallel size (FSDP)");
  c.add_flag("--no-distributed-optimizer", f.no_distributed_optimizer,
             "Megatron: replicate optimizer states");
  c.add_flag("--no-grad-reduce-in-fp32", f.no_grad_reduce_in_fp32,
             "Megatron: main gradients kept and reduced in 16 bits (Megatron-core ddp grad_reduce_in_fp32=False, "
             "as Megatron-Bridge's performance recipes set it)");
  c.add_flag("--fp8-param-gather", f.fp8_param_gather,
             "Megatron, FP8 with a per-tensor recipe (delayed or tensorwise): the distributed optimizer gathers the "
             "weights in fp8 (Megatron-LM --fp8-param-gather; MXFP8 gathers bf16 through the gradient buffer)");
  c.add_flag("--fp4-param-gather", f.fp4_param_gather,
             "Megatron, --dtype fp4: the distributed optimizer gathers the weights as NVFP4 (Megatron-LM "
             "--fp4-param-gather)");
  c.add_option("--offload", f.offload, "comma list of params,grads,optimizer");
  c.add_option("--optimizer-offload-fraction", f.optimizer_offload_fraction,
               "Megatron optimizer_offload_fraction")
      ->check(number_between(0.0, 1.0));
  c.add_option("--lora-rank", f.lora_rank, "LoRA rank (0: full fine-tuning)")->check(non_negative_number());
  c.add_option("--lora-targets", f.lora_targets, "LoRA target modules (comma list, default all-linear)");
  c.add_option("--dtype", f.dtype,
               "bf16 | fp16 | fp8 | fp4 | fp32 (fp4: NVFP4 GEMMs, Megatron-LM --fp4-format e2m1 --fp4-recipe nvfp4)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp8", "fp4", "fp32"}));
  c.add_option("--images-per-sample", f.images_per_sample, "images per sequence (VL models)")
      ->check(non_negative_number());
  c.add_option("--image-pixels", f.image_pixels, "pixels per image, e.g. 200704 (448x448)")
      ->check(non_negative_number());
  c.add_option("--overhead-gib", f.overhead_gib, "replace CUDA context + NCCL buffers per GPU (GiB)")
      ->check(number_between(0.0, 1024.0));
  c.add_option("--fragmentation", f.fragmentation,
               "allocator fragmentation as a fraction of torch allocations")
      ->check(number_between(0.0, 1.0));
  c.add_option("--moe-capacity-factor", f.moe_capacity_factor, "routed tokens per expert vs uniform routing")
      ->check(number_between(0.1, 64.0));
  c.add_flag("--no-flash-attention", f.no_flash_attention,
             "store attention scores (Korthikanti Table 2's 5as/h)");
  const std::size_t first_rl_flag = registered_options(c);
  add_positive(c, "--rollout-tp", f.rollout_tp, "rollout tensor_model_parallel_size");
  c.add_flag("--optimizer-cpu-offload", f.optimizer_cpu_offload,
             "Megatron's CPU optimizer: --optimizer-offload-fraction of the optimizer states, with their fp32 master "
             "weights, live and step on the host through the update (Megatron-core OptimizerConfig.optimizer_cpu_offload; "
             "verl actor.optim.override_optimizer_config.optimizer_cpu_offload); --offload optimizer only pages them "
             "between phases (pretrain/SFT: --offload optimizer is the CPU optimizer)");
  add_positive(c, "--rollout-dp", f.rollout_dp,
               "rollout data_parallel_size: engines per replica of rollout-tp x rollout-dp GPUs");
  add_positive(c, "--rollout-ep", f.rollout_ep,
               "rollout expert_parallel_size (> 1: whole experts per GPU, = rollout-tp x rollout-dp)");
  add_rollout_placement_flags(c, f.placement);
  add_positive(c, "--rollout-n", f.rollout_n, "responses per prompt (rollout.n)");
  add_positive(c, "--prompt-len", f.prompt_len, "data.max_prompt_length");
  add_positive(c, "--response-len", f.response_len, "data.max_response_length");
  add_positive(c, "--mean-prompt-len", f.mean_prompt_len, "expected real prompt tokens (remove-padding)");
  add_positive(c, "--mean-response-len", f.mean_response_len,
               "expected real response tokens (remove-padding)");
  add_positive(c, "--mini-batch", f.mini_batch, "actor.ppo_mini_batch_size (prompts)");
  add_positive(c, "--ppo-micro-batch", f.ppo_micro_batch, "actor.ppo_micro_batch_size_per_gpu");
  add_positive(c, "--log-prob-micro-batch", f.log_prob_micro_batch, "log_prob_micro_batch_size_per_gpu");
  c.add_flag("--dynamic-bsz", f.dynamic_bsz, "use_dynamic_bsz: micro-batches by token budget");
  add_positive(c, "--ppo-max-token-len", f.ppo_max_token_len, "ppo_max_token_len_per_gpu");
  add_positive(c, "--log-prob-max-token-len", f.log_prob_max_token_len, "log_prob_max_token_len_per_gpu");
  c.add_option("--gpu-memory-utilization", f.gpu_memory_utilization,
               "rollout gpu_memory_utilization (SGLang: "
               "mem_fraction_static)")
      ->check(number_between(0.01, 1.0));
  c.add_option("--rollout-engine", f.rollout_engine, "vllm | sglang | trtllm")
      ->check(CLI::IsMember({"vllm", "sglang", "trtllm"}));
  add_positive(c, "--max-num-seqs", f.max_num_seqs, "rollout.max_num_seqs");
  add_positive(c, "--max-num-batched-tokens", f.max_num_batched_tokens, "rollout.max_num_batched_tokens");
  c.add_flag("--no-reference", f.no_reference, "no reference model (no KL loss / KL reward)");
  c.add_flag("--critic", f.critic, "PPO with a critic (GAE)");
  c.add_flag("--entropy-in-update", f.entropy_in_update,
             "actor.entropy_coeff != 0 (entropy computed in the update)");
  c.add_flag("--entropy-chunking", f.entropy_chunking, "entropy_from_logits_with_chunking");
  add_positive(c, "--entropy-chunk", f.entropy_chunk, "chunk size in tokens");
  c.add_flag("--no-free-cache-engine", f.no_free_cache_engine, "keep the engine awake between rollouts");
  c.add_flag("--enforce-eager", f.enforce_eager, "no CUDA graphs in the rollout engine");
  c.add_option("--rollout-quantization", f.rollout_quantization,
               "rollout.quantization: fp8 holds the engine's linear layers and experts in fp8 (verl FP8 rollout)")
      ->check(CLI::IsMember({"none", "fp8"}));
  c.add_option("--rl-framework", f.rl_framework,
               "verl | nemo-rl: whose trainer runs the step (its measured colocated weight-update rate; NeMo RL also "
               "pages the policy's parameters and optimizer states to the host around each generation, and "
               "broadcasts to engines of their own at the link's rate)")
      ->check(CLI::IsMember({"verl", "nemo-rl"}));
  c.add_flag("--no-async-scheduling", f.no_async_scheduling,
             "vLLM runs its host work between decode steps, not beside them: vLLM before 0.14.0, Ray's executor, or "
             "verl before 0.9.0 (whose vLLM pin predates the default or whose executor does not support it)");
  c.add_flag("--ref-offload", f.ref_offload, "ref param_offload");
  c.add_option("--ref-model-dtype", f.ref_model_dtype, "FSDP ref.fsdp_config.model_dtype (verl >= 0.6: fp32; older: bf16)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  c.add_flag("--no-remove-padding", f.no_remove_padding, "use_remove_padding=False");
  group_rl_flags_from(c, first_rl_flag);
  c.add_flag("--json", f.json, "print JSON (bytes)");
  c.add_flag("--explain", f.explain, "print every term's formula, inputs and source");
  c.add_option("--measured", f.measured,
               "verl console log (step:N - timing_s/gen:... lines): print predicted vs measured");
  c.add_flag("--tp-comm-overlap", f.tp_comm_overlap, "Megatron --tp-comm-overlap (hides TP collectives)");
  c.add_flag("--no-overlap-grad-reduce", f.no_overlap_grad_reduce, "gradient reduction after the backward");
  c.add_flag("--no-overlap-param-gather", f.no_overlap_param_gather, "parameter all-gather before the forward");
}

Result<EstimateInputs> estimate_inputs(const CLI::App& command, const EstimateFlags& f, const ModelSpec& model,
                                       const Cluster& cluster) {
  EstimateInputs in;
  in.chosen = cluster_topology_notes(cluster);
  Strategy& s = in.strategy;
  s.backend = f.fsdp || f.backend == "fsdp" ? Backend::fsdp : Backend::megatron;
  s.tp = f.tp;
  s.pp = f.pp;
  s.vpp = f.vpp;
  s.first_stage_layers = f.first_stage_layers;
  s.last_stage_layers = f.last_stage_layers;
  s.pipeline_layout = f.pipeline_layout;
  s.pipeline_counts_embedding = f.account_for_embedding;
  s.pipeline_counts_loss = f.account_for_loss;
  if (const auto layout = parse_pipeline_layout(s.pipeline_layout); layout && !given(command, "--vpp")) {
    s.vpp = layout_vpp(*layout, s.pp);
  }
  s.cp = f.cp;
  s.ep = f.ep;
  s.etp = f.etp;
  if (!given(command, "--etp") && model.is_moe()) {
    // Megatron-core TransformerConfig: expert_tensor_parallel_size None -> tensor_model_parallel_size.
    s.etp = s.tp;
    in.chosen.push_back(fmt::format("expert TP = TP = {} (Megatron-core: an unset expert_tensor_parallel_size "
                                    "takes tensor_model_parallel_size)",
                                    s.tp));
  }
  s.sequence_parallel = f.sequence_parallel;
  s.micro_batch = f.micro_batch;
  if (!given(command, "--micro-batch")) in.chosen.push_back("micro-batch 1 (default)");
  const bool rl = f.workload == "rl";
  if (const std::string flag = first_rl_flag_given(command); !rl && !flag.empty()) {
    return Error{"", 0, flag, fmt::format("applies with --workload rl only (the workload is {})", f.workload)};
  }
  if (rl && given(command, "--seq-len")) {
    return Error{"", 0, "--seq-len", "does not apply with --workload rl: a sequence is --prompt-len + --response-len"};
  }
  s.recompute = recompute_of(f.recompute);
  if (!given(command, "--recompute")) {
    if (rl && s.backend == Backend::fsdp) {
      s.recompute = Recompute::full;
      in.chosen.push_back("full recompute of every layer (verl enable_gradient_checkpointing default true)");
    } else {
      in.chosen.push_back("no recompute (default)");
    }
  }
  s.recompute_method = f.recompute_method == "block" ? RecomputeMethod::block : RecomputeMethod::uniform;
  s.recompute_num_layers = f.recompute_num_layers;
  if (Status modules = parse_recompute_modules(split_list(f.recompute_modules), s.recompute_modules); !modules) {
    return modules.error();
  }
  s.activation_offload_layers = f.activation_offload ? kOffloadAllButLastLayer : f.activation_offload_layers;
  s.activation_func_fp8_input_store = f.activation_func_fp8_input_store;
  s.fp8_params = f.fp8_params;
  s.te_op_fuser = f.te_op_fuser;
  if (const auto recipe = parse_fp8_recipe(f.fp8_recipe)) s.fp8_recipe = *recipe;
  s.fp8_attention = f.fp8_attention;
  s.fp8_output_proj = f.fp8_output_proj;
  if (f.first_last_layers_bf16) {
    s.bf16_first_layers = f.bf16_start_layers;
    s.bf16_last_layers = f.bf16_end_layers;
  }
  s.train_mtp = f.mtp || f.mtp_num_layers > 0;
  s.mtp_depths = f.mtp_num_layers;
  s.moe_a2a_overlap = f.moe_a2a_overlap;
  apply_moe_dispatcher_flags(f.moe_dispatcher, s);
  if (Status graphs = apply_cuda_graph_flags(f.cuda_graphs, s); !graphs) return graphs.error();
  if (s.train_mtp && model.num_mtp_layers == 0) {
    return Error{"", 0, f.mtp ? "--mtp" : "--mtp-num-layers",
                 model.name + " has no multi-token-prediction layers (num_nextn_predict_layers)"};
  }
  for (const char* count : {"--num-layers-at-start-in-bf16", "--num-layers-at-end-in-bf16"}) {
    if (given(command, count) && !f.first_last_layers_bf16) {
      return Error{"", 0, count, "takes effect only with --first-last-layers-bf16"};
    }
  }
  if (f.activation_offload && given(command, "--activation-offload-layers")) {
    return Error{"", 0, "--activation-offload", "give either --activation-offload or --activation-offload-layers"};
  }
  if (f.no_async_scheduling && f.rollout_engine == "sglang") {
    return Error{"", 0, "--no-async-scheduling",
                 "is vLLM's: SGLang's overlap scheduler prepares the next batch while the GPU runs this one"};
  }
  if (given(command, "--recompute-modules") && s.recompute != Recompute::selective) {
    return Error{"", 0, "--recompute-modules", "takes effect only with --recompute selective (Megatron-core "
                                               "reads recompute_modules under recompute_granularity=selective)"};
  }
  s.distributed_optimizer = !f.no_distributed_optimizer;
  s.grad_reduce_in_fp32 = !f.no_grad_reduce_in_fp32;
  s.fp8_param_gather = f.fp8_param_gather;
  s.fp4_param_gather = f.fp4_param_gather;
  s.zero = static_cast<ZeroStage>(f.zero);
  if (f.megatron_fsdp) {
    if (s.backend != Backend::megatron || given(command, "--zero")) {
      return Error{"", 0, "--megatron-fsdp", "is the Megatron backend's ZeRO-3; give it without --fsdp and --zero"};
    }
    s.zero = ZeroStage::zero3;
  }
  // Megatron-FSDP runs with the distributed optimizer (Megatron-LM arguments.py forces it for v1).
  if (s.backend == Backend::megatron && s.zero >= ZeroStage::zero2) s.distributed_optimizer = true;
  if (s.backend == Backend::fsdp && !given(command, "--zero")) {
    s.zero = ZeroStage::zero3;
    in.chosen.push_back("FSDP full shard = ZeRO-3 (verl default)");
  }
  s.fsdp_shard_size = f.fsdp_shard_size;
  s.ulysses_sp = f.ulysses;
  s.compute_dtype = dtype_of(f.dtype);
  if (Status bf16_layers = check_bf16_edge_layers(s, model); !bf16_layers) return bf16_layers.error();
  s.lora.rank = f.lora_rank;
  s.lora.target_modules = split_list(f.lora_targets);
  if (Status offload = parse_offload(f.offload, s.offload); !offload) return offload.error();
  s.offload.optimizer_fraction = f.optimizer_offload_fraction;
  s.offload.optimizer_on_cpu = f.optimizer_cpu_offload;
  // verl's FSDP workers page parameters and optimizer states (fsdp_config.param_offload,
  // optimizer_offload); FSDP frees its gradients after the step (zero_grad), so none are left to page.
  if (rl && s.backend == Backend::fsdp && s.offload.grads) {
    return Error{"", 0, "--offload", "grads: verl's FSDP workers keep no gradients between phases to offload "
                                     "(fsdp_config has param_offload and optimizer_offload); give params or optimizer"};
  }
  if (rl && given(command, "--optimizer-offload-fraction") && !f.optimizer_cpu_offload) {
    return Error{"", 0, "--optimizer-offload-fraction",
                 "with --workload rl acts only with --optimizer-cpu-offload (Megatron's CPU optimizer); "
                 "--offload optimizer pages all the states to the host between phases, whatever the fraction"};
  }

  const int world = cluster.total_gpus() - (rl ? f.placement.rollout_gpus : 0);
  const int model_parallel = s.tp * s.pp * s.cp;
  if (given(command, "--dp")) {
    s.dp = f.dp;
  } else {
    s.dp = std::max(1, world / std::max(model_parallel, 1));
    in.chosen.push_back(fmt::format("DP derived from the cluster = {} ({} GPUs / (TP {} x PP {} x CP {}))",
                                    s.dp, world, s.tp, s.pp, s.cp));
  }

  Workload& w = in.workload;
  w.kind = rl ? WorkloadKind::rl : (f.workload == "sft" ? WorkloadKind::sft : WorkloadKind::pretrain);
  w.seq_len = f.seq_len;
  w.images_per_sample = f.images_per_sample;
  w.image_pixels = f.image_pixels;
  if (rl) {
    fill_rl(command, f, cluster, in);
  } else {
    if (!given(command, "--seq-len")) in.chosen.push_back("sequence length 4096 (default)");
    const std::int64_t batch_dp =
        s.backend == Backend::fsdp ? std::max(1, s.dp / std::max(s.ulysses_sp, 1)) : s.dp;
    w.global_batch = f.global_batch > 0 ? f.global_batch : batch_dp * s.micro_batch * s.pp;
    if (f.global_batch <= 0) {
      in.chosen.push_back(fmt::format("global batch {} = DP x micro-batch x PP (default: fills the pipeline)",
                                      w.global_batch));
    }
  }
  in.options.overhead_bytes = f.overhead_gib >= 0 ? gib_to_bytes(f.overhead_gib) : -1;
  in.options.fragmentation = f.fragmentation;
  in.options.flash_attention = !f.no_flash_attention;
  in.options.moe_capacity_factor = f.moe_capacity_factor;
  if (std::optional<Error> inert = inert_flag(command, s, model, w)) return *inert;
  return in;
}

}  // namespace meshplan
