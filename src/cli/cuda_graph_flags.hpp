#pragma once
// `--cuda-graph-impl` and `--cuda-graph-modules` (estimate and plan): Megatron-core's CUDA graphs of
// the training step (strategy/cuda_graphs.hpp), with Megatron-LM's flag names.
#include <string>

#include "core/result.hpp"
#include "strategy/strategy.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace meshplan {

struct CudaGraphFlags {
  std::string impl = "none";
  std::string modules;  ///< comma list; "" = the whole layer
};

void add_cuda_graph_flags(CLI::App& command, CudaGraphFlags& flags);

/// The flags into `strategy`: unknown module names, and modules without a per-layer impl
/// (Megatron-core: cuda_graph_modules must be empty when cuda_graph_impl="full_iteration"), are
/// errors naming the flag.
Status apply_cuda_graph_flags(const CudaGraphFlags& flags, Strategy& strategy);

}  // namespace meshplan
