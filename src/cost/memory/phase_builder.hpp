#pragma once
// Building blocks shared by the training phase and verl's RL phases: the memory of one
// training (or forward-only) step on one pipeline stage, the per-phase overheads, and the
// choice of the most loaded stage.
#include "cost/memory/activations.hpp"
#include "cost/memory/logits.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"

namespace meshplan {

struct StepInputs {
  MicroBatchShape mb;
  LossKind loss = LossKind::cross_entropy;
  OffloadMode offload = OffloadMode::training;
  bool forward_only = false;  ///< log-prob passes: no gradients, no stored activations
  double images = 0;          ///< images per micro-batch (VL models)
  double image_pixels = 0;
};

/// Adds activations, logits (last stage) and vision activations (first stage) of one step.
void add_step_activations(PhaseMemory& phase, const ModelSpec& model, const Strategy& strategy,
                          PipelineStage stage, const StepInputs& in, const RlSettings& rl,
                          const MemoryOptions& options, Trace* trace);

/// Adds the model states of `stage` (weights, gradients, optimizer, adapters, gathered units);
/// returns the bytes moved to host RAM.
double add_model_states(PhaseMemory& phase, const ModelSpec& model, const Strategy& strategy,
                        PipelineStage stage, OffloadMode mode, Trace* trace);

/// Fragmentation of the torch allocations, then CUDA contexts and NCCL buffers.
void finish_phase(PhaseMemory& phase, int processes, int communicators, const MemoryOptions& options,
                  Trace* trace);

/// Builds the phase for the first, the second (PP > 2) and the last pipeline stage (once when
/// PP = 1), each with its own layers, and keeps the largest; with a trace, the winner is rebuilt
/// once with tracing so each term is recorded once.
template <class Build>
PhaseMemory most_loaded_stage(const Strategy& strategy, Trace* trace, Build&& build) {
  PipelineStage best_stage = PipelineStage::first;
  PhaseMemory best = build(PipelineStage::first, nullptr);
  for (PipelineStage stage : {PipelineStage::middle, PipelineStage::last}) {
    if (strategy.pp <= (stage == PipelineStage::middle ? 2 : 1)) continue;
    PhaseMemory other = build(stage, nullptr);
    if (other.peak_bytes() > best.peak_bytes()) {
      best = other;
      best_stage = stage;
    }
  }
  if (trace != nullptr) best = build(best_stage, trace);
  return best;
}

}  // namespace meshplan
