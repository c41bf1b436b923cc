#pragma once
// Memory no tensor accounts for: the CUDA context of each process, NCCL communicator buffers
// and caching-allocator fragmentation. Documented constants, each overridable
// (MemoryOptions::overhead_bytes, MemoryOptions::fragmentation; CLI --overhead-gib, --fragmentation).
#include "core/units.hpp"
#include "cost/memory/memory_estimate.hpp"

namespace meshplan {

/// CUDA context + loaded kernels of one PyTorch process: nvidia-smi shows ~300-600 MiB before
/// the first allocation with CUDA >= 11.7 lazy module loading (PyTorch "CUDA semantics" notes;
/// NVIDIA CUDA C++ Programming Guide, "Lazy Loading"). Assumed, not measured here.
inline constexpr double kCudaContextBytes = 512 * kMiB;

/// NCCL buffers of one communicator: NCCL_BUFFSIZE defaults to 4 MiB per channel and peer for
/// the Simple protocol, plus LL/LL128 buffers (NCCL environment-variable docs); with ~16 ring
/// channels and send+recv peers that is ~256 MiB. A derived estimate.
inline constexpr double kNcclBytesPerCommunicator = 256 * kMiB;

/// PyTorch caching-allocator fragmentation as a fraction of the torch allocations. An assumed
/// default (Megatron's own report leaves fragmentation out; its non-SP path pads activations by
/// 5%, theoretical_memory_usage.py); override with --fragmentation.
inline constexpr double kDefaultFragmentation = 0.05;

struct RuntimeOverhead {
  double cuda_context = 0;
  double nccl_buffers = 0;
};

/// Process groups of size > 1 that a rank of this strategy joins (TP, PP, DP x CP, CP, EP,
/// ETP; FSDP: the shard group and Ulysses).
int communicator_count(const Strategy& strategy);

/// `processes` CUDA contexts and `communicators` NCCL communicators; `options.overhead_bytes` >= 0
/// replaces both (reported as cuda_context).
RuntimeOverhead runtime_overhead(int processes, int communicators, const MemoryOptions& options,
                                 Trace* trace);

/// options.fragmentation (or the default) times the torch-allocated bytes.
double fragmentation_bytes(double torch_bytes, const MemoryOptions& options, Trace* trace);

}  // namespace meshplan
