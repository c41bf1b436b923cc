#include "cost/time/rl_step_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/time/compute_time.hpp"
#include "cost/time/engine_all_reduce.hpp"
#include "cost/memory/model_states.hpp"
#include "cost/time/offload_time.hpp"
#include "cost/time/step_time.hpp"
#include "cost/time/weight_sync_rates.hpp"
#include "model/flops.hpp"
#include "model/kv_cache.hpp"
#include "cost/memory/rollout_memory.hpp"

namespace meshplan {
namespace {

// Without CUDA graphs (rollout.enforce_eager; SGLang disable_cuda_graph) the host launches every
// kernel of every layer through PyTorch and Triton each decode step; the GPU runs behind it, so a
// step takes the longer of the GPU's work and the host's launches (with graphs, one replay). The
// host's time a layer, measured as the eager step where the GPU's work is small:
//   MoE layer: vllm-project/vllm#45709 (2026-06), Qwen3-30B-A3B at TP 4, 8 requests in flight:
//     TPOT 33.92 ms eager against 10.03 ms with full and piecewise graphs; 33.92 ms / 48 layers =
//     0.71 ms (vLLM's FusedMoE path: gate GEMM, topk, moe_align_block_size, two Triton fused_moe
//     launches, activation and moe_sum beside the attention block's kernels).
//   dense layer: no measurement fixes it. vLLM PR #1440's eager Llama-2-7B step at batch 1 (1.2 s
//     against 1.05 s graphed for 100 tokens: 12 ms over 32 layers) bounds it at 0.375 ms; verl's
//     three dense eager runs on H20 (docs/accuracy.md "verl on H20") would be 9-43% too slow at
//     0.35 ms and are unchanged at 0.2 ms, so they bound it and do not check it. vllm-omni#7960's
//     Qwen2.5-Omni thinker (22-23 ms eager over 28 layers, 2026) suggests more; left.
// The MoE value is checked, not fit, on verl's eager Qwen3-30B-A3B run on 128 H20 (the same section).
constexpr double kEagerHostSecondsPerDenseLayer = 0.2e-3;
constexpr double kEagerHostSecondsPerMoeLayer = 0.7e-3;
constexpr double kWeightBytes = 2.0;  // bf16 inference weights
// Pieces of the mean response over which the in-flight count and the KV held are integrated.
constexpr int kDecodeSegments = 32;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

// What the trainer pages back to one GPU for a phase and out after it. The most loaded pipeline
// stage.
// verl, when the actor offloads (verl/workers/engine/base.py BaseEngineCtx._context_switch at
// 1dda039b9): eval mode (the log-prob pass) the parameters; train mode (the update, once for all
// its mini-batches) the parameters with their gradient buffers (Megatron keeps them; FSDP frees
// its gradients) and the optimizer states, less what Megatron's CPU optimizer keeps on the host.
// NeMo RL, colocated, every step (nemo_rl/models/policy/workers/megatron_policy_worker.py and
// dtensor_policy_worker.py, the same at v0.3.1 to v0.6.0): the optimizer states leave before the
// refit (offload_before_refit) and the parameters after it (offload_after_refit); the parameters
// return for the log-prob pass (prepare_for_lp_inference), the optimizer states for training
// (prepare_for_training). Megatron's gradient buffer is freed and zeroed again, not copied
// (megatron/core/distributed/param_and_grad_buffer.py offload_to_cpu / reload_from_cpu).
struct PagedStates {
  double eval_bytes = 0;
  double train_bytes = 0;
};

PagedStates paged_states(const ModelSpec& model, const Strategy& strategy, const RlSettings& rl) {
  const Offload& offload = strategy.offload;
  const bool nemo_rl = pages_policy_around_generation(rl);
  PagedStates paged;
  if (!nemo_rl && !offload.params && !offload.optimizer) return paged;
  for (const PipelineStage stage : {PipelineStage::first, PipelineStage::last}) {
    const ModelStateBytes own = model_state_bytes(model, strategy, stage, OffloadMode::own_phase, nullptr);
    if (nemo_rl) {
      paged.eval_bytes = std::max(paged.eval_bytes, own.weights + own.lora_adapters);
      paged.train_bytes = std::max(paged.train_bytes, own.optimizer);
      continue;
    }
    const double params = offload.params ? own.weights + own.lora_adapters : 0.0;
    const double grads = offload.params && strategy.backend == Backend::megatron ? own.gradients : 0.0;
    const double optimizer = offload.optimizer ? own.optimizer : 0.0;
    paged.eval_bytes = std::max(paged.eval_bytes, params);
    paged.train_bytes = std::max(paged.train_bytes, params + grads + optimizer);
  }
  return paged;
}

// verl's reference when its weights live on the host, per step: a Megatron reference with
// ref.megatron.param_offload is loaded before its pass and offloaded after (megatron_workers.py
// compute_ref_log_prob: load_megatron_model_to_gpu / offload_megatron_model_to_cpu, into the
// pinned buffers verl keeps); an FSDP reference is wrapped in CPUOffload whatever it says
// (fsdp_workers.py _build_model_optimizer) and copies its pinned shard to the GPU for every forward
// micro-batch (FSDP unshard), dropping it after. The most loaded pipeline stage.
double verl_reference_paging_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                     const RlSettings& rl, std::int64_t log_prob_micro_batches) {
  double bytes = 0;
  for (const PipelineStage stage : {PipelineStage::first, PipelineStage::last}) {
    bytes = std::max(bytes, reference_weight_bytes(model, strategy, rl, stage));
  }
  if (strategy.backend == Backend::fsdp) {
    return host_copy_seconds(static_cast<double>(log_prob_micro_batches) * bytes, node);
  }
  return rl.ref_param_offload ? paging_seconds(bytes, node) : 0.0;
}

int log_prob_micro_batch(const Strategy& strategy, const RlSettings& rl, std::int64_t seq_len) {
  if (rl.use_dynamic_bsz && rl.log_prob_max_token_len_per_gpu > 0) {
    return static_cast<int>(std::max<std::int64_t>(1, rl.log_prob_max_token_len_per_gpu / seq_len));
  }
  return rl.log_prob_micro_batch_per_gpu > 0 ? rl.log_prob_micro_batch_per_gpu : strategy.micro_batch;
}

int update_micro_batch(const Strategy& strategy, const RlSettings& rl, std::int64_t seq_len) {
  if (rl.use_dynamic_bsz && rl.ppo_max_token_len_per_gpu > 0) {
    return static_cast<int>(std::max<std::int64_t>(1, rl.ppo_max_token_len_per_gpu / seq_len));
  }
  return rl.ppo_micro_batch_per_gpu > 0 ? rl.ppo_micro_batch_per_gpu : strategy.micro_batch;
}

/// value^n by squaring (the planner calls this for every decode segment of every rollout option).
double integer_power(double value, int n) {
  double result = 1.0;
  for (; n > 0; n >>= 1, value *= value) {
    if (n & 1) result *= value;
  }
  return result;
}

}  // namespace

double expected_max_touched_experts(int experts_per_gpu, double touched_share, int gpus) {
  if (experts_per_gpu <= 0 || touched_share <= 0) return 0.0;
  if (touched_share >= 1 || gpus <= 1) return experts_per_gpu * std::min(touched_share, 1.0);
  // E[max] = sum over x < m of P(max > x) = sum of 1 - F(x)^G, F the Binomial(m, p) CDF; once
  // G (1 - F(x)) is below 1e-12 the remaining terms add nothing visible.
  const double q = 1.0 - touched_share;
  double pmf = std::pow(q, experts_per_gpu);  // P(X = 0)
  double cdf = 0.0, expected = 0.0;
  for (int x = 0; x < experts_per_gpu; ++x) {
    cdf = std::min(1.0, cdf + pmf);
    if (gpus * (1.0 - cdf) < 1e-12) break;
    expected += 1.0 - integer_power(cdf, gpus);
    pmf *= static_cast<double>(experts_per_gpu - x) / static_cast<double>(x + 1) * touched_share / q;
  }
  return expected;
}

// Each token picks k of E experts; with uniform routing an expert is left untouched with
// probability (1 - k/E)^T for the T tokens the step routes (vLLM fused_moe reads only the experts
// that have tokens: moe_align_block_size). The routed experts are split over the replica's
// rollout_tp x rollout_dp GPUs (vLLM FusedMoEParallelConfig.make): sharded, every GPU reads its
// share of each touched expert; with expert parallelism each GPU holds whole experts, and the step
// waits for the GPU whose experts the tokens touched most.
double decode_weight_bytes(const ModelSpec& model, double routed_tokens, const RlSettings& rl) {
  const double tp = std::max(rl.rollout_tp, 1);
  const double params = static_cast<double>(model.total_params);
  // fp8 rollout: the linear layers' and experts' weights are read at a byte each.
  const double q = rollout_linear_weight_bytes(rl);
  const double kept = rollout_unquantized_params(model);
  if (!model.moe || model.moe->num_experts <= 0) return (kept * kWeightBytes + (params - kept) * q) / tp;
  const MoeSpec& moe = *model.moe;
  const double experts = static_cast<double>(moe.num_experts);
  const double expert_bytes = static_cast<double>(moe.routed_expert_params) * q;
  const double layers = static_cast<double>(moe.num_moe_layers);
  const double routed = layers * experts * static_cast<double>(moe.routed_expert_params);
  const double touched = 1.0 - std::pow(1.0 - static_cast<double>(moe.experts_per_token) / experts, routed_tokens);
  const int gpus = rollout_replica_gpus(rl);
  const double dense_bytes = (kept * kWeightBytes + (params - routed - kept) * q) / tp;
  if (rl.rollout_ep > 1 && gpus > 1) {
    const int local = static_cast<int>(std::ceil(experts / gpus));
    return dense_bytes + layers * expected_max_touched_experts(local, touched, gpus) * expert_bytes;
  }
  return dense_bytes + routed * touched * q / gpus;
}

RolloutTime rollout_time(const ModelSpec& model, const NodeGroup& node, const Strategy& actor,
                         const RlSettings& rl, std::int64_t sequences, std::int64_t kv_limited_sequences,
                         const EfficiencyConstants& constants, Trace* trace) {
  RolloutTime rollout;
  const int rollout_tp = std::max(rl.rollout_tp, 1);
  // A replica of rollout_tp x rollout_dp GPUs runs rollout_dp engine instances (vLLM data-parallel
  // attention, SGLang dp_size), each over rollout_tp GPUs with its own share of the sequences, its
  // own KV cache and scheduler; their MoE layers take the tokens of all of them.
  const int engines = std::max(rl.rollout_dp, 1);
  const int replica_gpus = rollout_replica_gpus(rl);
  const std::int64_t replicas = std::max(1, rollout_gpus(actor, rl) / replica_gpus);
  const std::int64_t per_engine = ceil_div(ceil_div(sequences, replicas), engines);
  // Expected real lengths (mean_*; 0: the maxima) set the work; the longest response sets how
  // long the last sequences of the replica keep decoding.
  const double prompt = static_cast<double>(rl.mean_prompt_len > 0 ? rl.mean_prompt_len : rl.prompt_len);
  const double longest = static_cast<double>(rl.response_len);
  const double response = rl.mean_response_len > 0 ? std::min(static_cast<double>(rl.mean_response_len), longest) : longest;
  // The engine schedules at most rollout.max_num_seqs sequences at once. Off-policy engines of
  // their own hold the prompts of up to off_policy_steps steps at once (NeMo RL
  // async_utils.py AsyncTrajectoryCollector: in-flight prompts limited to num_prompts_per_step x
  // max_trajectory_age_steps): more sequences share each step's weight reads.
  // With partial rollout the engines also hold the warm-up batches queued beside the sampled one
  // (verl trainer/ppo/v1 on_train_begin: num_warmup_batches x _add_batch_to_generate).
  const std::int64_t batches_in_flight =
      std::max<std::int64_t>(rl.rollout_gpus > 0 ? std::max(rl.off_policy_steps, 1) : 1,
                             rl.partial_rollout ? 1 + std::max(rl.warmup_batches, 0) : 1);
  const double slots =
      static_cast<double>(std::min<std::int64_t>(per_engine * batches_in_flight, std::max(rl.max_num_seqs, 1)));
  // The KV budget holds kv_limited_sequences sequences of the full prompt_len + response_len (the
  // memory model's count), but the engines allocate KV pages as tokens arrive: vLLM V1 admits a
  // request while KVCacheManager.allocate_slots finds blocks for its current tokens and preempts
  // the newest running request when a decode step finds none (vllm/v1/core/sched/scheduler.py
  // Scheduler.schedule); SGLang's PrefillAdder reserves only new_token_ratio of each request's
  // remaining tokens (srt/managers/schedule_policy.py). The rollout hands the engine the whole
  // batch at once (verl generate_sequences, NeMo RL's vLLM generate), so a replica's sequences
  // advance together: at response position r each holds prompt + r tokens, and the budget
  // carries C(r) = min(slots, budget / (prompt + r)) of them; the others wait, preempted.
  const double budget_tokens =
      kv_limited_sequences > 0
          ? static_cast<double>(std::max<std::int64_t>(kv_limited_sequences / engines, 1) * (rl.prompt_len + rl.response_len))
          : 0.0;
  const auto in_flight = [&](double position) {
    const double held = budget_tokens > 0 ? budget_tokens / (prompt + position) : slots;
    return std::max(1.0, std::min(slots, held));
  };
  const double fewest = in_flight(response);
  rollout.waves = ceil_div(per_engine, static_cast<std::int64_t>(fewest));
  rollout.concurrent_sequences = static_cast<std::int64_t>(fewest) * engines;

  const GpuSpec& gpu = node.gpu;
  const double peak = compute_peak_flops(gpu, Dtype::bf16);
  const double hbm = gpu.memory_bandwidth_Bps * constants.decode_hbm_efficiency;
  const double kv_hbm = gpu.memory_bandwidth_Bps * constants.decode_kv_efficiency;
  const double h = static_cast<double>(model.hidden_size);
  const LinkPath tp_link = group_link(node, {rollout_tp, 1}, constants.nvlink_efficiency, constants.nic_efficiency);
  const LinkPath replica_link = group_link(node, {replica_gpus, 1}, constants.nvlink_efficiency, constants.nic_efficiency);

  // Prefill: every prompt token once through the model, compute-bound (Pope et al. 2022,
  // "Efficiently Scaling Transformer Inference" §2: prefill is FLOP-bound, decode memory-bound).
  // Chunked prefill: a step schedules at most max_num_batched_tokens tokens (vLLM v1
  // core/sched/scheduler.py Scheduler.schedule token_budget; SGLang chunked_prefill_size).
  const double prompt_tokens = static_cast<double>(per_engine) * prompt;
  const double chunk = std::min(prompt * in_flight(0.0),
                                static_cast<double>(std::max<std::int64_t>(rl.max_num_batched_tokens, 1)));
  const ForwardFlops prefill_flops = forward_flops_per_token(model, static_cast<std::int64_t>(prompt));
  const double prefill_eff =
      gemm_efficiency(node, Dtype::bf16,
                      dense_gemm_shape(prefill_flops, h, static_cast<double>(model.num_layers), chunk, rollout_tp), constants);
  // fp8 rollout on a GPU with fp8 tensor cores: the quantized layers' GEMMs run in fp8 (vLLM
  // Fp8LinearMethod, dynamic per-token activation scales; on GPUs without them it dequantizes the
  // weights into 16-bit GEMMs, vLLM's Marlin fp8 path), at the fp8 GEMMs' share of the training
  // model (constants.fp8_relative_efficiency); attention scores and the LM head stay 16-bit.
  const bool fp8_gemms = rl.rollout_fp8 && gpu.peak_flops(Dtype::fp8) > 0;
  const double quantized_flops = fp8_gemms ? prefill_flops.attention_projections + prefill_flops.mlp : 0.0;
  const double fp8_rate = fp8_gemms ? gpu.peak_flops(Dtype::fp8) * prefill_eff * constants.fp8_relative_efficiency : 1.0;
  rollout.prefill_s = ((prefill_flops.total() - quantized_flops) / (peak * prefill_eff) + quantized_flops / fp8_rate) *
                      prompt_tokens / rollout_tp;

  // Decode: each step reads this shard's weights (of the routed experts, those its tokens
  // select) and the KV cache of every sequence in flight at its current context.
  const double layers = static_cast<double>(model.num_layers);
  const double moe_layers = model.moe ? static_cast<double>(model.moe->num_moe_layers) : 0.0;
  // Token mixers, dense MLPs and MoEs: 2 per layer, 1 in single-sublayer layers (Nemotron-H).
  const double sublayers = static_cast<double>(model.num_sublayers());
  // The host's launches of one eager decode step (kEagerHostSeconds*, per transformer layer).
  const double eager_host_s =
      rl.enforce_eager ? model.sublayer_share() * (kEagerHostSecondsPerDenseLayer * (layers - moe_layers) +
                                                   kEagerHostSecondsPerMoeLayer * moe_layers)
                       : 0.0;
  // The weights a step reads depend on its in-flight count only, which is the same for most
  // segments (the planner costs every rollout option this way): the last count's bytes are kept.
  double last_in_flight = -1, last_weights = 0;
  const auto decode_step = [&](double c, double at_context, double& weights_read, double& kv_read) {
    const auto context_tokens = static_cast<std::int64_t>(at_context);
    if (c != last_in_flight) {
      last_in_flight = c;
      last_weights = decode_weight_bytes(model, c * engines, rl);
    }
    weights_read = last_weights;
    kv_read = c * kv_cache_shape(model, int(kWeightBytes), rollout_tp).bytes_per_sequence(context_tokens);
    // The weight stream and the paged attention's KV reads, each at its own achieved rate.
    const double memory_s = weights_read / hbm + kv_read / kv_hbm;
    // A decode step's few rows: its time is its weight stream (memory_s) unless the rows are many;
    // their GEMMs at the large-GEMM fraction, the training curve not carried to a handful of rows.
    const double decode_eff = gemm_peak_fraction(node, Dtype::bf16, constants);
    const double compute_s =
        forward_flops_per_token(model, context_tokens).total() * c / rollout_tp / (peak * decode_eff);
    // A TP all-reduce of the in-flight tokens' hidden states per sublayer per step (vLLM
    // RowParallelLinear after attention and after the MLP or MoE), each by the engine's path.
    // With several engines a MoE layer instead gathers the hidden states of all of them and
    // reduce-scatters its output (vLLM FusedMoE with dp_size > 1: the all2all manager's dispatch
    // and combine, allgather-reducescatter by default) over the replica's GPUs.
    const double all_reduce_s = engine_all_reduce(c * h * 2.0, rollout_tp, node, tp_link).seconds;
    const double moe_exchange_s = ring_all_gather_seconds(c * engines * h * 2.0, replica_gpus, replica_link) +
                                  ring_reduce_scatter_seconds(c * engines * h * 2.0, replica_gpus, replica_link);
    const double tp_s = engines > 1 ? (sublayers - moe_layers) * all_reduce_s + moe_layers * moe_exchange_s
                                    : sublayers * all_reduce_s;
    // A transformer layer never runs faster than its kernel chain (constants.decode_layer_seconds).
    const double floor_s = sublayers / 2.0 * constants.decode_layer_seconds;
    const double gpu_step_s = std::max(std::max({memory_s, compute_s, floor_s}) + tp_s, eager_host_s);
    // The engine's host work per step (constants.engine_step_seconds): vLLM's EngineCore without
    // async scheduling runs it between model steps (v1/engine/core.py EngineCore.step: schedule,
    // execute_model, update_from_output); SGLang's overlap scheduler prepares the next batch while
    // the GPU runs this one (srt/managers/scheduler.py event_loop_overlap), and so does vLLM's
    // async scheduling (RlSettings::vllm_async_scheduling), and TensorRT-LLM's PyExecutor with its
    // overlap scheduler, on by default (disable_overlap_scheduler=False): only the longer counts.
    const bool overlapped = rl.engine != RolloutEngine::vllm || rl.vllm_async_scheduling;
    return overlapped ? std::max(gpu_step_s, constants.engine_step_seconds) : gpu_step_s + constants.engine_step_seconds;
  };
  // Continuous batching over the mean response: each position r of the replica's N sequences
  // takes N / C(r) steps of C(r) sequences (midpoint rule over kDecodeSegments pieces; exact while
  // nothing is preempted, as the KV read grows linearly with r).
  const double n = static_cast<double>(per_engine);
  double steps = 0, weights_read = 0, kv_read = 0, tail_weights = 0, tail_kv = 0;
  rollout.decode_s = 0;
  for (int i = 0; i < kDecodeSegments; ++i) {
    const double position = response * (i + 0.5) / kDecodeSegments;
    const double c = in_flight(position);
    const double segment_steps = response / kDecodeSegments * n / c;
    steps += segment_steps;
    rollout.decode_s += segment_steps * decode_step(c, prompt + position, weights_read, kv_read);
  }
  const double step_s = steps > 0 ? rollout.decode_s / steps : 0.0;
  // The longest responses run on almost alone: one sequence per step for (longest - mean) steps.
  // Partial rollout aborts them once the batch's samples are ready and resumes them in the next
  // step (verl trainer/ppo/v1 on_sample_end: abort_replicas; FullyAsyncLLMServerClient retries the
  // unfinished trajectory), so no step waits for them: their tokens are in the mean's work. What
  // it costs instead: the aborted responses (the engine's in-flight ones) prefill their prompt and
  // the tokens they had, half the mean response on average, again after the weight update
  // (docs/advance/v1_async_trainer.md "Partial Rollout": the KV cache is reconstructed).
  const double tail_step_s = decode_step(1.0, prompt + (response + longest) / 2.0, tail_weights, tail_kv);
  if (rl.partial_rollout) {
    const double resumed_tokens = fewest * (prompt + response / 2.0);
    rollout.resume_prefill_s = forward_flops_per_token(model, static_cast<std::int64_t>(prompt + response / 2.0)).total() *
                               resumed_tokens / rollout_tp / (peak * prefill_eff);
    rollout.prefill_s += rollout.resume_prefill_s;
  } else {
    rollout.tail_s = (longest - response) * tail_step_s;
  }
  rollout.decode_s += rollout.tail_s;

  // Weight sync (verl sharding manager / checkpoint engine, NeMo RL refit): each GPU receives its
  // rollout shard of the weights, gathered from the training layout across the actor's
  // model-parallel group. The link bounds the shard's arrival; the update code moves every full
  // tensor of the model once (gathered over the training layout, then loaded), at the framework's
  // measured rate (weight_sync_rates.hpp).
  const double shard_bytes = rollout_weight_bytes(model, rl);
  const double model_bytes = static_cast<double>(model.total_params) * kWeightBytes;
  const bool standalone = rl.rollout_gpus > 0;
  // A trainer and a rollout pool that share one NVLink domain (verl's one-step-off examples: 2 + 6
  // GPUs of one node, two Ray resource pools; trays of one GB200 NVL72 rack) broadcast over NVLink;
  // pools on nodes of their own, over the NICs. `node` holds the trainer's GPUs only: the domain is
  // the GPU type's (the catalog's gpus_per_node) when the trainer fits in one node.
  const bool one_node = standalone && node.nodes == 1 &&
                        actor.world_size() + rl.rollout_gpus <= std::max(node.gpus_per_node, node.gpu.gpus_per_node);
  const LinkPath sync_link = one_node     ? intra_node_link(node, constants.nvlink_efficiency)
                             : standalone ? inter_node_link(node, constants.nic_efficiency)
                                          : group_link(node, {actor.tp * actor.pp, 1}, constants.nvlink_efficiency,
                                                       constants.nic_efficiency);
  const bool verl_broadcast = rl.standalone_weight_sync == StandaloneWeightSync::verl_checkpoint_engine;
  const double colocated_sync_Bps =
      rl.framework == RlFramework::nemo_rl ? kNemoRlColocatedRefitBps : kVerlColocatedSyncBps;
  const double verl_broadcast_Bps = model.moe ? kVerlBroadcastMoeBps : kVerlBroadcastDenseBps;
  if (standalone) {
    // Engines on GPUs of their own: every full tensor is broadcast from the actor's first rank to
    // all engine ranks over the network, and each engine loads its shard of it. NeMo RL
    // (broadcast_weights_for_collective / packed_broadcast_producer) streams it at the link's
    // rate; verl's checkpoint engine reaches the measured rate above at most.
    rollout.weight_sync_s = p2p_seconds(model_bytes, sync_link);
    if (verl_broadcast) rollout.weight_sync_s = std::max(rollout.weight_sync_s, model_bytes / verl_broadcast_Bps);
  } else {
    rollout.weight_sync_s = std::max(p2p_seconds(shard_bytes, sync_link), model_bytes / colocated_sync_Bps);
  }
  // Sleep mode (rollout.free_cache_engine): vLLM sleep(level=1) copies the weights to pinned host
  // memory and wake_up copies them back (vllm/device_allocator/cumem.py CuMemAllocator).
  // Standalone engines never sleep: no GPU memory is handed back to a trainer. TensorRT-LLM's
  // sleep discards the weights (verl trtllm_async_server.py: SleepConfig restore mode NONE) and
  // the weight update refills them: no copy either way.
  if (!standalone && rl.free_cache_engine && rl.engine != RolloutEngine::trtllm && gpu.host_to_device_Bps > 0) {
    rollout.wake_sleep_s = 2.0 * shard_bytes / gpu.host_to_device_Bps;
  }

  if (trace) {
    trace->push_back({"time/gen/prefill", rollout.prefill_s, "seconds",
                      "fwd_flops(prompt) * sequences_per_engine * prompt_len / rollout_tp / (peak * eff)",
                      fmt::format("replicas={}, engines/replica={}, sequences/engine={}, prompt_len={}, resumed "
                                  "(partial rollout)={:.4g} s",
                                  replicas, engines, per_engine, rl.prompt_len, rollout.resume_prefill_s),
                      "Pope et al. 2022 §2 (prefill is compute-bound)"});
    trace->push_back({"time/gen/decode", rollout.decode_s, "seconds",
                      "sum over r < mean of N/C(r) * step(C(r), prompt+r) + (longest-mean) * step(1) [none with partial rollout]; C(r) = min(slots, KV budget/(prompt+r)); step(c, ctx) = max(max(weights/tp / HBM_w + c*ctx*kv / HBM_kv, flops/peak, L*layer_s) + TP AR, eager host launches) + engine",
                      fmt::format("N={}, C(0)={:.0f}, C(mean)={:.0f}, steps={:.0f}, weights={:.4g} B, kv at mean={:.4g} B, HBM_w={:.4g} B/s, HBM_kv={:.4g} B/s, mean step={:.4g} s, tail step={:.4g} s, tail={:.4g} s, eager host launches={:.4g} s, TP all-reduce={} ({} GPUs per host), engine host work={}",
                                  per_engine, in_flight(0.0), fewest, steps, weights_read, kv_read, hbm, kv_hbm, step_s, tail_step_s,
                                  rollout.tail_s, eager_host_s,
                                  engine_all_reduce_path_name(engine_all_reduce(h * 2.0, rollout_tp, node, tp_link).path),
                                  node.gpus_per_host(),
                                  rl.engine == RolloutEngine::sglang   ? "overlapped (SGLang)"
                                  : rl.engine == RolloutEngine::trtllm ? "overlapped (TensorRT-LLM overlap scheduler)"
                                  : rl.vllm_async_scheduling           ? "overlapped (vLLM async scheduling)"
                                                                       : "between steps (vLLM)"),
                      "Pope et al. 2022 §2; vLLM KV accounting (formulas.md)"});
    const char* formula = !standalone ? "max(rollout shard bytes / link_Bps, model bytes / sync rate)"
                          : verl_broadcast
                              ? "max(model bytes / link_Bps, model bytes / verl_broadcast_Bps) (verl checkpoint engine, "
                                "nccl: one sender; NVLink within one node, else the network)"
                              : "model bytes / link_Bps (a pipelined broadcast to engines of their own: NVLink within "
                                "one node, else the network)";
    trace->push_back({"time/gen/weight_sync", rollout.weight_sync_s, "seconds", formula,
                      fmt::format("model={:.4g} B, shard={:.4g} B, link={:.4g} B/s, sync rate={:.4g} B/s, "
                                  "verl_broadcast_Bps={:.4g} ({})",
                                  model_bytes, shard_bytes, sync_link.bandwidth_Bps, colocated_sync_Bps,
                                  verl_broadcast_Bps, model.moe ? "MoE" : "dense"),
                      standalone && verl_broadcast
                          ? "verl checkpoint_engine/nccl_checkpoint_engine.py; verl docs/advance/delta_weight_sync.md "
                            "measured full broadcasts"
                          : rl.framework == RlFramework::nemo_rl
                              ? "NeMo RL refit_policy_generation, measured refits (weight_sync_rates.hpp)"
                              : "verl sharding manager / checkpoint engine (naive), measured updates "
                                "(weight_sync_rates.hpp)"});
    trace->push_back({"time/gen/wake_sleep", rollout.wake_sleep_s, "seconds", "2 * shard bytes / host_to_device_Bps",
                      "", "vLLM sleep mode level 1 (weights to pinned host memory and back)"});
  }
  return rollout;
}

RolloutTime rl_step_rollout(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                            const Workload& workload, const TimeOptions& options, Trace* trace) {
  const std::int64_t sequences = workload.global_batch * std::max(workload.rl.n, 1);
  return rollout_time(model, node, strategy, workload.rl, sequences, options.rollout_concurrent_sequences,
                      options.constants, trace);
}

double off_policy_generation_seconds(const RolloutTime& rollout, const RlSettings& rl) {
  const double drained_tail = rl.in_flight_weight_updates && rl.off_policy_steps > 1 ? rollout.tail_s : 0.0;
  return rollout.total() - rollout.weight_sync_s - drained_tail;
}

TimeBreakdown rl_step_critical_path(const RolloutTime& rollout, const TimeBreakdown& trainer, const RlSettings& rl,
                                    Trace* trace) {
  TimeBreakdown step = trainer;
  // Colocated, or engines of their own the trainer waits for: one phase after the other.
  if (rl.rollout_gpus <= 0 || rl.off_policy_steps <= 0) {
    step.rollout = rollout.total();
    return step;
  }
  // Off-policy on GPUs of their own (verl one_step_off_policy, NeMo RL async GRPO with
  // max_trajectory_age_steps >= 1): the engines generate the next step's batch while the trainer
  // trains on this one, and both take part in the weight update between steps (verl
  // sync_rollout_weights: an NCCL broadcast the engines receive; NeMo RL refit). In steady state
  // a step takes the slower of the two, plus the update. With in-flight weight updates and
  // several batches in flight the engines never drain (NeMo RL AsyncTrajectoryCollector keeps
  // them fed), so a batch's tail of long responses overlaps the next batches' generation.
  // With one batch in flight (max_trajectory_age_steps 1) a prompt's group frees its slots only
  // when its longest response ends, so the tail is not overlapped.
  const double generation = off_policy_generation_seconds(rollout, rl);
  const double drained_tail = rollout.total() - rollout.weight_sync_s - generation;
  const double training = trainer.total();
  if (generation > training) step = TimeBreakdown{};
  step.rollout = (generation > training ? generation : 0.0) + rollout.weight_sync_s;
  if (trace) {
    trace->push_back({"time/rl_step", step.total(), "seconds",
                      "max(generation on the rollout GPUs [- its tail with in-flight updates], log-prob + update on "
                      "the trainer's) + weight sync",
                      fmt::format("generation={:.4g} s, tail overlapped={:.4g} s, trainer={:.4g} s, weight sync={:.4g} s, "
                                  "off-policy steps={}",
                                  generation, drained_tail, training, rollout.weight_sync_s, rl.off_policy_steps),
                      "verl recipe/one_step_off_policy; NeMo RL async GRPO (grpo.async_grpo)"});
  }
  return step;
}

TimeEstimate estimate_rl_step_time(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                   const Workload& workload, const TimeOptions& options, Trace* trace) {
  const RlSettings& rl = workload.rl;
  // Trained and scored tokens per sequence: the expected real lengths when given (verl removes
  // padding), else the maxima.
  const std::int64_t prompt_len = rl.mean_prompt_len > 0 ? rl.mean_prompt_len : rl.prompt_len;
  const std::int64_t response_len = rl.mean_response_len > 0 ? std::min(rl.mean_response_len, rl.response_len)
                                                             : rl.response_len;
  const std::int64_t seq_len = prompt_len + response_len;
  const std::int64_t sequences = workload.global_batch * std::max(rl.n, 1);
  TimeEstimate estimate;

  const RolloutTime rollout = rl_step_rollout(model, node, strategy, workload, options, trace);
  estimate.add_phase("timing_s/gen", rollout.total());
  TimeBreakdown trainer;  // the log-prob passes and the updates, on the trainer's GPUs

  const PagedStates paged = paged_states(model, strategy, rl);
  const int log_prob_mb = log_prob_micro_batch(strategy, rl, seq_len);
  const TimeBreakdown log_prob =
      forward_pass_breakdown(model, node, strategy, seq_len, sequences, log_prob_mb, options, trace);
  TimeBreakdown actor_log_prob = log_prob;
  // NeMo RL pages with blocking copies into new host tensors (pageable_paging_seconds): the
  // optimizer states on either backend (megatron_policy_worker.py move_optimizer, dtensor_policy_worker.py
  // move_optimizer_to_device: `v.to("cpu")`) and DTensor's parameters (move_to_cpu: `model.to("cpu")`);
  // Megatron's parameters go to pinned buffers it keeps (param_and_grad_buffer.py offload_to_cpu);
  // verl's `.to("cpu", non_blocking=True)` gets a pinned destination from PyTorch (ATen
  // TensorConversions.cpp _to_copy: pin_out when non_blocking from CUDA to CPU).
  const bool nemo_rl = rl.framework == RlFramework::nemo_rl;
  const double eval_paging = nemo_rl && strategy.backend == Backend::fsdp ? pageable_paging_seconds(paged.eval_bytes, node)
                                                                         : paging_seconds(paged.eval_bytes, node);
  actor_log_prob.offload += eval_paging;
  trainer.add(actor_log_prob);
  estimate.add_phase("timing_s/old_log_prob", actor_log_prob.total());
  int forward_passes = 1;
  if (rl.use_reference) {
    // NeMo RL keeps the reference's weights on the host and swaps them into the policy's model for
    // the pass: the policy's weights out, the reference's in, the policy's back, three copies into
    // and out of pinned memory (megatron_policy_worker.py use_reference_model: `.to("cpu",
    // non_blocking=True)`, _apply_state_dict_to_model; v0.6.0). verl runs a reference model of its own.
    TimeBreakdown reference = log_prob;
    if (nemo_rl) {
      reference.offload += paging_seconds(1.5 * paged.eval_bytes, node);
    } else {
      const double paging_s =
          verl_reference_paging_seconds(model, node, strategy, rl, micro_batches_for(sequences, strategy, log_prob_mb));
      // An FSDP reference's copies run ahead of its forward (FSDP prefetches the next unit): the
      // pass takes the longer of the two; a Megatron reference is loaded before its pass.
      reference.offload += strategy.backend == Backend::fsdp ? std::max(0.0, paging_s - log_prob.total()) : paging_s;
    }
    trainer.add(reference);
    estimate.add_phase("timing_s/ref", reference.total());
    ++forward_passes;
  }
  // ppo_epochs × (train_batch / ppo_mini_batch) optimizer steps (verl dp_actor.update_policy).
  const std::int64_t mini_prompts = rl.ppo_mini_batch > 0 ? rl.ppo_mini_batch : workload.global_batch;
  const std::int64_t mini_batches = std::max<std::int64_t>(1, workload.global_batch / std::max<std::int64_t>(mini_prompts, 1));
  const int update_mb = update_micro_batch(strategy, rl, seq_len);
  // The update runs on the states verl paged back for it (once for all its mini-batches).
  const TimeBreakdown update_step = training_step_breakdown(model, node, strategy, seq_len, mini_prompts * std::max(rl.n, 1),
                                                            update_mb, StepOffload::paged, options, trace);
  const double updates = static_cast<double>(rl.ppo_epochs) * static_cast<double>(mini_batches);
  TimeBreakdown update_paging;
  update_paging.offload =
      nemo_rl ? pageable_paging_seconds(paged.train_bytes, node) : paging_seconds(paged.train_bytes, node);
  if (rl.use_critic) {  // critic of the actor's shape: a values pass and its own update
    trainer.add(log_prob);
    estimate.add_phase("timing_s/values", log_prob.total());
    ++forward_passes;
    trainer.add(update_step, updates);
    estimate.add_phase("timing_s/update_critic", updates * update_step.total());
  }
  trainer.add(update_step, updates);
  trainer.add(update_paging);
  const double update_seconds = updates * update_step.total() + update_paging.offload;
  estimate.add_phase("timing_s/update_actor", update_seconds);
  if (trace && (paged.eval_bytes > 0 || paged.train_bytes > 0)) {
    trace->push_back({"time/rl/offload_paging", eval_paging + update_paging.offload, "seconds",
                      nemo_rl
                          ? "paged bytes / min(host link, host DRAM / GPUs per host) each way, the copies into new "
                            "pageable host tensors at most 1.61 GB/s: the policy's parameters back for the log-prob "
                            "pass (DTensor's pageable, Megatron's pinned), its optimizer states (pageable) for training"
                          : "2 * paged bytes / min(host link, host DRAM / GPUs per host): the actor's parameters for "
                            "the log-prob pass; parameters, gradients and optimizer states for the update",
                      fmt::format("eval={:.4g} B, train={:.4g} B", paged.eval_bytes, paged.train_bytes),
                      nemo_rl ? "NeMo RL megatron_policy_worker.py offload_before_refit / offload_after_refit (v0.6.0); "
                                "pytorch/pytorch#120378 (pageable copy rate)"
                          : "verl/workers/engine/base.py BaseEngineCtx._context_switch (1dda039b9)"});
  }
  estimate.breakdown = rl_step_critical_path(rollout, trainer, rl, trace);
  if (rl.rollout_gpus > 0 && rl.off_policy_steps > 0) {
    // One step off, verl's trainer logs as timing_s/gen only its wait for the next batch (the
    // rest of the generation overlaps its own work), and the weight sync apart: timing_s/
    // sync_rollout_weights (one_step_off_policy/ray_trainer.py _fit_generate), or
    // timing_s/update_weights (the V1 separate-async trainer, which is the one with partial
    // rollout). The phases then add up to the step.
    estimate.phases[0].seconds = std::max(0.0, off_policy_generation_seconds(rollout, rl) - trainer.total());
    estimate.insert_phase(1, rl.partial_rollout ? "timing_s/update_weights" : "timing_s/sync_rollout_weights",
                          rollout.weight_sync_s);
  }
  estimate.step_seconds = estimate.breakdown.total();
  // Expert matrices of a few MB (Qwen3-30B-A3B 3.1 MB, Moonlight-16B-A3B 5.8 MB; DeepSeek-V3's 29 MB
  // were measured within the rate): NeMo RL PR #449, verl PR #2418, slime #132.
  constexpr double kSmallExpertMatrixBytes = 10e6;
  estimate.weight_sync_per_tensor_bound =
      rl.rollout_gpus == 0 && rollout.weight_sync_s > 0 && model.moe.has_value() &&
      static_cast<double>(model.expert_hidden_size()) * static_cast<double>(model.moe->expert_intermediate_size) * 2.0 <
          kSmallExpertMatrixBytes;

  // Throughput and MFU over every GPU of the job (the rollout's own included); the update's MFU
  // over the trainer's.
  const double gpus = std::max(job_gpus(strategy, workload), 1);
  const double trainer_gpus = std::max(strategy.world_size(), 1);
  const double tokens = static_cast<double>(sequences) * static_cast<double>(seq_len);
  const double forward = forward_flops_per_token(model, seq_len).total() * tokens;
  const double train = trained_flops_per_token(model, strategy, seq_len) * tokens * updates / static_cast<double>(mini_batches);
  const double generated = forward_flops_per_token(model, prompt_len + response_len / 2).total() *
                               static_cast<double>(sequences) * static_cast<double>(response_len) +
                           forward_flops_per_token(model, prompt_len).total() * static_cast<double>(sequences) *
                               static_cast<double>(prompt_len);
  const double critic = rl.use_critic ? train : 0.0;
  const double model_flops = generated + forward_passes * forward + train + critic;
  const double recomputed = (hardware_flops_per_token(model, strategy, seq_len) - trained_flops_per_token(model, strategy, seq_len)) *
                            tokens * updates / static_cast<double>(mini_batches) * (rl.use_critic ? 2.0 : 1.0);
  const double peak = compute_peak_flops(node.gpu, strategy.compute_dtype);
  if (estimate.step_seconds > 0) {
    estimate.tokens_per_second_per_gpu = tokens / estimate.step_seconds / gpus;
    estimate.model_tflops_per_gpu = model_flops / estimate.step_seconds / gpus / 1e12;
    estimate.hardware_tflops_per_gpu = (model_flops + recomputed) / estimate.step_seconds / gpus / 1e12;
  }
  if (update_seconds > 0 && peak > 0) estimate.actor_update_mfu = train / update_seconds / trainer_gpus / peak;
  return estimate;
}

}  // namespace meshplan
