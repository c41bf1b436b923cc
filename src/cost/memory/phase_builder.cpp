#include "cost/memory/phase_builder.hpp"

#include <fmt/format.h>

#include "cost/time/runtime_overhead.hpp"
#include "cost/memory/vision_activations.hpp"

namespace meshplan {

void add_step_activations(PhaseMemory& phase, const ModelSpec& model, const Strategy& s, PipelineStage stage,
                          const StepInputs& in, const RlSettings& rl, const MemoryOptions& options,
                          Trace* trace) {
  const bool first = s.pp <= 1 || stage == PipelineStage::first;
  const bool last = s.pp <= 1 || stage == PipelineStage::last;
  phase.stage = pipeline_stage_index(s, stage);
  phase[MemoryComponent::activations] += in.forward_only
                                             ? forward_only_activation_bytes(model, s, in.mb, options, trace)
                                             : stage_activation_bytes(model, s, stage, in.mb, options, trace);
  if (last) {
    const double tokens = in.mb.seq_tokens * in.mb.sequences;
    // Each trained MTP module computes its own logits and loss, alive until the backward
    // (Megatron-core multi_token_prediction.py: the output layer per MTP depth).
    const double logit_sets = s.train_mtp && !in.forward_only ? 1.0 + double(model.num_mtp_layers) : 1.0;
    phase[MemoryComponent::logits] += logit_sets * logits_bytes(model, s, tokens, in.loss, rl, trace);
  }
  if (first && in.images > 0) {
    const double in_flight = in.forward_only ? 1.0 : microbatches_in_flight(s, stage, in.mb.microbatches);
    phase[MemoryComponent::vision_activations] +=
        in_flight * vision_activation_bytes(model, s, in.images, in.image_pixels, options, trace);
  }
}

double add_model_states(PhaseMemory& phase, const ModelSpec& model, const Strategy& s, PipelineStage stage,
                        OffloadMode mode, Trace* trace) {
  const ModelStateBytes b = model_state_bytes(model, s, stage, mode, trace);
  phase[MemoryComponent::weights] += b.weights;
  phase[MemoryComponent::gradients] += b.gradients;
  phase[MemoryComponent::optimizer_states] += b.optimizer;
  phase[MemoryComponent::lora_adapters] += b.lora_adapters;
  phase[MemoryComponent::gathered_params] += b.gathered;
  return b.host_offloaded;
}

void finish_phase(PhaseMemory& phase, int processes, int communicators, const MemoryOptions& options,
                  Trace* trace) {
  using C = MemoryComponent;
  double torch_bytes = 0;
  for (C c :
       {C::weights, C::gradients, C::optimizer_states, C::lora_adapters, C::gathered_params, C::activations,
        C::logits, C::vision_activations, C::reference_model, C::critic_model, C::resharding_buffer}) {
    torch_bytes += phase[c];
  }
  phase[C::fragmentation] = fragmentation_bytes(torch_bytes, options, trace);
  const RuntimeOverhead overhead = runtime_overhead(processes, communicators, options, trace);
  phase[C::cuda_context] = overhead.cuda_context;
  phase[C::nccl_buffers] = overhead.nccl_buffers;
  if (trace != nullptr) {
    trace->push_back(TraceTerm{fmt::format("memory/phase/{}", memory_phase_name(phase.kind)),
                               phase.peak_bytes(), "bytes", "sum of the phase's components",
                               fmt::format("stage={}", phase.stage), "memory_estimate.cpp"});
  }
}

}  // namespace meshplan
