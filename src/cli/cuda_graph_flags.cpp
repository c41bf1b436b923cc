#include "cli/cuda_graph_flags.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace meshplan {

void add_cuda_graph_flags(CLI::App& command, CudaGraphFlags& flags) {
  command
      .add_option("--cuda-graph-impl", flags.impl,
                  "Megatron-core CUDA graphs: none, per-layer graphs (local, transformer_engine) or the whole "
                  "iteration (full_iteration) (Megatron-LM --cuda-graph-impl)")
      ->check(CLI::IsMember({"none", "local", "transformer_engine", "full_iteration"}));
  command.add_option("--cuda-graph-modules", flags.modules,
                     "per-layer graphs: the captured modules, comma list of " + known_cuda_graph_module_names() +
                         " (default: the whole layer; Megatron-LM --cuda-graph-modules, formerly --cuda-graph-scope)");
}

Status apply_cuda_graph_flags(const CudaGraphFlags& flags, Strategy& strategy) {
  strategy.cuda_graph_impl = cuda_graph_impl_of(flags.impl).value_or(CudaGraphImpl::none);
  strategy.cuda_graph_modules = 0;
  std::size_t start = 0;
  while (start < flags.modules.size()) {
    const std::size_t comma = flags.modules.find(',', start);
    const std::size_t end = comma == std::string::npos ? flags.modules.size() : comma;
    const std::string name = flags.modules.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    const auto module = cuda_graph_module_of(name);
    if (!module) {
      return Error{"", 0, "--cuda-graph-modules",
                   fmt::format("unknown module '{}'; valid: {}", name, known_cuda_graph_module_names())};
    }
    strategy.cuda_graph_modules |= *module;
  }
  const bool per_layer =
      strategy.cuda_graph_impl == CudaGraphImpl::local || strategy.cuda_graph_impl == CudaGraphImpl::transformer_engine;
  if (!flags.modules.empty() && !per_layer) {
    return Error{"", 0, "--cuda-graph-modules",
                 "takes effect only with --cuda-graph-impl local or transformer_engine (Megatron-core: "
                 "cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\")"};
  }
  return Ok{};
}

}  // namespace meshplan
