#include "cost/memory/rl_phases.hpp"

#include <algorithm>
#include <cmath>

#include "cost/memory/phase_builder.hpp"
#include "cost/memory/rollout_memory.hpp"
#include "cost/time/runtime_overhead.hpp"

namespace meshplan {
namespace {

using C = MemoryComponent;

constexpr int kRlProcesses = 2;  // the trainer worker and the rollout server share each GPU (verl async mode)

/// Engines on GPUs of their own (RlSettings::rollout_gpus): nothing of the trainer beside them.
bool standalone(const RlSettings& rl) { return rl.rollout_gpus > 0; }

struct Rl {
  const ModelSpec& model;
  const Strategy& s;
  const Workload& w;
  const RlSettings& rl;
  const MemoryOptions& options;
  double seq_tokens = 0;        ///< trainer tokens per sequence (before CP / Ulysses)
  double split = 1;             ///< CP (Megatron) or Ulysses (FSDP)
  std::int64_t local_mini = 1;  ///< sequences per GPU per mini-batch (verl-rules.md §0)
  int communicators = 0;
  RolloutMemory engine;
};

// Micro-batch of the actor/critic update or of a log-prob pass: a fixed number of sequences,
// or (use_dynamic_bsz) a token budget per GPU (verl: max_token_len x sp/CP over the group).
MicroBatchShape micro_batch(const Rl& r, int micro, std::int64_t max_tokens) {
  MicroBatchShape mb;
  mb.kv_tokens = r.seq_tokens;
  const double rank_tokens_per_seq = r.seq_tokens / r.split;
  if (r.rl.use_dynamic_bsz && max_tokens > 0) {
    const double mini_tokens = double(r.local_mini) * rank_tokens_per_seq;
    mb.seq_tokens = std::min(double(max_tokens), mini_tokens);
    mb.sequences = 1;
    mb.microbatches = std::int64_t(std::ceil(mini_tokens / std::max(mb.seq_tokens, 1.0)));
    return mb;
  }
  const int b = micro > 0 ? micro : std::max(r.s.micro_batch, 1);
  mb.seq_tokens = rank_tokens_per_seq;
  mb.sequences = b;
  mb.microbatches = std::max<std::int64_t>(1, r.local_mini / b);
  return mb;
}

// What of a model (actor or critic) stays on the GPU outside the phases that use it: verl
// offloads params / grads / optimizer between phases when asked; FSDP frees gradients after the
// step, Megatron keeps its grad buffer unless grad_offload. NeMo RL, colocated, moves the
// parameters and optimizer states to the host around every generation and frees Megatron's
// gradient buffer without a copy (pages_policy_around_generation).
ModelStateBytes resident(const Rl& r, const ModelStateBytes& own) {
  const bool nemo_rl = pages_policy_around_generation(r.rl);
  const bool params_off = r.s.offload.params || nemo_rl;
  const bool grads_copied = r.s.backend == Backend::megatron && !nemo_rl;
  ModelStateBytes b;
  b.weights = params_off ? 0 : own.weights;
  b.lora_adapters = params_off ? 0 : own.lora_adapters;
  b.optimizer = r.s.offload.optimizer || nemo_rl ? 0 : own.optimizer;
  b.gradients = grads_copied && !r.s.offload.grads ? own.gradients : 0;
  b.host_offloaded = (own.weights - b.weights) + (own.lora_adapters - b.lora_adapters) +
                     (own.optimizer - b.optimizer) + (grads_copied ? own.gradients - b.gradients : 0);
  return b;
}

void add_states(PhaseMemory& phase, const ModelStateBytes& b) {
  phase[C::weights] += b.weights;
  phase[C::gradients] += b.gradients;
  phase[C::optimizer_states] += b.optimizer;
  phase[C::lora_adapters] += b.lora_adapters;
  phase[C::gathered_params] += b.gathered;
}

// Reference policy weights (model_states.hpp reference_weight_bytes).
double reference_bytes(const Rl& r, PipelineStage stage) { return reference_weight_bytes(r.model, r.s, r.rl, stage); }

double critic_resident_bytes(const Rl& r, PipelineStage stage) {
  if (!r.rl.use_critic) return 0;
  const ModelStateBytes b =
      resident(r, model_state_bytes(r.model, r.s, stage, OffloadMode::own_phase, nullptr));
  return b.on_gpu();
}

// The engine between rollouts: sleeping (free_cache_engine) it keeps only its CUDA graphs; on
// GPUs of its own it is not on the trainer's GPUs at all.
void add_sleeping_engine(const Rl& r, PhaseMemory& phase) {
  if (standalone(r.rl)) return;
  phase[C::cuda_graphs] = r.engine.cuda_graphs;
  if (r.rl.free_cache_engine) return;
  phase[C::rollout_weights] = r.engine.weights;
  phase[C::kv_cache] = r.engine.kv_cache;
  phase[C::engine_workspace] = r.engine.workspace;
}

// verl wraps an FSDP reference in CPUOffload(offload_params=True) (FSDP2: CPUOffloadPolicy) whatever
// ref.fsdp_config.param_offload says: fsdp_workers.py _build_model_optimizer (v0.6.1:492, role !=
// "actor"), and the engine workers' FSDP engine for a forward_only engine, which the reference is
// (engine/fsdp/transformer_impl.py at 1dda039b9, trainer/config/ref/dp_ref.yaml). Its parameters
// live on the host and stream to the GPU one unit at a time while it runs.
bool reference_on_host(const Rl& r) { return r.rl.ref_param_offload || r.s.backend == Backend::fsdp; }

// Ref and critic when another phase runs.
void add_neighbours(const Rl& r, PhaseMemory& phase, PipelineStage stage, bool with_ref, bool with_critic) {
  if (with_ref && !reference_on_host(r)) phase[C::reference_model] += reference_bytes(r, stage);
  if (with_critic) phase[C::critic_model] += critic_resident_bytes(r, stage);
}

PhaseMemory rollout_phase(const Rl& r, PipelineStage stage) {
  PhaseMemory phase;
  phase.kind = MemoryPhaseKind::rollout;
  phase.stage = pipeline_stage_index(r.s, stage);
  if (!standalone(r.rl)) {
    add_states(phase, resident(r, model_state_bytes(r.model, r.s, stage, OffloadMode::own_phase, nullptr)));
    add_neighbours(r, phase, stage, true, true);
  }
  phase[C::rollout_weights] = r.engine.weights;
  phase[C::kv_cache] = r.engine.kv_cache;
  phase[C::engine_workspace] = r.engine.workspace;
  phase[C::cuda_graphs] = r.engine.cuda_graphs;
  return phase;
}

PhaseMemory log_prob_phase(const Rl& r, PipelineStage stage, MemoryPhaseKind kind, Trace* trace) {
  PhaseMemory phase;
  phase.kind = kind;
  const ModelStateBytes own = model_state_bytes(r.model, r.s, stage, OffloadMode::own_phase,
                                                kind == MemoryPhaseKind::old_log_prob ? trace : nullptr);
  ModelStateBytes actor = resident(r, own);
  const bool actor_runs = kind == MemoryPhaseKind::old_log_prob || r.s.lora.rank > 0;
  if (actor_runs) {  // the actor (adapters disabled for the LoRA reference) is loaded to run
    actor.weights = own.weights;
    actor.lora_adapters = own.lora_adapters;
    actor.gathered = own.gathered;
  }
  add_states(phase, actor);
  add_neighbours(r, phase, stage, kind == MemoryPhaseKind::old_log_prob, true);
  if (kind == MemoryPhaseKind::ref_log_prob && r.s.lora.rank == 0) {
    // An FSDP reference (CPUOffload) streams one unit at a time; otherwise it is loaded.
    const bool streamed = r.s.backend == Backend::fsdp;
    phase[C::reference_model] += streamed ? own.gathered : reference_bytes(r, stage);
  }
  add_sleeping_engine(r, phase);
  StepInputs in;
  in.mb = micro_batch(r, r.rl.log_prob_micro_batch_per_gpu,
                      r.rl.log_prob_max_token_len_per_gpu > 0 ? r.rl.log_prob_max_token_len_per_gpu
                                                              : r.rl.ppo_max_token_len_per_gpu);
  // The old log-prob pass also computes the entropy (a metric) except under LoRA
  // (fsdp_workers.py / megatron_workers.py compute_log_prob: calculate_entropy = not is_lora);
  // the reference only log-probs.
  const bool entropy = kind == MemoryPhaseKind::old_log_prob && r.s.lora.rank == 0;
  in.loss = entropy ? LossKind::verl_log_prob_entropy : LossKind::verl_log_prob;
  in.forward_only = true;
  in.images = double(r.w.images_per_sample) * in.mb.sequences;
  in.image_pixels = double(r.w.image_pixels);
  add_step_activations(phase, r.model, r.s, stage, in, r.rl, r.options, trace);
  return phase;
}

PhaseMemory update_phase(const Rl& r, PipelineStage stage, bool critic, Trace* trace) {
  PhaseMemory phase;
  phase.kind = critic ? MemoryPhaseKind::update_critic : MemoryPhaseKind::update_actor;
  const ModelStateBytes own = model_state_bytes(r.model, r.s, stage, OffloadMode::own_phase, trace);
  if (critic) {
    phase[C::critic_model] += own.on_gpu();
    add_states(phase, resident(r, own));  // the actor, resting
  } else {
    add_states(phase, own);
    add_neighbours(r, phase, stage, false, true);
  }
  add_neighbours(r, phase, stage, true, false);
  add_sleeping_engine(r, phase);
  StepInputs in;
  in.mb = micro_batch(r, r.rl.ppo_micro_batch_per_gpu, r.rl.ppo_max_token_len_per_gpu);
  in.loss = critic ? LossKind::value_head
                   : (r.rl.entropy_in_update ? LossKind::verl_log_prob_entropy : LossKind::verl_log_prob);
  in.images = double(r.w.images_per_sample) * in.mb.sequences;
  in.image_pixels = double(r.w.image_pixels);
  add_step_activations(phase, r.model, r.s, stage, in, r.rl, r.options, trace);
  return phase;
}

// The largest single tensor the weight sync materialises at full size: the (padded) vocabulary
// matrix, the fused QKV, the MLP's fc1, or one routed expert's fc1 gathered over EP (Megatron
// per_tensor_generator all-gathers one local expert's weight across the EP group).
double largest_synced_tensor_params(const ModelSpec& model, const Strategy& s) {
  const double h = double(model.hidden_size);
  const AttentionSpec& a = model.attention;
  const double vocab = double(s.backend == Backend::megatron ? megatron_padded_vocab(model.vocab_size, s.tp)
                                                            : model.vocab_size);
  double largest = vocab * h;
  largest = std::max(largest, h * double((a.num_heads + 2 * a.num_kv_heads) * a.head_dim));
  const double ffn_width = (model.dense_mlp.gated ? 2.0 : 1.0) * double(model.dense_mlp.intermediate_size);
  largest = std::max(largest, h * ffn_width);
  if (model.moe) {
    const double expert_fc1 = 2.0 * double(model.moe->expert_intermediate_size) * h;
    const double gathered = s.backend == Backend::megatron ? double(std::max(s.ep, 1)) : 1.0;
    largest = std::max(largest, expert_fc1 * gathered);
  }
  return largest;
}

// Weight sync (verl rollout_mode): the actor's weights are loaded, the engine wakes its weights
// (resume(tags=["weights"]), not yet its KV cache), and the trainer streams full tensors through
// one bucket of rollout.checkpoint_engine.update_weights_bucket_megabytes (vLLM: a CUDA-IPC
// buffer, vllm_rollout.py ServerAdapter.update_weights; SGLang: get_named_tensor_buckets).
// FSDP gathers each fp32 shard to a full tensor and casts it to bf16 (4 + 2 bytes per element)
// and has already offloaded its own weights when param_offload is set (fsdp_workers.py
// rollout_mode); Megatron all-gathers bf16 TP shards and concatenates them (2 + 2 bytes,
// megatron_utils.py per_tensor_generator) with its weights on the GPU.
PhaseMemory weight_sync_phase(const Rl& r, PipelineStage stage) {
  PhaseMemory phase;
  phase.kind = MemoryPhaseKind::weight_sync;
  phase.stage = pipeline_stage_index(r.s, stage);
  const ModelStateBytes own = model_state_bytes(r.model, r.s, stage, OffloadMode::own_phase, nullptr);
  ModelStateBytes actor = resident(r, own);
  const bool fsdp = r.s.backend == Backend::fsdp;
  if (!(fsdp && r.s.offload.params)) {
    actor.weights = own.weights;
    actor.lora_adapters = own.lora_adapters;
  }
  add_states(phase, actor);
  add_neighbours(r, phase, stage, true, true);
  if (!standalone(r.rl)) {  // a standalone engine receives on its own GPUs (the rollout phase's)
    phase[C::rollout_weights] = r.engine.weights;
    phase[C::cuda_graphs] = r.engine.cuda_graphs;
  }
  const double transient_bytes_per_element = fsdp ? 4.0 + 2.0 : 2.0 + 2.0;
  phase[C::resharding_buffer] = double(r.rl.weight_sync_bucket_bytes) +
                                transient_bytes_per_element * largest_synced_tensor_params(r.model, r.s);
  return phase;
}

}  // namespace

double rl_trainer_tokens_per_sequence(const RlSettings& rl) {
  if (!rl.use_remove_padding) return double(rl.prompt_len + rl.response_len);
  const std::int64_t prompt =
      rl.mean_prompt_len > 0 ? std::min(rl.mean_prompt_len, rl.prompt_len) : rl.prompt_len;
  const std::int64_t response =
      rl.mean_response_len > 0 ? std::min(rl.mean_response_len, rl.response_len) : rl.response_len;
  return double(prompt + response);
}

void add_rl_phases(MemoryEstimate& e, const ModelSpec& model, const Strategy& s, const Workload& w,
                   const MemoryOptions& options, Trace* trace) {
  const RlSettings& rl = w.rl;
  Rl r{model, s, w, rl, options, 0, 1, 1, 0, RolloutMemory{}};
  r.seq_tokens = rl_trainer_tokens_per_sequence(rl);
  r.split = s.backend == Backend::fsdp ? std::max(s.ulysses_sp, 1) : std::max(s.cp, 1);
  const std::int64_t actor_dp =
      s.backend == Backend::fsdp ? std::max(1, s.dp / std::max(s.ulysses_sp, 1)) : s.dp;
  const std::int64_t mini = rl.ppo_mini_batch > 0 ? rl.ppo_mini_batch : w.global_batch;
  r.local_mini = std::max<std::int64_t>(1, mini * rl.n / std::max<std::int64_t>(actor_dp, 1));
  // Standalone engines: the trainer joins one more communicator, the weight broadcast to them.
  r.communicators = communicator_count(s) + (rl.rollout_tp > 1 || standalone(rl) ? 1 : 0);

  // The engine sizes its KV cache at start-up against what the trainer keeps resident (nothing
  // on GPUs of its own).
  PhaseMemory resting = rollout_phase(r, PipelineStage::first);
  double resident_other = kCudaContextBytes;
  for (C c : {C::weights, C::gradients, C::optimizer_states, C::lora_adapters, C::reference_model,
              C::critic_model}) {
    resident_other += resting[c];
  }
  r.engine = rollout_memory(model, w, rollout_gpus(s, rl), e.capacity_bytes, resident_other, trace);
  // One process per GPU when the engines have GPUs of their own.
  const int processes = standalone(rl) ? 1 : kRlProcesses;
  e.rollout = r.engine.capacity;
  e.kv_cache_exhausted = r.engine.kv_cache <= 0;
  e.kv_below_one_sequence = !e.kv_cache_exhausted && !r.engine.capacity.holds_one_sequence;

  int count = 0;
  auto push = [&](PhaseMemory phase, Trace* t) {
    finish_phase(phase, processes, r.communicators, options, t);
    e.phases[count++] = phase;
  };
  auto build = [&](auto&& make) { return most_loaded_stage(s, trace, make); };
  push(build([&](PipelineStage st, Trace*) { return rollout_phase(r, st); }), trace);
  if (options.rollout_phases_only) {
    push(build([&](PipelineStage st, Trace*) { return weight_sync_phase(r, st); }), trace);
    e.phase_count = count;
    return;
  }
  push(build([&](PipelineStage st, Trace* t) {
         return log_prob_phase(r, st, MemoryPhaseKind::old_log_prob, t);
       }),
       trace);
  if (rl.use_reference) {
    push(build([&](PipelineStage st, Trace* t) {
           return log_prob_phase(r, st, MemoryPhaseKind::ref_log_prob, t);
         }),
         trace);
  }
  push(build([&](PipelineStage st, Trace* t) { return update_phase(r, st, false, t); }), trace);
  if (rl.use_critic)
    push(build([&](PipelineStage st, Trace* t) { return update_phase(r, st, true, t); }), trace);
  push(build([&](PipelineStage st, Trace*) { return weight_sync_phase(r, st); }), trace);
  e.phase_count = count;

  // Host RAM per GPU: offloaded actor (and critic) states, an offloaded reference, and the
  // sleeping engine's weights (vLLM sleep level 1 keeps them in pinned host memory).
  const ModelStateBytes own =
      model_state_bytes(model, s, PipelineStage::first, OffloadMode::own_phase, nullptr);
  double host = resident(r, own).host_offloaded * (rl.use_critic ? 2.0 : 1.0);
  if (reference_on_host(r)) host += reference_bytes(r, PipelineStage::first);
  // TensorRT-LLM's sleep discards them (verl's SleepConfig restore mode NONE: the next weight
  // update refills them).
  if (rl.free_cache_engine && !standalone(rl) && rl.engine != RolloutEngine::trtllm) host += r.engine.weights;
  // The actor update's offloaded activations (verl's handler skips forward-only passes).
  host += offloaded_activation_bytes(model, s, PipelineStage::first,
                                     micro_batch(r, rl.ppo_micro_batch_per_gpu, rl.ppo_max_token_len_per_gpu), options);
  e.host_bytes_per_node = host;
}

}  // namespace meshplan
