#include "cost/time/runtime_overhead.hpp"

#include <fmt/format.h>

#include "cost/memory/memory_trace.hpp"

namespace meshplan {

int communicator_count(const Strategy& s) {
  if (s.backend == Backend::fsdp) return (s.dp > 1 ? 1 : 0) + (s.ulysses_sp > 1 ? 1 : 0);
  return (s.tp > 1 ? 1 : 0) + (s.pp > 1 ? 1 : 0) + (s.dp * s.cp > 1 ? 1 : 0) + (s.cp > 1 ? 1 : 0) +
         (s.ep > 1 ? 1 : 0) + (s.etp > 1 ? 1 : 0);
}

RuntimeOverhead runtime_overhead(int processes, int communicators, const MemoryOptions& options,
                                 Trace* trace) {
  RuntimeOverhead o;
  if (options.overhead_bytes >= 0) {
    o.cuda_context = options.overhead_bytes;
    trace_bytes(trace, "memory/overhead/cuda_context", o.cuda_context, "user override (--overhead-gib)",
                "user", [] { return std::string("CUDA context + NCCL replaced by the override"); });
    return o;
  }
  o.cuda_context = processes * kCudaContextBytes;
  o.nccl_buffers = communicators * kNcclBytesPerCommunicator;
  trace_bytes(trace, "memory/overhead/cuda_context", o.cuda_context, "processes * 512 MiB",
              "CUDA lazy loading context size (assumed constant, docs/memory-model.md)",
              [&] { return fmt::format("processes={}", processes); });
  trace_bytes(trace, "memory/overhead/nccl_buffers", o.nccl_buffers, "communicators * 256 MiB",
              "NCCL_BUFFSIZE 4 MiB x channels x peers (derived estimate, docs/memory-model.md)",
              [&] { return fmt::format("communicators={}", communicators); });
  return o;
}

double fragmentation_bytes(double torch_bytes, const MemoryOptions& options, Trace* trace) {
  const double fraction = options.fragmentation >= 0 ? options.fragmentation : kDefaultFragmentation;
  const double bytes = fraction * torch_bytes;
  trace_bytes(trace, "memory/overhead/fragmentation", bytes, "fraction * torch_allocated_bytes",
              "assumed allocator fragmentation (overridable with --fragmentation)",
              [&] { return fmt::format("fraction={} torch_allocated={:.6g}", fraction, torch_bytes); });
  return bytes;
}

}  // namespace meshplan
