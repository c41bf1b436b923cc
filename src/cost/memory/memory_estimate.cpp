#include "cost/memory/memory_estimate.hpp"

#include <algorithm>
#include <limits>

#include "cost/memory/phase_builder.hpp"
#include "cost/memory/rl_phases.hpp"
#include "cost/time/runtime_overhead.hpp"

namespace meshplan {
namespace {

constexpr std::array<const char*, kMemoryComponentCount> kComponentNames = {
    "weights",         "gradients",    "optimizer_states",   "lora_adapters",   "gathered_params",
    "activations",     "logits",       "vision_activations", "reference_model", "critic_model",
    "rollout_weights", "kv_cache",     "engine_workspace",   "cuda_graphs",     "resharding_buffer",
    "cuda_context",    "nccl_buffers", "fragmentation"};

constexpr std::array<const char*, kMaxMemoryPhases> kPhaseNames = {
    "train", "rollout", "old_log_prob", "ref_log_prob", "update_actor", "update_critic", "weight_sync"};

double smallest_gpu_memory(const Cluster& cluster) {
  double smallest = std::numeric_limits<double>::max();
  for (const NodeGroup& group : cluster.groups) smallest = std::min(smallest, double(group.gpu.memory_bytes));
  return cluster.groups.empty() ? 0.0 : smallest;
}

// Pretrain / SFT: one phase, the most loaded pipeline stage.
void add_train_phase(MemoryEstimate& e, const ModelSpec& model, const Strategy& s, const Workload& w,
                     const MemoryOptions& options, Trace* trace) {
  StepInputs in;
  const double split = double(s.cp) * (s.backend == Backend::fsdp ? s.ulysses_sp : 1);
  in.mb.seq_tokens = double(w.seq_len) / split;
  in.mb.kv_tokens = double(w.seq_len);
  in.mb.sequences = s.micro_batch;
  const std::int64_t batch_dp =
      s.backend == Backend::fsdp ? std::max(1, s.dp / std::max(s.ulysses_sp, 1)) : s.dp;
  const std::int64_t per_microbatch = std::int64_t(std::max(s.micro_batch, 1)) * batch_dp;
  in.mb.microbatches = w.global_batch > 0 ? std::max<std::int64_t>(1, w.global_batch / per_microbatch) : s.pp;
  in.images = double(w.images_per_sample) * s.micro_batch;
  in.image_pixels = double(w.image_pixels);
  double host = 0;
  e.phases[0] = most_loaded_stage(s, trace, [&](PipelineStage stage, Trace* t) {
    PhaseMemory phase;
    phase.kind = MemoryPhaseKind::train;
    // Host RAM: offloaded states, and the activations offloading moves there (pinned buffers).
    host = add_model_states(phase, model, s, stage, OffloadMode::training, t) +
           microbatches_in_flight(s, stage, in.mb.microbatches) *
               offloaded_activation_bytes(model, s, stage, in.mb, options);
    add_step_activations(phase, model, s, stage, in, w.rl, options, t);
    finish_phase(phase, 1, communicator_count(s), options, t);
    return phase;
  });
  e.phase_count = 1;
  e.host_bytes_per_node = host;
}

}  // namespace

const char* memory_component_name(MemoryComponent component) {
  const int index = static_cast<int>(component);
  return index >= 0 && index < kMemoryComponentCount ? kComponentNames[index] : "unknown";
}

const char* memory_phase_name(MemoryPhaseKind kind) {
  const int index = static_cast<int>(kind);
  return index >= 0 && index < kMaxMemoryPhases ? kPhaseNames[index] : "unknown";
}

double PhaseMemory::peak_bytes() const {
  double sum = 0;
  for (double b : bytes) sum += b;
  return sum;
}

MemoryEstimate estimate_memory(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                               const Workload& workload, const MemoryOptions& options, Trace* trace) {
  MemoryEstimate e;
  e.capacity_bytes = smallest_gpu_memory(cluster);
  // Host RAM is per host: the node, or one compute tray of a rack-scale NVLink domain.
  const int gpus_per_node = cluster.groups.empty() ? 1 : cluster.groups.front().gpus_per_host();
  if (workload.kind == WorkloadKind::rl) {
    add_rl_phases(e, model, strategy, workload, options, trace);
  } else {
    add_train_phase(e, model, strategy, workload, options, trace);
  }
  e.host_bytes_per_node *= gpus_per_node;
  for (int i = 0; i < e.phase_count; ++i) {
    const double peak = e.phases[i].peak_bytes();
    if (peak > e.peak_bytes) {
      e.peak_bytes = peak;
      e.peak_phase = i;
    }
  }
  e.headroom_bytes = e.capacity_bytes - e.peak_bytes;
  e.fits = e.headroom_bytes >= 0 && !e.kv_cache_exhausted && !e.kv_below_one_sequence;
  return e;
}

}  // namespace meshplan
