// Megatron-core's CUDA graph names and what each capture leaves the host to launch in a MoE layer
// (strategy/cuda_graphs.hpp; transformer/enums.py CudaGraphModule, moe/README.md "CUDA Graph").
#include <doctest/doctest.h>

#include "strategy/cuda_graphs.hpp"

namespace meshplan {

TEST_CASE("CUDA graph impl and module names are Megatron-core's") {
  for (const char* name : {"none", "local", "transformer_engine", "full_iteration"}) {
    const auto impl = cuda_graph_impl_of(name);
    REQUIRE(impl.has_value());
    CHECK(cuda_graph_impl_name(*impl) == name);
  }
  CHECK_FALSE(cuda_graph_impl_of("te").has_value());
  CHECK(known_cuda_graph_module_names() == "attn,mlp,moe,moe_router,moe_preprocess,mamba");
  CHECK(cuda_graph_module_of("moe_preprocess") == kGraphMoePreprocess);
  CHECK_FALSE(cuda_graph_module_of("full_iteration").has_value());  // an impl since e41b37002c, not a module
  CHECK(cuda_graph_module_names(kGraphMoePreprocess | kGraphAttn) == "attn,moe_preprocess");
}

TEST_CASE("a MoE layer's launches left to the host under each capture") {
  const auto left = [](CudaGraphImpl impl, std::uint8_t modules) {
    const MoeHostLaunches launches = moe_host_launches(impl, modules);
    return std::pair{launches.layer, launches.experts};
  };
  CHECK(left(CudaGraphImpl::none, 0) == std::pair{true, true});
  CHECK(left(CudaGraphImpl::full_iteration, 0) == std::pair{false, false});
  // The whole layer: a dropless layer's experts stay eager (their shapes change every step).
  CHECK(left(CudaGraphImpl::local, 0) == std::pair{false, true});
  CHECK(left(CudaGraphImpl::transformer_engine, kGraphMoe) == std::pair{false, false});
  // A dropless layer's experts change their row counts every step: not captured.
  CHECK(left(CudaGraphImpl::transformer_engine, kGraphMoeRouter | kGraphMoePreprocess) == std::pair{false, true});
  CHECK(left(CudaGraphImpl::transformer_engine, kGraphAttn | kGraphMoeRouter) == std::pair{false, true});
  // Attention alone: the layer part is not split by module; it stays.
  CHECK(left(CudaGraphImpl::local, kGraphAttn) == std::pair{true, true});
}

}  // namespace meshplan
