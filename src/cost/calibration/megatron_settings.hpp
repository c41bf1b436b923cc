#pragma once
// A measured run's Megatron-core settings (the TransformerConfig / DDP / optimizer fields a
// Megatron-Bridge recipe or a Megatron-LM launch set, by their Megatron-core names) applied to
// the Strategy its table gives: what the table leaves out and the model represents. The
// settings come from tests/fixtures/nemo_recipe_settings.json (Megatron-Bridge recipes, read by
// tools/extract_nemo_recipe_settings.py) or a row's own "settings"
// (tests/fixtures/published_runs_megatron_moe_modelzoo.json).
#include <nlohmann/json.hpp>
#include <optional>

#include "core/result.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

/// recompute_granularity / method / num_layers / modules (a selective run that lists no modules
/// gets Megatron-core's default).
Status apply_megatron_recompute(const nlohmann::json& settings, Strategy& strategy);

/// The precision-aware optimizer (use_precision_aware_optimizer): Adam's moments in
/// exp_avg_dtype / exp_avg_sq_dtype.
void apply_megatron_optimizer(const nlohmann::json& settings, Strategy& strategy);

/// Megatron-FSDP (use_megatron_fsdp with data_parallel_sharding_strategy optim_grads_params =
/// ZeRO-3, optim_grads = ZeRO-2), Megatron-core's cpu_offloading_num_layers, grad_reduce_in_fp32 and
/// fp8_param_gather.
void apply_megatron_sharding_and_offload(const nlohmann::json& settings, Strategy& strategy);

/// pipeline_model_parallel_layout (a string or a list of stages), with the VPP it implies.
Status apply_megatron_pipeline_layout(const nlohmann::json& settings, Strategy& strategy);

/// overlap_moe_expert_parallel_comm (Megatron-Bridge 25.11's scripts: moe_a2a_overlap).
void apply_megatron_a2a_overlap(const nlohmann::json& settings, Strategy& strategy);

/// moe_token_dispatcher_type ("flex" with DeepEP or HybridEP, else "alltoall") and the flex
/// dispatcher's SMs.
void apply_megatron_dispatcher(const nlohmann::json& settings, Strategy& strategy);

/// cuda_graph_impl with cuda_graph_scope (Megatron-core migrates the deprecated scope
/// "full_iteration" to cuda_graph_impl="full_iteration" and reads the deprecated "full" scope, or
/// none, as the whole layer); enable_cuda_graph and external_cuda_graph are the older names of the
/// local and transformer_engine impls.
Status apply_megatron_cuda_graphs(const nlohmann::json& settings, Strategy& strategy);

/// mtp_num_layers: Megatron-core builds and trains that many multi-token-prediction layers on the
/// last stage (multi_token_prediction.py), so a run that sets it trains the model's MTP layers.
void apply_megatron_mtp(const nlohmann::json& settings, Strategy& strategy);

/// use_transformer_engine_op_fuser, and under FP8 (`fp8` set) fp8_recipe and
/// fp8_dot_product_attention: which kernels the experts and attention run.
void apply_megatron_kernels(const nlohmann::json& settings, Strategy& strategy);

/// tp_comm_overlap as Megatron-Bridge resolves it (training/comm_overlap.py: the userbuffers
/// overlap needs TP > 1 and sequence parallelism): the settings' tp_comm_overlap_effective where
/// given, else tp_comm_overlap with the strategy's TP and sequence parallelism; nullopt where the
/// settings name neither.
std::optional<bool> megatron_tp_comm_overlap(const nlohmann::json& settings, const Strategy& strategy);

/// Everything a step time depends on: recomputation, sharding and offloading, pipeline layout,
/// EP overlap, dispatcher, CUDA graphs, MTP and kernels, and expert_tensor_parallel_size where given.
Status apply_megatron_settings(const nlohmann::json& settings, Strategy& strategy);

}  // namespace meshplan
