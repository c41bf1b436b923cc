#include "cost/calibration/megatron_settings.hpp"

#include <string>
#include <vector>

#include "strategy/fp8_recipe.hpp"
#include "strategy/pipeline_layout.hpp"

namespace meshplan {
namespace {

// Megatron-core TransformerConfig.moe_hybridep_num_sms's default (transformer_config.py:809 at
// 2edffadb, the pin of Megatron-Bridge 26.04).
constexpr int kHybridEpDefaultSms = 16;

}  // namespace

Status apply_megatron_recompute(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& granularity = settings.value("recompute_granularity", nlohmann::json());
  if (granularity == "full") {
    strategy.recompute = Recompute::full;
    strategy.recompute_method =
        settings.value("recompute_method", nlohmann::json()) == "block" ? RecomputeMethod::block : RecomputeMethod::uniform;
    const nlohmann::json& layers = settings.value("recompute_num_layers", nlohmann::json());
    strategy.recompute_num_layers = layers.is_number() ? layers.get<int>() : 1;
  } else if (granularity == "selective") {
    strategy.recompute = Recompute::selective;
    const nlohmann::json& modules = settings.value("recompute_modules", nlohmann::json());
    if (!modules.is_array()) return Ok{};
    strategy.recompute_modules = 0;
    for (const auto& name : modules) {
      const auto module = name.is_string() ? recompute_module_of(name.get<std::string>()) : std::nullopt;
      if (!module) return Error{"", 0, "recompute_modules", "unknown module " + name.dump()};
      strategy.recompute_modules |= *module;
    }
  }
  return Ok{};
}

void apply_megatron_optimizer(const nlohmann::json& settings, Strategy& strategy) {
  if (settings.value("use_precision_aware_optimizer", nlohmann::json()) != true) return;
  const auto bytes = [&](const char* key) { return settings.value(key, nlohmann::json()) == "torch.bfloat16" ? 2.0 : 4.0; };
  strategy.adam_moment_bytes = bytes("exp_avg_dtype") + bytes("exp_avg_sq_dtype");
}

void apply_megatron_sharding_and_offload(const nlohmann::json& settings, Strategy& strategy) {
  if (settings.value("use_megatron_fsdp", nlohmann::json()) == true) {
    strategy.zero = settings.value("data_parallel_sharding_strategy", nlohmann::json()) == "optim_grads" ? ZeroStage::zero2
                                                                                                        : ZeroStage::zero3;
    strategy.distributed_optimizer = true;
  }
  // Megatron-core DistributedDataParallelConfig.grad_reduce_in_fp32 (or an FSDP MixedPrecisionPolicy's
  // reduce_dtype, as a row records it).
  const nlohmann::json& fp32_reduce = settings.value("grad_reduce_in_fp32", nlohmann::json());
  if (fp32_reduce.is_boolean()) strategy.grad_reduce_in_fp32 = fp32_reduce.get<bool>();
  // Megatron-core fp8_param_gather: weights gathered in fp8 under the per-tensor recipes; MXFP8's
  // in bf16 through the gradient buffer (reuse_grad_buf_for_mxfp8_param_ag; Strategy::fp8_param_gather).
  const nlohmann::json& recipe = settings.value("fp8_recipe", nlohmann::json());
  if (settings.value("fp8_param_gather", nlohmann::json()).is_boolean()) {
    strategy.fp8_param_gather = settings["fp8_param_gather"].get<bool>() && (recipe == "delayed" || recipe == "tensorwise");
  }
  const nlohmann::json& layers = settings.value("cpu_offloading_num_layers", nlohmann::json());
  if (settings.value("cpu_offloading", nlohmann::json()) == true && layers.is_number()) {
    strategy.activation_offload_layers = layers.get<int>();
  }
}

Status apply_megatron_pipeline_layout(const nlohmann::json& settings, Strategy& strategy) {
  // Megatron-core account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split: an
  // even split counts the embedding and the loss as a layer each (Strategy::pipeline_counts_embedding).
  strategy.pipeline_counts_embedding = settings.value("account_for_embedding_in_pipeline_split", nlohmann::json()) == true;
  strategy.pipeline_counts_loss = settings.value("account_for_loss_in_pipeline_split", nlohmann::json()) == true;
  const nlohmann::json& layout = settings.value("pipeline_model_parallel_layout", nlohmann::json());
  if (layout.is_string()) {
    strategy.pipeline_layout = layout.get<std::string>();
  } else if (layout.is_array()) {
    strategy.pipeline_layout = pipeline_layout_from_names(layout.get<std::vector<std::vector<std::string>>>());
  } else {
    return Ok{};
  }
  const auto parsed = parse_pipeline_layout(strategy.pipeline_layout);
  if (!parsed.ok()) return Error{"", 0, "pipeline_model_parallel_layout", parsed.error().message};
  strategy.vpp = layout_vpp(*parsed, strategy.pp);
  strategy.first_stage_layers = 0;
  strategy.last_stage_layers = 0;
  return Ok{};
}

void apply_megatron_a2a_overlap(const nlohmann::json& settings, Strategy& strategy) {
  strategy.moe_a2a_overlap = settings.value("overlap_moe_expert_parallel_comm", nlohmann::json()) == true ||
                             settings.value("moe_a2a_overlap", nlohmann::json()) == true;
}

void apply_megatron_dispatcher(const nlohmann::json& settings, Strategy& strategy) {
  strategy.moe_dispatcher = settings.value("moe_token_dispatcher_type", nlohmann::json()) == "flex" ? MoeDispatcher::flex
                                                                                                  : MoeDispatcher::alltoall;
  // The SMs of the backend that runs: Megatron-core gives DeepEP moe_deepep_num_sms (default 20)
  // and HybridEP moe_hybridep_num_sms (default 16; transformer_config.py:809 at 2edffadb), and
  // moe_flex_dispatcher_backend defaults to "deepep" (:757). A recipe sets both counts whichever
  // backend it runs (Megatron-Bridge 26.04.01's B200 DeepSeek-V3: DeepEP, moe_hybridep_num_sms 16).
  const bool hybridep = settings.value("moe_flex_dispatcher_backend", nlohmann::json()) == "hybridep";
  strategy.moe_dispatcher_sms = hybridep ? kHybridEpDefaultSms : 0;  // 0: DeepEP's default (moe_dispatch.cpp)
  for (const char* key : {hybridep ? "moe_hybridep_num_sms" : "moe_deepep_num_sms", "moe_flex_dispatcher_num_sms"}) {
    if (settings.contains(key) && settings[key].is_number_integer()) {
      strategy.moe_dispatcher_sms = settings[key].get<int>();
      break;
    }
  }
}

Status apply_megatron_cuda_graphs(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& impl = settings.value("cuda_graph_impl", nlohmann::json());
  strategy.cuda_graph_impl = impl.is_string() ? cuda_graph_impl_of(impl.get<std::string>()).value_or(CudaGraphImpl::none)
                                              : CudaGraphImpl::none;
  if (settings.value("enable_cuda_graph", nlohmann::json()) == true) strategy.cuda_graph_impl = CudaGraphImpl::local;
  if (settings.value("external_cuda_graph", nlohmann::json()) == true) {
    strategy.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  }
  strategy.cuda_graph_modules = 0;
  const nlohmann::json& scope = settings.value("cuda_graph_scope", nlohmann::json());
  if (!scope.is_array()) return Ok{};
  for (const auto& name : scope) {
    if (name == "full_iteration") {
      strategy.cuda_graph_impl = CudaGraphImpl::full_iteration;
      continue;
    }
    const auto module = name.is_string() ? cuda_graph_module_of(name.get<std::string>()) : std::nullopt;
    if (!module) return Error{"", 0, "cuda_graph_scope", "unknown module " + name.dump()};
    strategy.cuda_graph_modules |= *module;
  }
  if (strategy.cuda_graph_impl == CudaGraphImpl::full_iteration) strategy.cuda_graph_modules = 0;
  return Ok{};
}

void apply_megatron_mtp(const nlohmann::json& settings, Strategy& strategy) {
  const nlohmann::json& layers = settings.value("mtp_num_layers", nlohmann::json());
  strategy.train_mtp = layers.is_number_integer() && layers.get<int>() > 0;
  // mtp_use_repeated_layer runs the model's one module at mtp_num_layers depths (Nemotron 3 Super: 2).
  const bool repeated = settings.value("mtp_use_repeated_layer", nlohmann::json()) == true;
  strategy.mtp_depths = strategy.train_mtp && repeated ? layers.get<int>() : 0;
}

void apply_megatron_kernels(const nlohmann::json& settings, Strategy& strategy) {
  strategy.te_op_fuser = settings.value("use_transformer_engine_op_fuser", nlohmann::json()) == true;
  // The FP8 recipe and FP8 attention, where the run trains in FP8 (MixedPrecisionConfig.fp8 set).
  if (settings.value("fp8", nlohmann::json()).is_string()) {
    const nlohmann::json& recipe = settings.value("fp8_recipe", nlohmann::json());
    if (recipe.is_string()) strategy.fp8_recipe = parse_fp8_recipe(recipe.get<std::string>()).value_or(Fp8Recipe::delayed);
    strategy.fp8_attention = settings.value("fp8_dot_product_attention", nlohmann::json()) == true;
    strategy.fp8_output_proj = settings.value("fp8_output_proj", nlohmann::json()) == true;
  }
  // NVFP4 (MixedPrecisionConfig.fp4 set): its weights gathered as NVFP4 where the recipe says so.
  if (settings.value("fp4", nlohmann::json()).is_string()) {
    strategy.fp4_param_gather = settings.value("fp4_param_gather", nlohmann::json()) == true;
  }
  // first_last_layers_bf16 with MixedPrecisionConfig's counts, which it copies onto the model's
  // config (Megatron-Bridge mixed_precision.py: both 0 unless the recipe sets them).
  if (settings.value("first_last_layers_bf16", nlohmann::json()) == true) {
    const auto count = [&settings](const char* key) {
      const nlohmann::json& value = settings.value(key, nlohmann::json());
      return value.is_number_integer() ? value.get<int>() : 0;
    };
    strategy.bf16_first_layers = count("num_layers_at_start_in_bf16");
    strategy.bf16_last_layers = count("num_layers_at_end_in_bf16");
  }
}

std::optional<bool> megatron_tp_comm_overlap(const nlohmann::json& settings, const Strategy& strategy) {
  const nlohmann::json& effective = settings.value("tp_comm_overlap_effective", nlohmann::json());
  if (effective.is_boolean()) return effective.get<bool>();
  const nlohmann::json& requested = settings.value("tp_comm_overlap", nlohmann::json());
  if (!settings.contains("tp_comm_overlap")) return std::nullopt;
  return requested == true && strategy.tp > 1 && strategy.sequence_parallel;
}

Status apply_megatron_settings(const nlohmann::json& settings, Strategy& strategy) {
  if (auto status = apply_megatron_recompute(settings, strategy); !status.ok()) return status;
  apply_megatron_sharding_and_offload(settings, strategy);
  if (auto status = apply_megatron_pipeline_layout(settings, strategy); !status.ok()) return status;
  apply_megatron_a2a_overlap(settings, strategy);
  apply_megatron_dispatcher(settings, strategy);
  if (auto status = apply_megatron_cuda_graphs(settings, strategy); !status.ok()) return status;
  apply_megatron_mtp(settings, strategy);
  const nlohmann::json& etp = settings.value("expert_tensor_parallel_size", nlohmann::json());
  if (etp.is_number_integer()) strategy.etp = etp.get<int>();
  apply_megatron_kernels(settings, strategy);
  return Ok{};
}

}  // namespace meshplan
