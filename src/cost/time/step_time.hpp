#pragma once
// The step-time estimate: compute, every parallel dimension's communication, the pipeline,
// offload, and for verl RL the rollout and log-prob phases. Pure: no allocation when the trace
// is null (the planner calls it millions of times).
#include <cstdint>

#include "cost/time/offload_time.hpp"
#include "cost/time/time_estimate.hpp"
#include "cost/trace.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// Micro-batches each data-parallel rank runs for `sequences` sequences at `micro_batch` a step.
std::int64_t micro_batches_for(std::int64_t sequences, const Strategy& strategy, int micro_batch);

/// One optimizer step of training on `sequences` sequences of `seq_len` tokens; `offload` says
/// how the strategy's offload flags are read (cost/time/offload_time.hpp).
TimeBreakdown training_step_breakdown(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                      std::int64_t seq_len, std::int64_t sequences, int micro_batch,
                                      StepOffload offload, const TimeOptions& options, Trace* trace);

/// A forward-only pass (verl's log-prob computations) over `sequences` sequences.
TimeBreakdown forward_pass_breakdown(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                     std::int64_t seq_len, std::int64_t sequences, int micro_batch,
                                     const TimeOptions& options, Trace* trace);

/// The whole step of a workload: pretraining/SFT (phase "train") or verl RL (timing_s/*).
/// Uses the cluster's first node group (a heterogeneous split is the planner's job).
TimeEstimate estimate_time(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy,
                           const Workload& workload, const TimeOptions& options, Trace* trace);

}  // namespace meshplan
