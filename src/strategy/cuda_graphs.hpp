#pragma once
// Megatron-core CUDA graphs of the training step (TransformerConfig.cuda_graph_impl and
// cuda_graph_modules, megatron/core/transformer/transformer_config.py; Megatron-LM
// --cuda-graph-impl, --cuda-graph-modules, formerly --cuda-graph-scope). A captured region is
// replayed by one graph launch: the host no longer launches its kernels one by one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshplan {

/// TransformerConfig.cuda_graph_impl: none; per-layer graphs of the MCore-internal manager
/// (local) or of Transformer Engine's make_graphed_callables (transformer_engine); or the whole
/// forward-backward iteration as one graph (full_iteration).
enum class CudaGraphImpl : std::uint8_t { none, local, transformer_engine, full_iteration };

/// Megatron-core CudaGraphModule (transformer/enums.py) as bit flags; a per-layer impl with no
/// module captures the whole layer.
enum CudaGraphModule : std::uint8_t {
  kGraphAttn = 1 << 0,           ///< "attn": TransformerLayer._forward_attention
  kGraphMlp = 1 << 1,            ///< "mlp": the dense MLP layers
  kGraphMoe = 1 << 2,            ///< "moe": the whole MoE layer (drop-and-pad MoE only)
  kGraphMoeRouter = 1 << 3,      ///< "moe_router": the router
  kGraphMoePreprocess = 1 << 4,  ///< "moe_preprocess": the dispatcher's preprocessing (needs moe_router)
  kGraphMamba = 1 << 5,          ///< "mamba": the Mamba layers of a hybrid model
};

std::optional<CudaGraphImpl> cuda_graph_impl_of(std::string_view name);
std::string cuda_graph_impl_name(CudaGraphImpl impl);

/// The flag of one of Megatron-core's module names; nullopt for a name it does not know.
std::optional<CudaGraphModule> cuda_graph_module_of(std::string_view name);
/// The names of `modules`, comma-separated in Megatron's order ("" for none).
std::string cuda_graph_module_names(std::uint8_t modules);
/// Every module name, comma-separated (for help and error messages).
std::string known_cuda_graph_module_names();

/// What of one MoE layer's forward the host still launches kernel by kernel under these graphs.
struct MoeHostLaunches {
  bool layer = true;    ///< attention, router, dispatcher preprocessing, permutation, all-to-alls
  bool experts = true;  ///< the grouped expert GEMMs (one launch chain per local expert)
};

/// full_iteration or the "moe" module: nothing (Megatron-core refuses "moe" unless the layer drops
/// and pads to a capacity, and full_iteration runs a sync-free dropless layer with its paged
/// stash); moe_router (with or without moe_preprocess), or the whole layer (no module): the
/// experts only, whose per-expert row counts change every step in a dropless layer (moe/README.md
/// "CUDA Graph": such a layer's dynamic shapes are not capturable); otherwise everything.
MoeHostLaunches moe_host_launches(CudaGraphImpl impl, std::uint8_t modules);

}  // namespace meshplan
