#pragma once
// Time of offloading: model states' host↔device copies over PCIe and the CPU optimizer step;
// activations copied to host and back around each layer.
#include <cstdint>

#include "cost/time/parallel_comm.hpp"

namespace meshplan {

/// How a step's offload flags are read (Strategy::Offload): `in_step`, training runs with them
/// (FSDP CPUOffload streams the parameters, Megatron's CPU optimizer steps the offloaded
/// fraction); `paged`, verl's update, whose states were paged back before it: only Megatron's CPU
/// optimizer (Offload::optimizer_on_cpu) works from the host.
enum class StepOffload : std::uint8_t { in_step, paged };

/// Seconds per optimizer step spent on offload, none of it overlapped (conservative):
/// params copied host→device for each micro-batch's forward and backward, gradients copied
/// device→host once, and the optimizer step run by the CPU on the offloaded fraction.
double offload_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                       std::int64_t micro_batches, StepOffload mode, Trace* trace);

/// Seconds to copy `bytes` of one GPU's pinned host memory to it (or back), every GPU of the node
/// at once: the host link, or the node's DRAM bandwidth shared.
double host_copy_seconds(double bytes, const NodeGroup& node);

/// Seconds to page `bytes` of one GPU's model states to the host and back (verl's offload between
/// phases), every GPU of the node at once: the host link, or the node's DRAM bandwidth shared.
double paging_seconds(double bytes, const NodeGroup& node);

/// The same when the copy to the host lands in freshly allocated pageable memory (a blocking
/// `tensor.to("cpu")`, as NeMo RL moves the optimizer states every step): the driver stages it
/// through pinned buffers and the host faults in every new page, far below the link's rate
/// (kPageableDeviceToHostBps); the copy back runs from memory already resident.
double pageable_paging_seconds(double bytes, const NodeGroup& node);

/// Exposed seconds per micro-batch of activation offloading (Strategy::activation_offload_layers):
/// the copies of each offloaded layer's saved activations to host and back that outlast the
/// layer's forward and backward compute.
double activation_offload_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                  std::int64_t seq_len, int micro_batch, const StageCompute& stage,
                                  const TimeOptions& options, Trace* trace);

}  // namespace meshplan
