#pragma once
// A Megatron-Bridge performance row's recipe (tests/fixtures/nemo_recipe_settings.json, read from
// Megatron-Bridge's source at the row's release by tools/extract_nemo_recipe_settings.py) applied
// to the Strategy the published table gives: what the table leaves out and the model represents.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "strategy/pipeline_layout.hpp"
#include "strategy/strategy.hpp"

namespace meshplan::test {

/// The recipe's activation recomputation (TransformerConfig recompute_granularity / method /
/// num_layers / modules; a selective recipe that lists no modules gets Megatron-core's default).
inline void apply_recipe_recompute(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& granularity = settings["recompute_granularity"];
  if (granularity == "full") {
    strategy.recompute = Recompute::full;
    strategy.recompute_method = settings["recompute_method"] == "block" ? RecomputeMethod::block : RecomputeMethod::uniform;
    strategy.recompute_num_layers = settings["recompute_num_layers"].is_number() ? settings["recompute_num_layers"].get<int>() : 1;
  } else if (granularity == "selective") {
    strategy.recompute = Recompute::selective;
    const nlohmann::json& modules = settings["recompute_modules"];
    if (!modules.is_array()) return;
    strategy.recompute_modules = 0;
    for (const auto& name : modules) {
      const auto module = recompute_module_of(name.get<std::string>());
      REQUIRE_MESSAGE(module.has_value(), name);
      strategy.recompute_modules |= *module;
    }
  }
}

/// The recipe's precision-aware optimizer (OptimizerConfig.use_precision_aware_optimizer): Adam's
/// moments in exp_avg_dtype / exp_avg_sq_dtype (Megatron-Bridge's DeepSeek-V3 recipes: bf16).
inline void apply_recipe_optimizer(const nlohmann::json& settings, Strategy& strategy) {
  if (settings["use_precision_aware_optimizer"] != true) return;
  const auto bytes = [&](const char* key) { return settings[key] == "torch.bfloat16" ? 2.0 : 4.0; };
  strategy.adam_moment_bytes = bytes("exp_avg_dtype") + bytes("exp_avg_sq_dtype");
}

/// The recipe's data-parallel sharding and activation offloading: Megatron-FSDP
/// (ddp.use_megatron_fsdp with data_parallel_sharding_strategy optim_grads_params = ZeRO-3,
/// optim_grads = ZeRO-2) and Megatron-core's cpu_offloading_num_layers.
inline void apply_recipe_sharding_and_offload(const nlohmann::json& settings, Strategy& strategy) {
  if (settings["use_megatron_fsdp"] == true) {
    const nlohmann::json& sharding = settings["data_parallel_sharding_strategy"];
    strategy.zero = sharding == "optim_grads" ? ZeroStage::zero2 : ZeroStage::zero3;
    strategy.distributed_optimizer = true;
  }
  if (settings["cpu_offloading"] == true && settings["cpu_offloading_num_layers"].is_number()) {
    strategy.activation_offload_layers = settings["cpu_offloading_num_layers"].get<int>();
  }
}

/// The recipe's custom pipeline layout (TransformerConfig.pipeline_model_parallel_layout: Megatron-
/// Bridge's DeepSeek-V3 recipes give it as a string or as a list of stages), with the VPP it implies.
inline void apply_recipe_pipeline_layout(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& layout = settings["pipeline_model_parallel_layout"];
  if (layout.is_string()) {
    strategy.pipeline_layout = layout.get<std::string>();
  } else if (layout.is_array()) {
    strategy.pipeline_layout = pipeline_layout_from_names(layout.get<std::vector<std::vector<std::string>>>());
  } else {
    return;
  }
  const auto parsed = parse_pipeline_layout(strategy.pipeline_layout);
  REQUIRE_MESSAGE(parsed.ok(), strategy.pipeline_layout);
  strategy.vpp = layout_vpp(*parsed, strategy.pp);
  strategy.first_stage_layers = 0;
  strategy.last_stage_layers = 0;
}

/// The recipe's EP all-to-all overlap: TransformerConfig.overlap_moe_expert_parallel_comm (Bridge
/// 25.11's performance scripts named it moe_a2a_overlap), instead of the source's convention.
inline void apply_recipe_a2a_overlap(const nlohmann::json& settings, Strategy& strategy) {
  strategy.moe_a2a_overlap = settings["overlap_moe_expert_parallel_comm"] == true || settings["moe_a2a_overlap"] == true;
}

/// The recipe's token dispatcher: TransformerConfig.moe_token_dispatcher_type ("flex" with the
/// DeepEP or HybridEP backend, else "alltoall").
inline void apply_recipe_dispatcher(const nlohmann::json& settings, Strategy& strategy) {
  strategy.moe_dispatcher = settings["moe_token_dispatcher_type"] == "flex" ? MoeDispatcher::flex : MoeDispatcher::alltoall;
  strategy.moe_dispatcher_sms = 0;
  for (const char* key : {"moe_flex_dispatcher_num_sms", "moe_hybridep_num_sms", "moe_deepep_num_sms"}) {
    if (settings.contains(key) && settings[key].is_number_integer()) {
      strategy.moe_dispatcher_sms = settings[key].get<int>();
      break;
    }
  }
}

/// The recipe's CUDA graphs: TransformerConfig.cuda_graph_impl with cuda_graph_scope (Megatron-core
/// migrates the deprecated scope "full_iteration" to cuda_graph_impl="full_iteration", and reads
/// the deprecated "full" scope, or none, as the whole layer); enable_cuda_graph and
/// external_cuda_graph are the older names of the local and transformer_engine impls.
inline void apply_recipe_cuda_graphs(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& impl = settings["cuda_graph_impl"];
  strategy.cuda_graph_impl = impl.is_string() ? cuda_graph_impl_of(impl.get<std::string>()).value_or(CudaGraphImpl::none)
                                              : CudaGraphImpl::none;
  if (settings["enable_cuda_graph"] == true) strategy.cuda_graph_impl = CudaGraphImpl::local;
  if (settings["external_cuda_graph"] == true) strategy.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  strategy.cuda_graph_modules = 0;
  const nlohmann::json& scope = settings["cuda_graph_scope"];
  if (!scope.is_array()) return;
  for (const auto& name : scope) {
    if (name == "full_iteration") {
      strategy.cuda_graph_impl = CudaGraphImpl::full_iteration;
      continue;
    }
    const auto module = cuda_graph_module_of(name.get<std::string>());
    REQUIRE_MESSAGE(module.has_value(), name);
    strategy.cuda_graph_modules |= *module;
  }
  if (strategy.cuda_graph_impl == CudaGraphImpl::full_iteration) strategy.cuda_graph_modules = 0;
}

}  // namespace meshplan::test
