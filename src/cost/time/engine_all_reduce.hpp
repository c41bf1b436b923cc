#pragma once
// The tensor-parallel all-reduce of a rollout engine's forward pass, by the path the engine takes
// (vLLM distributed/device_communicators/cuda_communicator.py CudaCommunicator.all_reduce: its
// custom all-reduce when it is enabled and takes the message, else PyNccl). Pure arithmetic.
#include "cost/time/collectives.hpp"
#include "hardware/cluster.hpp"

namespace meshplan {

enum class EngineAllReducePath { none, peer_memory, nccl };

struct EngineAllReduce {
  EngineAllReducePath path = EngineAllReducePath::none;
  double seconds = 0;
};

/// One all-reduce of `bytes` over a TP group of `ranks` consecutive GPUs. `nccl_link` is the
/// group's link (group_link) for the NCCL path.
EngineAllReduce engine_all_reduce(double bytes, int ranks, const NodeGroup& node, const LinkPath& nccl_link);

const char* engine_all_reduce_path_name(EngineAllReducePath path);

}  // namespace meshplan
