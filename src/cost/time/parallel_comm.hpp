#pragma once
// Communication of each parallel dimension in a Megatron / FSDP training step, and what of it
// is exposed (not hidden behind compute). Collective costs come from cost/time/collectives.hpp.
#include <cstdint>

#include "cost/memory/model_states.hpp"
#include "cost/time/compute_time.hpp"

namespace meshplan {

/// Exposed communication of one micro-batch on one pipeline rank (all its layers).
struct MicroBatchComm {
  double tp_s = 0;
  double cp_s = 0;
  double ep_s = 0;          ///< exposed in a training pass (after --overlap-moe-expert-parallel-comm)
  double ep_forward_s = 0;  ///< the forward all-to-alls alone (a forward-only pass has none to hide behind)
  double ep_hidden_s = 0;   ///< what the EP all-to-all overlap hides of one micro-batch's all-to-alls
};

MicroBatchComm micro_batch_comm(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                std::int64_t seq_len, int micro_batch, const StageCompute& compute,
                                const TimeOptions& options, Trace* trace);

/// Pipeline: bubble ((p−1)/v micro-batch slots of the slowest stage, Narayanan 2021 §2.2) plus
/// the slowest rank's excess over the average one in every micro-batch (`imbalance_s`, 0 or more:
/// the LM head and MTP layers on the last rank, less any layers a layout moved off it; where that
/// leaves the last rank lighter, the callers take the difference off their compute term), and the
/// p2p sends.
struct PipelineTime {
  double bubble_s = 0;
  double p2p_s = 0;
};

PipelineTime pipeline_time(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                           std::int64_t seq_len, int micro_batch, std::int64_t micro_batches,
                           double stage_micro_batch_s, double imbalance_s, const TimeOptions& options, Trace* trace);

/// Parameters held by the most loaded rank (first stage: its layers and the input embedding),
/// dense and expert separately because they reduce over different groups.
RankParams rank_params(const ModelSpec& model, const Strategy& strategy);

/// Exposed data-parallel traffic of one optimizer step with `micro_batches` micro-batches:
/// gradient all-reduce or reduce-scatter + parameter all-gather (distributed optimizer, ZeRO,
/// FSDP), bucketed and overlapped with the backward (and forward) of the micro-batches.
double dp_comm_exposed_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                               std::int64_t micro_batches, const StageCompute& compute,
                               const TimeOptions& options, Trace* trace);

}  // namespace meshplan
