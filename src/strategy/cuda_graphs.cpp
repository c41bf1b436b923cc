#include "strategy/cuda_graphs.hpp"

#include <array>
#include <utility>

namespace meshplan {
namespace {

constexpr std::array<std::pair<std::string_view, CudaGraphImpl>, 4> kImpls{{
    {"none", CudaGraphImpl::none},
    {"local", CudaGraphImpl::local},
    {"transformer_engine", CudaGraphImpl::transformer_engine},
    {"full_iteration", CudaGraphImpl::full_iteration},
}};

// Megatron-core's names (CudaGraphModule), in its order.
constexpr std::array<std::pair<std::string_view, CudaGraphModule>, 6> kModules{{
    {"attn", kGraphAttn},
    {"mlp", kGraphMlp},
    {"moe", kGraphMoe},
    {"moe_router", kGraphMoeRouter},
    {"moe_preprocess", kGraphMoePreprocess},
    {"mamba", kGraphMamba},
}};

}  // namespace

std::optional<CudaGraphImpl> cuda_graph_impl_of(std::string_view name) {
  for (const auto& [known, impl] : kImpls) {
    if (known == name) return impl;
  }
  return std::nullopt;
}

std::string cuda_graph_impl_name(CudaGraphImpl impl) {
  for (const auto& [name, known] : kImpls) {
    if (known == impl) return std::string(name);
  }
  return "none";
}

std::optional<CudaGraphModule> cuda_graph_module_of(std::string_view name) {
  for (const auto& [known, flag] : kModules) {
    if (known == name) return flag;
  }
  return std::nullopt;
}

std::string cuda_graph_module_names(std::uint8_t modules) {
  std::string out;
  for (const auto& [name, flag] : kModules) {
    if ((modules & flag) != 0) out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}

std::string known_cuda_graph_module_names() { return cuda_graph_module_names(0xFF); }

MoeHostLaunches moe_host_launches(CudaGraphImpl impl, std::uint8_t modules) {
  if (impl == CudaGraphImpl::none) return {};
  if (impl == CudaGraphImpl::full_iteration || (modules & kGraphMoe) != 0) return {false, false};
  if (modules == 0 || (modules & kGraphMoeRouter) != 0) return {false, true};
  return {};
}

}  // namespace meshplan
