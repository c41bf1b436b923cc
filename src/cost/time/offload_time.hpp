#pragma once
// Time of offloaded model states: host↔device copies over PCIe and the CPU optimizer step.
#include <cstdint>

#include "cost/time/parallel_comm.hpp"

namespace meshplan {

/// Seconds per optimizer step spent on offload, none of it overlapped (conservative):
/// params copied host→device for each micro-batch's forward and backward, gradients copied
/// device→host once, and the optimizer step run by the CPU on the offloaded fraction.
double offload_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                       std::int64_t micro_batches, Trace* trace);

}  // namespace meshplan
