#pragma once
// Strategy: how one training job is laid out on the GPUs, in Megatron / verl vocabulary.
// Workload: what the job does (pretrain, SFT, or verl RL with its rollout settings).
// Plain values; validity rules against a model and a cluster live in strategy/ too.
// Fields may be added, never renamed (estimate, plan, check and the emitters share them).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "strategy/cuda_graphs.hpp"
#include "strategy/recompute_modules.hpp"

namespace meshplan {

enum class Backend { megatron, fsdp };
enum class Recompute { none, selective, full };
enum class RecomputeMethod { uniform, block };
/// Megatron-core moe_token_dispatcher_type (transformer_config.py): "alltoall" sends one row per
/// (token, expert) pair (MoEAlltoAllTokenDispatcher); "flex" (MoEFlexTokenDispatcher with the
/// DeepEP, HybridEP or NCCL EP backend) sends a token once per GPU it goes to, and across nodes once
/// per node, forwarding inside the node over NVLink; "allgather" (MoEAllGatherTokenDispatcher,
/// Megatron-core's default) gathers every token of the TP x EP group on every rank.
enum class MoeDispatcher { alltoall, flex, allgather };
/// Transformer Engine's FP8 recipe (Megatron-LM --fp8-recipe, TransformerConfig.fp8_recipe; default
/// delayed): per-tensor scales (delayed, tensorwise = current scaling), 32-element blocks (mxfp8,
/// Blackwell), or 128-element blocks (blockwise).
enum class Fp8Recipe { delayed, tensorwise, mxfp8, blockwise };
/// ZeRO stage for FSDP / DeepSpeed-style sharding over the data-parallel (shard) group.
/// Megatron's distributed optimizer is `distributed_optimizer`, not a ZeRO stage.
enum class ZeroStage { none = 0, zero1 = 1, zero2 = 2, zero3 = 3 };

/// What lives in host memory. Training (pretrain / SFT): the step runs with it (FSDP CPUOffload,
/// Megatron's CPU optimizer for `optimizer` x optimizer_fraction). RL (verl): params / grads /
/// optimizer are paged to the host between phases and back before the phase that uses them
/// (verl/workers/engine/base.py BaseEngineCtx._context_switch), so the step itself runs on the
/// GPU; only `optimizer_on_cpu` keeps states on the host while the update runs.
struct Offload {
  bool params = false;
  bool grads = false;
  bool optimizer = false;
  double optimizer_fraction = 1.0;  ///< Megatron optimizer_offload_fraction (0..1)
  /// Megatron-core OptimizerConfig.optimizer_cpu_offload (HybridDeviceOptimizer: optimizer_fraction
  /// of the states, with their fp32 master weights, live and step on the CPU); verl passes it in
  /// actor.optim.override_optimizer_config. RL only: training reads `optimizer` for it.
  bool optimizer_on_cpu = false;
};

struct Lora {
  int rank = 0;                             ///< 0: full fine-tuning
  std::vector<std::string> target_modules;  ///< e.g. all-linear, q_proj, v_proj
};

/// Strategy::activation_offload_layers for "every decoder layer but the last" (verl's FSDP
/// enable_activation_offload), whatever the model's depth; the cost model caps it at L - 1.
inline constexpr int kOffloadAllButLastLayer = 1 << 30;

/// An NVFP4 tensor's bytes per element: a 4-bit E2M1 value and an E4M3 scale per 16 elements
/// (Transformer Engine NVFP4BlockScaling, common/recipe/__init__.py).
inline constexpr double kNvfp4BytesPerElement = 0.5 + 1.0 / 16.0;

struct Strategy {
  Backend backend = Backend::megatron;
  int tp = 1;    ///< tensor parallel
  int pp = 1;    ///< pipeline parallel
  int vpp = 1;   ///< virtual pipeline stages per rank (1 = no interleaving)
  int cp = 1;    ///< context parallel
  int ep = 1;    ///< expert parallel
  int etp = 1;   ///< expert tensor parallel
  int dp = 1;    ///< data parallel (derived: world / (tp*pp*cp))
  bool sequence_parallel = false;
  int micro_batch = 1;                  ///< sequences per micro-batch per rank
  Recompute recompute = Recompute::none;
  RecomputeMethod recompute_method = RecomputeMethod::uniform;
  int recompute_num_layers = 0;         ///< full recompute: layers per chunk (uniform) or count (block)
  /// Selective recompute: the RecomputeModule flags Megatron-core recomputes (recompute_modules).
  std::uint16_t recompute_modules = kDefaultRecomputeModules;
  /// Activation offloading: decoder layers per stage whose saved activations are copied to host
  /// memory in the forward and back in the backward (Megatron-core cpu_offloading_num_layers; verl
  /// FSDP model.enable_activation_offload: kOffloadAllButLastLayer). 0: none.
  int activation_offload_layers = 0;
  /// The MLP activation function keeps its input for the backward in fp8 (Megatron-core
  /// TransformerConfig.activation_func_fp8_input_store, Megatron-LM --activation-func-fp8-input-store:
  /// fused_bias_swiglu.py / fused_bias_geglu.py cast the saved input to float8_e4m3fn, the dense MLP's
  /// and the experts' alike). Megatron backend only.
  bool activation_func_fp8_input_store = false;
  /// The decoder layers' weight matrices held in fp8, 1 byte each, with no fp8 transpose kept
  /// beside them: Transformer Engine's fp8_model_init (NeMo fp8_params; Megatron-LM builds under it
  /// with --fp8-param-gather) with the parameters' transpose cache off (NeMo
  /// disable_parameter_transpose_cache, as AMD's MLPerf Llama 2 70B LoRA runs set both). With TE's
  /// default a Float8Tensor weight keeps its column-wise copy too, 2 bytes in all. Embeddings,
  /// the LM head and norms stay 16-bit. Megatron backend, FP8 compute.
  bool fp8_params = false;
  /// The routed experts' FC1, activation and FC2 run as Transformer Engine's fused ops (Megatron-core
  /// TransformerConfig.use_transformer_engine_op_fuser, from d0b3b775 / NeMo 26.06: TEGroupedMLP
  /// builds te.pytorch.ops GroupedLinear + ScaledSwiGLU / ScaledClampedQGeGLU + GroupedLinear with the
  /// biases inside), so a clamped GLU and FC2's bias cost no passes of their own. Megatron backend.
  bool te_op_fuser = false;
  /// With --dtype fp8: the recipe (Fp8Recipe), and whether attention runs in FP8 too (Megatron-LM
  /// --fp8-dot-product-attention, TransformerConfig.fp8_dot_product_attention: Transformer Engine
  /// trains it on cuDNN's fused kernel only). Megatron backend.
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  bool fp8_attention = false;
  /// Megatron-core TransformerConfig.fp8_output_proj (from d0b3b775, NeMo 26.06): the output layer as a
  /// Transformer Engine linear under the MXFP8 autocast; otherwise it runs in 16 bits
  /// (tensor_parallel.ColumnParallelLinear). Needs --fp8-recipe mxfp8 (rule fp8.output-proj-mxfp8).
  bool fp8_output_proj = false;
  /// Megatron-core first_last_layers_bf16 (Megatron-LM --first-last-layers-bf16 with
  /// --num-layers-at-start-in-bf16 / --num-layers-at-end-in-bf16; TransformerConfig defaults 1 and 1):
  /// the first and the last decoder layers, by global index, run outside the fp8 / NVFP4 autocast
  /// (fp8_utils.py is_first_last_bf16_layer, fp4_utils.py). 0 and 0: every layer in compute_dtype.
  int bf16_first_layers = 0;
  int bf16_last_layers = 0;
  /// Share of the layers of the slowest pipeline stage (`stage_layers` of `num_layers`) that run in
  /// 16 bits under first_last_layers_bf16: with PP the first stage holds the first ones and the last
  /// stage the last ones, and the busier of the two is taken. 0 outside fp8 / NVFP4 compute.
  double bf16_layer_share(std::int64_t num_layers, double stage_layers) const {
    if (compute_dtype != Dtype::fp8 && compute_dtype != Dtype::fp4) return 0.0;
    if (num_layers <= 0 || stage_layers <= 0) return 0.0;
    const double first = std::min<double>(bf16_first_layers, double(num_layers));
    const double last = std::min<double>(bf16_last_layers, double(num_layers) - first);
    if (pp <= 1) return (first + last) / double(num_layers);
    return std::min(1.0, std::max(first, last) / stage_layers);
  }
  /// Trains the model's multi-token-prediction modules with it (DeepSeek-V3 report §2.2; Megatron-core
  /// mtp_num_layers = the config's num_nextn_predict_layers, on the last pipeline stage; verl
  /// model.mtp.enable + enable_train).
  bool train_mtp = false;
  /// Megatron-core mtp_num_layers when it is not the model's MTP module count: with
  /// mtp_use_repeated_layer one module runs at this many depths (multi_token_prediction.py
  /// MultiTokenPredictionBlock; Nemotron 3 Super's recipes: 2 depths of its one module). 0: one
  /// depth per module.
  int mtp_depths = 0;
  /// The MTP depths a trained run computes.
  std::int64_t mtp_depths_run(std::int64_t model_mtp_modules) const {
    return mtp_depths > 0 ? mtp_depths : model_mtp_modules;
  }
  /// Uneven pipeline split (Megatron --decoder-first/last-pipeline-num-layers; TransformerConfig
  /// num_layers_in_first/last_pipeline_stage): decoder layers on the first / last stage, 0 = not
  /// set (the stages share the layers evenly). strategy/pipeline_split.hpp reads them.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  /// Megatron-core account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split
  /// (Megatron-LM --account-for-embedding/loss-in-pipeline-split): an even split counts the input
  /// embedding (the first stage) and the loss (the last stage) as a layer each
  /// (transformer_block.py get_num_layers_to_build); 94 decoder layers on PP 8 are 11 + 6 x 12 + 11.
  bool pipeline_counts_embedding = false;
  bool pipeline_counts_loss = false;
  /// Custom pipeline layout (Megatron-core pipeline_model_parallel_layout, e.g. "Et*4|(t*4|)*14tmL";
  /// strategy/pipeline_layout.hpp): which layers each stage builds; "" = none. It fixes VPP and
  /// replaces the first/last counts, which Megatron-core refuses beside it.
  std::string pipeline_layout;
  /// Megatron-core overlap_moe_expert_parallel_comm (Megatron-LM --overlap-moe-expert-parallel-comm;
  /// verl override_transformer_config): the combined 1F1B schedule runs one micro-batch's forward
  /// beside another's backward, so each EP all-to-all hides behind the other's computation
  /// (pipeline_parallel/combined_1f1b.py); with interleaving, one more warm-up micro-batch.
  bool moe_a2a_overlap = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// SMs the flex dispatcher's kernels run on (Megatron-core moe_flex_dispatcher_num_sms, formerly
  /// moe_deepep_num_sms / moe_hybridep_num_sms); 0: the backend's default, DeepEP's 20.
  int moe_dispatcher_sms = 0;
  /// Megatron-core CUDA graphs (strategy/cuda_graphs.hpp): cuda_graph_impl and, for the per-layer
  /// impls, the captured cuda_graph_modules (0 = the whole layer).
  CudaGraphImpl cuda_graph_impl = CudaGraphImpl::none;
  std::uint8_t cuda_graph_modules = 0;
  bool distributed_optimizer = true;    ///< Megatron: shard optimizer states over DP
  /// Megatron-core DistributedDataParallelConfig.grad_reduce_in_fp32: the main-grad buffer and its
  /// reduction in fp32. Megatron-LM sets it under bf16 (arguments.py,
  /// accumulate_allreduce_grads_in_fp32); Megatron-Bridge's performance recipes turn it off
  /// (cfg.ddp.grad_reduce_in_fp32 = False): the buffer is then in the weights' 16 bits.
  bool grad_reduce_in_fp32 = true;
  /// Megatron-core fp8_param_gather (Megatron-LM --fp8-param-gather, DistributedDataParallelConfig
  /// and the mixed-precision config): the distributed optimizer all-gathers the updated weights in
  /// fp8, 1 byte a weight, for the per-tensor FP8 recipes (delayed, tensorwise current scaling:
  /// param_and_grad_buffer.py gathers the Float8Tensors' raw data). MXFP8 weights are gathered in
  /// bf16 through the gradient buffer and cast after (reuse_grad_buf_for_mxfp8_param_ag), so this
  /// stands for the per-tensor recipes only. Weights' memory is not changed by it here (TE keeps a
  /// transposed copy of a Float8Tensor weight for the backward on Hopper).
  bool fp8_param_gather = false;
  /// Megatron-core fp4_param (Megatron-LM --fp4-param-gather) under NVFP4 compute: the distributed
  /// optimizer all-gathers the updated weights as NVFP4 tensors, 4-bit values with an E4M3 scale per
  /// 16 (kNvfp4BytesPerElement). The layers' weight matrices are NVFP4 tensors then, with a row-wise
  /// and a column-wise copy and no 16-bit one (cost/memory/model_states.cpp).
  bool fp4_param_gather = false;
  /// Megatron: bytes per parameter of Adam's m and v (fp32: 4 + 4). Megatron-core's precision-aware
  /// optimizer (OptimizerConfig.use_precision_aware_optimizer, TE FusedAdam) keeps them in
  /// exp_avg_dtype / exp_avg_sq_dtype; the fp32 master copy stays.
  double adam_moment_bytes = 8;
  ZeroStage zero = ZeroStage::none;     ///< FSDP/ZeRO stage (backend fsdp: zero3 = FULL_SHARD)
  int fsdp_shard_size = 0;              ///< hybrid shard group size; 0 = the whole DP group
  int ulysses_sp = 1;                   ///< FSDP Ulysses sequence parallel size
  Offload offload;
  Dtype compute_dtype = Dtype::bf16;    ///< fp32 master weights always (mixed precision)
  Lora lora;

  int model_parallel_size() const { return tp * pp * cp; }
  int world_size() const { return tp * pp * cp * dp; }
  /// Bytes per parameter of Megatron's main gradients (kept and reduced in this dtype).
  double megatron_grad_bytes() const {
    return grad_reduce_in_fp32 || compute_dtype == Dtype::fp32 ? 4.0 : 2.0;
  }
  /// Bytes per element of a GEMM input as Megatron-core's Transformer Engine layers keep and move it:
  /// the quantized copy under fp8 (1 byte) or NVFP4 (4 bits and an E4M3 scale per 16), else 16 bits.
  /// TE saves it in this form for the weight gradient and, with sequence parallelism, quantizes the
  /// local shard before the TP all-gather (module/linear.py _Linear.forward at d0067d0da:
  /// gather_along_first_dim(..., quantizer=input_quantizer); the backward's gathers of the input and
  /// of the output gradient alike). Other backends run their GEMMs in 16 bits.
  double quantized_gemm_input_bytes() const {
    if (backend != Backend::megatron) return 2.0;
    if (compute_dtype == Dtype::fp8) return 1.0;
    if (compute_dtype == Dtype::fp4) return kNvfp4BytesPerElement;
    return 2.0;
  }
  /// Bytes per parameter of the distributed optimizer's weight all-gather (16-bit weights unless
  /// fp8_param_gather under FP8 compute or fp4_param_gather under NVFP4).
  double param_gather_bytes() const {
    if (fp8_param_gather && compute_dtype == Dtype::fp8) return 1.0;
    if (fp4_param_gather && compute_dtype == Dtype::fp4) return kNvfp4BytesPerElement;
    return 2.0;
  }
};

enum class WorkloadKind { pretrain, sft, rl };
/// verl's rollout.name: vLLM, SGLang, TensorRT-LLM (verl main@b178a3cd on, its PyTorch backend).
enum class RolloutEngine { vllm, sglang, trtllm };
/// Whose RL trainer runs the step: what the time model takes from the framework's own code.
enum class RlFramework {
  /// verl: colocated weight updates at verl's measured rate; the actor's states stay on the GPUs
  /// unless its offload flags page them (Strategy::offload).
  verl,
  /// NeMo RL: colocated refits at NeMo RL's measured rate, and the policy's parameters and
  /// optimizer states paged to the host around every colocated generation (offload_before_refit /
  /// offload_after_refit, back in prepare_for_lp_inference / prepare_for_training).
  nemo_rl,
};
/// How engines on GPUs of their own receive the trainer's new weights.
enum class StandaloneWeightSync {
  /// verl's checkpoint engine, nccl backend (verl/checkpoint_engine/nccl_checkpoint_engine.py):
  /// actor rank 0 alone broadcasts every full tensor, gathered from the training layout, in buckets.
  verl_checkpoint_engine,
  /// A pipelined broadcast at the link's rate (NeMo RL packed_broadcast_producer).
  link_rate,
};

/// verl RL settings (actor/rollout/ref colocated on the same GPUs unless rollout_gpus is set).
/// Names follow verl's keys.
struct RlSettings {
  RolloutEngine engine = RolloutEngine::vllm;
  int rollout_tp = 1;                    ///< rollout.tensor_model_parallel_size
  /// rollout.data_parallel_size: engine instances (vLLM data-parallel attention ranks, SGLang
  /// dp_size) inside one replica of rollout_tp x rollout_dp GPUs that share its MoE layers
  int rollout_dp = 1;
  /// rollout.expert_parallel_size > 1: whole experts per GPU over the replica's rollout_tp x rollout_dp
  /// GPUs (verl vllm_async_server.py: enable_expert_parallel = expert_parallel_size > 1)
  int rollout_ep = 1;
  int n = 1;                             ///< rollout.n: responses per prompt
  std::int64_t prompt_len = 1024;        ///< data.max_prompt_length
  std::int64_t response_len = 1024;      ///< data.max_response_length
  double gpu_memory_utilization = 0.5;   ///< rollout.gpu_memory_utilization
  int ppo_mini_batch = 0;                ///< actor.ppo_mini_batch_size, in prompts (0: = train batch)
  int ppo_micro_batch_per_gpu = 0;       ///< 0: take Strategy::micro_batch
  int log_prob_micro_batch_per_gpu = 0;  ///< 0: take Strategy::micro_batch
  bool use_dynamic_bsz = false;
  std::int64_t ppo_max_token_len_per_gpu = 0;       ///< with use_dynamic_bsz
  std::int64_t log_prob_max_token_len_per_gpu = 0;  ///< with use_dynamic_bsz
  int ppo_epochs = 1;
  bool use_reference = true;             ///< KL loss / KL reward needs the ref model
  bool use_critic = false;               ///< PPO with GAE; GRPO has none
  bool entropy_in_update = false;        ///< actor.entropy_coeff != 0 or actor.calculate_entropy
  bool entropy_chunking = false;         ///< actor.entropy_from_logits_with_chunking
  std::int64_t entropy_chunk_tokens = 2048;
  bool use_fused_kernels = false;        ///< model.use_fused_kernels: log-probs/entropy from the hidden states in chunks
  bool free_cache_engine = true;         ///< rollout.free_cache_engine (sleep mode between phases)
  bool enforce_eager = false;            ///< no CUDA graphs in the rollout engine
  /// rollout.quantization=fp8: the engine quantizes its linear layers' and experts' weights to fp8
  /// as it loads them (vLLM Fp8Config.get_quant_method: LinearBase -> Fp8LinearMethod, FusedMoE ->
  /// Fp8MoEMethod; verl docs/low_precision/fp8.md "FP8 Rollout Only"; NeMo RL
  /// generation.vllm_cfg.precision=fp8), one byte a parameter; embeddings, the LM head, the routers'
  /// gates and the norms stay in the rollout dtype.
  bool rollout_fp8 = false;
  /// vLLM's async scheduling: the engine schedules step N+1 and takes step N-1's output while the
  /// GPU runs step N (v1/core/sched/async_scheduler.py AsyncScheduler, EngineCore
  /// step_with_batch_queue), so its host work per step hides behind the GPU's. On by default from
  /// vLLM #27614 (merged 2025-12, after v0.13.0: VllmConfig.__post_init__ enables it when
  /// async_scheduling is None) for the uni, mp and external_launcher executors, not Ray's (vLLM
  /// 0.17.1 logs "not supported with the `ray` distributed executor backend"). verl runs its
  /// engines with the mp executor from 0.7.1 (vllm_async_server.py "distributed_executor_backend":
  /// "mp"), with its own ExternalZeroMQDistributedExecutor before, which does not support it.
  bool vllm_async_scheduling = true;
  int max_num_seqs = 256;                ///< rollout.max_num_seqs (engine batch limit)
  std::int64_t max_num_batched_tokens = 8192;  ///< rollout.max_num_batched_tokens (prefill chunk)
  bool ref_param_offload = false;        ///< ref.fsdp_config / ref.megatron param_offload
  /// FSDP reference weights per parameter: ref.fsdp_config.model_dtype (fp32 from verl 0.6, whose
  /// engine/fsdp.yaml sets it; older verl loads the ref in bf16)
  double ref_param_bytes = 4;
  bool use_remove_padding = true;        ///< model.use_remove_padding: micro-batches hold real tokens only
  std::int64_t mean_prompt_len = 0;      ///< expected real prompt tokens (0: prompt_len, the worst case)
  std::int64_t mean_response_len = 0;    ///< expected real response tokens (0: response_len)
  std::int64_t max_model_len = 0;        ///< rollout.max_model_len (0: prompt_len + response_len, as verl sets it)
  /// rollout.checkpoint_engine.update_weights_bucket_megabytes << 20 (verl default 2048 MB)
  std::int64_t weight_sync_bucket_bytes = std::int64_t{2048} << 20;
  /// GPUs that run only the rollout engines, beside the trainer's (verl one_step_off_policy /
  /// fully_async_policy rollout.nnodes x rollout.n_gpus_per_node; NeMo RL
  /// policy.generation.colocated.enabled=false with its resources). 0: colocated on the trainer's GPUs.
  int rollout_gpus = 0;
  /// Engines on the same GPUs of every node (verl's one-step-off recipes: 2 of each node's 8): how
  /// many a node. 0: whole nodes (or none).
  int rollout_gpus_per_node = 0;
  StandaloneWeightSync standalone_weight_sync = StandaloneWeightSync::verl_checkpoint_engine;
  RlFramework framework = RlFramework::verl;
  /// Steps the rollout may run ahead of the trainer on its own GPUs (verl one-step-off: 1; NeMo RL
  /// grpo.async_grpo.max_trajectory_age_steps). 0: the trainer waits for each step's rollout.
  int off_policy_steps = 0;
  /// Off-policy engines keep generating while new weights arrive (NeMo RL
  /// grpo.async_grpo.in_flight_weight_updates): the next batch's prompts fill the slots the last
  /// long responses leave, so no step waits for a batch's tail.
  bool in_flight_weight_updates = false;
  /// Partial rollout (verl's V1 colocate_async and separate_async trainers, FullyAsyncLLMServerClient;
  /// the fully-async trainer's async_training.partial_rollout): once a batch's samples are ready the
  /// responses still decoding are aborted, and resumed after the weight update with their KV cache
  /// prefilled again, so no step waits for the longest response.
  bool partial_rollout = false;
  /// Batches queued for generation beyond the one being sampled (trainer.v1.<mode>.num_warmup_batches):
  /// with partial rollout the engines hold the prompts of 1 + warmup_batches batches.
  int warmup_batches = 0;
};

struct Workload {
  WorkloadKind kind = WorkloadKind::pretrain;
  std::int64_t seq_len = 4096;      ///< tokens per sequence (rl: prompt_len + response_len)
  std::int64_t global_batch = 0;    ///< sequences per optimizer step; rl: data.train_batch_size (prompts)
  std::int64_t images_per_sample = 0;  ///< VL models
  std::int64_t image_pixels = 0;       ///< pixels per image (e.g. 448*448)
  RlSettings rl;
};

/// NeMo RL's colocated step moves the policy's parameters and optimizer states to the host around
/// every generation and frees the gradient buffer (RlFramework::nemo_rl); the time model pages them
/// (rl_step_time.cpp), the memory model leaves them off the GPU outside their phases (rl_phases.cpp).
inline bool pages_policy_around_generation(const RlSettings& rl) {
  return rl.framework == RlFramework::nemo_rl && rl.rollout_gpus == 0;
}

/// Every GPU of the job: the trainer's, and the rollout engines' own when they have them.
inline int job_gpus(const Strategy& strategy, const Workload& workload) {
  const bool own_rollout = workload.kind == WorkloadKind::rl && workload.rl.rollout_gpus > 0;
  return strategy.world_size() + (own_rollout ? workload.rl.rollout_gpus : 0);
}

}  // namespace meshplan
