// The feature rules (strategy/strategy_rule.hpp): recomputation, activation offloading, the MoE
// all-to-all overlap, FP8 / NVFP4 recipes, the op fuser and CUDA graphs, as Megatron-core and
// Transformer Engine refuse them.
#include <fmt/format.h>

#include <array>

#include "strategy/fp8_recipe.hpp"
#include "strategy/strategy_rule.hpp"

namespace meshplan::strategy_rule {
namespace {

const std::array<Rule, 24> kFeatureRules{{
    {{"recompute.num-layers", "full recompute in blocks recomputes at most the layers of one stage chunk",
      "Megatron-core TransformerBlock (recompute_method=block)"},
     [](const Inputs& in) {
       const std::int64_t chunk = in.m.num_layers / std::max(1, in.s.pp * in.s.vpp);
       return in.s.recompute == Recompute::full && in.s.recompute_method == RecomputeMethod::block &&
              in.s.recompute_num_layers > chunk;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("recompute_num_layers={} exceeds the {} layers per pipeline chunk",
                               in.s.recompute_num_layers, in.m.num_layers / std::max(1, in.s.pp * in.s.vpp));
     }},
    {{"recompute.mla-up-proj", "mla_up_proj is recomputed only in multi-latent attention",
      "Megatron-core TransformerConfig.__post_init__ (recompute_modules)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.recompute == Recompute::selective &&
              (in.s.recompute_modules & kRecomputeMlaUpProj) != 0 && in.m.attention.kind != AttentionKind::mla;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("mla_up_proj in recompute_modules is only supported with multi_latent_attention; {} "
                               "uses standard attention",
                               in.m.name);
       v.valid = "recompute_modules without mla_up_proj";
     }},
    {{"offload.activations-layers", "Megatron-core offloads at most num_layers - 1 layers' activations",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading_num_layers)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers != kOffloadAllButLastLayer &&
              in.s.activation_offload_layers >= in.m.num_layers;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("cpu_offloading_num_layers={} is not below the model's {} layers",
                               in.s.activation_offload_layers, in.m.num_layers);
       v.valid = fmt::format("activation offload layers in 1..{}", in.m.num_layers - 1);
     }},
    {{"offload.activations-pp", "Megatron-core activation offloading runs without pipeline parallelism",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers > 0 && in.s.pp > 1;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("activation offloading with PP={}: Megatron-core has no support for pipeline "
                               "parallelism with CPU offloading",
                               in.s.pp);
       v.valid = "PP 1, or no activation offloading";
     }},
    {{"offload.activations-recompute", "Megatron-core activation offloading runs without recomputation",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers > 0 &&
              in.s.recompute != Recompute::none;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("activation offloading with recompute {}: Megatron-core's CPU offloading does not "
                               "work when activation recomputation is enabled",
                               in.s.recompute == Recompute::full ? "full" : "selective");
       v.valid = "recompute none, or no activation offloading";
     }},
    // EP all-to-all overlap: the refusals of TransformerConfig.__post_init__ (Megatron-core
    // transformer_config.py, "if self.overlap_moe_expert_parallel_comm:"), with its messages.
    {{"moe.a2a-overlap-ep", "EP all-to-all overlap needs expert parallelism (Megatron backend, MoE, EP > 1)",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) {
       return in.s.moe_a2a_overlap && (in.s.backend != Backend::megatron || !in.m.moe || in.s.ep <= 1);
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.s.backend != Backend::megatron
                       ? std::string("overlap_moe_expert_parallel_comm is a Megatron-core setting; the FSDP backend has no "
                                     "expert parallel all-to-all")
                       : fmt::format("overlap_moe_expert_parallel_comm is only supported with expert model parallelism "
                                     "(EP={}{})",
                                     in.s.ep, in.m.moe ? "" : fmt::format(", {} has no experts", in.m.name));
       v.valid = "EP > 1 on a MoE model, or no EP all-to-all overlap";
     }},
    {{"moe.a2a-overlap-gpt-model", "EP all-to-all overlap runs a GPT model, not a hybrid one (Mamba, MLP and MoE layers)",
      "Megatron-core pipeline_parallel/combined_1f1b.py calls the model's build_schedule_plan, which GPTModel "
      "defines and models/hybrid/hybrid_model.py HybridModel does not (Megatron-LM d98e8a64d)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.m.single_sublayer_layers(); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("overlap_moe_expert_parallel_comm schedules GPTModel layers (build_schedule_plan); {} is "
                               "built as a HybridModel, which has none",
                               in.m.name);
       v.valid = "no EP all-to-all overlap";
     }},
    {{"moe.a2a-overlap-vpp", "EP all-to-all overlap with pipeline parallelism needs interleaving (VPP > 1)",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.pp > 1 && in.s.vpp <= 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be specified when "
                               "pipeline_model_parallel_size > 1 (PP={})",
                               in.s.pp);
       v.valid = "VPP > 1, PP 1, or no EP all-to-all overlap";
     }},
    {{"moe.a2a-overlap-recompute", "EP all-to-all overlap runs without full recomputation and without recomputing the MoE layer",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) {
       return in.s.moe_a2a_overlap && (in.s.recompute == Recompute::full ||
                                       (in.s.recompute == Recompute::selective && (in.s.recompute_modules & kRecomputeMoe)));
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.s.recompute == Recompute::full
                       ? std::string("disable full recomputation when enabling overlap_moe_expert_parallel_comm")
                       : std::string("disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm");
       v.valid = "recompute none, or selective without moe";
     }},
    {{"moe.a2a-overlap-dtype", "EP all-to-all overlap runs a bf16 or fp16 model",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.compute_dtype == Dtype::fp32; },
     [](const Inputs&, Violation& v) {
       v.message = "overlap_moe_expert_parallel_comm is only supported with bf16 or fp16 model";
       v.valid = "bf16, fp16 or fp8 compute";
     }},
    {{"moe.a2a-overlap-mtp", "EP all-to-all overlap trains at most one MTP layer",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.train_mtp && in.m.num_mtp_layers > 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm ({} has {})",
                               in.m.name, in.m.num_mtp_layers);
       v.valid = "one MTP layer, MTP not trained, or no EP all-to-all overlap";
     }},
    // Transformer Engine's FP8 recipes and FP8 attention, where the GPU refuses them.
    {{"fp8.mxfp8-blackwell", "the mxfp8 FP8 recipe runs on NVIDIA Blackwell (compute capability 10.x)",
      "Transformer Engine quantization.py check_mxfp8_support (v2.14)"},
     [](const Inputs& in) {
       if (in.s.compute_dtype != Dtype::fp8 || in.s.fp8_recipe != Fp8Recipe::mxfp8 || in.s.backend != Backend::megatron) {
         return false;
       }
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.vendor == "NVIDIA" && !group.gpu.is_generation("blackwell")) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("Device compute capability 10.0 or higher required for MXFP8 execution ({})",
                               in.c.groups.front().gpu.id);
       v.valid = "--fp8-recipe delayed, tensorwise or blockwise, or a Blackwell GPU";
     }},
    // FP8 attention over learnable softmax offsets (gpt-oss's sinks; Megatron-core softmax_type
    // "learnable", which needs Transformer Engine 2.8+): from v2.8 through v2.14 every backend refuses
    // softmax_type != vanilla in FP8; from v2.15 FusedAttention takes it on sm >= 100 with cuDNN >=
    // 9.21 and FlashAttention and UnfusedDotProductAttention still refuse it
    // (dot_product_attention/utils.py get_attention_backend), so before Blackwell no version has a
    // backend.
    {{"fp8.attention-sinks-blackwell", "FP8 attention over attention sinks (gpt-oss) runs on NVIDIA Blackwell",
      "Transformer Engine dot_product_attention/utils.py get_attention_backend (v2.8-v2.14; v2.15-v2.18)"},
     [](const Inputs& in) {
       if (!in.s.fp8_attention || in.s.compute_dtype != Dtype::fp8 || in.s.backend != Backend::megatron ||
           !in.m.attention.sinks) {
         return false;
       }
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.vendor == "NVIDIA" && !group.gpu.is_generation("blackwell")) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("No dot product attention backend is available for the provided inputs ({}, {}: "
                               "Transformer Engine disables FusedAttention for softmax_type = learnable in FP8 on "
                               "sm < 100, FlashAttention and UnfusedDotProductAttention for it in FP8)",
                               in.m.name, in.c.groups.front().gpu.id);
       v.valid = "no --fp8-dot-product-attention (Transformer Engine's NVTE_DPA_FP8_RECIPE=F16 runs it in bf16), or a "
                 "Blackwell GPU";
     }},
    {{"fp4.nvfp4-blackwell", "NVFP4 (--dtype fp4) runs on NVIDIA Blackwell (compute capability 10.x and later)",
      "Transformer Engine quantization.py check_nvfp4_support (v2.14)"},
     [](const Inputs& in) {
       if (in.s.compute_dtype != Dtype::fp4) return false;
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(Dtype::fp4) <= 0) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(Dtype::fp4) > 0) continue;
         v.message = group.gpu.vendor == "NVIDIA"
                         ? fmt::format("Device compute capability 10.0 or higher required for NVFP4 execution ({})",
                                       group.gpu.id)
                         : fmt::format("{} has no NVFP4 tensor cores: Transformer Engine's NVFP4BlockScaling recipe "
                                       "runs on NVIDIA Blackwell",
                                       group.gpu.id);
         break;
       }
       v.valid = "--dtype fp8 or bf16, or a Blackwell GPU";
     }},
    {{"fp8.output-proj-mxfp8", "the output layer runs in FP8 under the mxfp8 recipe only",
      "Megatron-core TransformerConfig.__post_init__ (fp8_output_proj, d0b3b775)"},
     [](const Inputs& in) {
       return in.s.fp8_output_proj && in.s.compute_dtype == Dtype::fp8 && in.s.backend == Backend::megatron &&
              in.s.fp8_recipe != Fp8Recipe::mxfp8;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("fp8_output_proj requires fp8_recipe='mxfp8', got '{}'.", fp8_recipe_name(in.s.fp8_recipe));
       v.valid = "--fp8-recipe mxfp8, or no --fp8-output-proj";
     }},
    // TEGroupedMLP.__init__ asserts _is_fused_impl_supported() under use_transformer_engine_op_fuser
    // (Megatron-core moe/experts.py at d0b3b775): no expert tensor parallelism among what it checks.
    {{"moe.op-fuser-etp", "Transformer Engine's op fuser runs the experts without expert tensor parallelism",
      "Megatron-core TEGroupedMLP._is_fused_impl_supported (moe/experts.py)"},
     [](const Inputs& in) { return in.s.te_op_fuser && in.s.backend == Backend::megatron && in.m.moe && in.s.etp > 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("Fused GroupedMLP is not supported for this configuration (use_transformer_engine_op_fuser "
                               "with expert tensor parallelism {}: Tensor parallelism is not supported)",
                               in.s.etp);
       v.valid = "ETP 1, or no Transformer Engine op fuser";
     }},
    // Both flex backends refuse more SMs than the GPU has. DeepEP launches its dispatch and combine
    // kernels with num_sms cooperative blocks of one SM each (v1.2.1 csrc/kernels/launch.cuh
    // SETUP_LAUNCH_CONFIG: cudaLaunchAttributeCooperative; Megatron-LM fused_a2a.py set_deepep_num_sms
    // -> Buffer.set_num_sms), which CUDA refuses past what the SMs can hold
    // (cudaErrorCooperativeLaunchTooLarge; public H20 notes: 96 SMs fail on its 78); HybridEP's
    // configurer asserts sm_count >= its dispatch and combine SMs (DeepEP hybrid-ep branch
    // csrc/hybrid_ep/config.cuh).
    {{"moe.flex-sms-gpu", "a flex dispatcher's kernels run on at most the GPU's SMs",
      "DeepEP v1.2.1 csrc/kernels/launch.cuh SETUP_LAUNCH_CONFIG (cooperative launch); HybridEP config.cuh"},
     [](const Inputs& in) {
       if (in.s.moe_dispatcher != MoeDispatcher::flex || in.s.moe_dispatcher_sms <= 0 || !in.m.moe) return false;
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.sm_count > 0 && in.s.moe_dispatcher_sms > group.gpu.sm_count) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       int fewest = 0;
       std::string gpu;
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.sm_count > 0 && (fewest == 0 || group.gpu.sm_count < fewest)) {
           fewest = group.gpu.sm_count;
           gpu = group.gpu.id;
         }
       }
       v.message = fmt::format("the flex dispatcher's {} SMs exceed {}'s {}: DeepEP launches one cooperative block "
                               "per SM, which CUDA refuses past the SMs (cudaErrorCooperativeLaunchTooLarge), and "
                               "HybridEP asserts its SM counts within the device's",
                               in.s.moe_dispatcher_sms, gpu, fewest);
       v.valid = fmt::format("at most {} SMs (DeepEP's default 20)", fewest);
     }},
    // CUDA graphs: the refusals of TransformerConfig.__post_init__ (Megatron-core
    // transformer_config.py, "if self.cuda_graph_impl != \"none\":"), with its messages.
    {{"graph.megatron", "CUDA graphs of the training step are a Megatron-core setting",
      "Megatron-core TransformerConfig.cuda_graph_impl"},
     [](const Inputs& in) { return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.backend != Backend::megatron; },
     [](const Inputs&, Violation& v) {
       v.message = "cuda_graph_impl is a Megatron-core setting; the FSDP backend runs the training step eagerly";
       v.valid = "the Megatron backend, or cuda_graph_impl none";
     }},
    {{"graph.full-recompute", "full recomputation runs only under a full-iteration CUDA graph",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.cuda_graph_impl != CudaGraphImpl::full_iteration &&
              in.s.recompute == Recompute::full;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("full recompute is only supported with full iteration CUDA graph (cuda_graph_impl={})",
                               cuda_graph_impl_name(in.s.cuda_graph_impl));
       v.valid = "cuda_graph_impl full_iteration, or selective / no recompute";
     }},
    {{"graph.cpu-offload", "per-layer CUDA graphs run without activation offloading",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl, cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.cuda_graph_impl != CudaGraphImpl::full_iteration &&
              in.s.activation_offload_layers > 0;
     },
     [](const Inputs&, Violation& v) {
       v.message = "CUDA graphs not supported with CPU offloading.";
       v.valid = "cuda_graph_impl full_iteration or none, or no activation offloading";
     }},
    {{"graph.moe-modules", "the moe and moe_router graph modules capture a MoE model's layers, one of them at a time",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules)"},
     [](const Inputs& in) {
       const std::uint8_t modules = in.s.cuda_graph_modules;
       const bool moe_module = (modules & (kGraphMoe | kGraphMoeRouter)) != 0;
       return (moe_module && !in.m.moe) || ((modules & kGraphMoe) && (modules & kGraphMoeRouter));
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.m.moe ? std::string("cuda_graph_modules must not contain both moe and moe_router.")
                            : fmt::format("moe cuda graph is only supported for MoE ({} has no experts)", in.m.name);
       v.valid = "moe or moe_router on a MoE model";
     }},
    {{"graph.mlp-dense-layers", "the mlp graph module captures dense MLP layers, which a model of MoE layers only lacks",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules, moe_layer_freq)"},
     [](const Inputs& in) {
       return (in.s.cuda_graph_impl == CudaGraphImpl::local || in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine) &&
              (in.s.cuda_graph_modules & kGraphMlp) && in.m.moe && in.m.moe->num_moe_layers >= in.m.num_layers;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("mlp cuda graph is only supported for dense layers, but not found in the model ({} has "
                               "{} MoE layers of {})",
                               in.m.name, in.m.moe->num_moe_layers, in.m.num_layers);
       v.valid = "attn, moe_router, moe_preprocess without mlp";
     }},
    {{"graph.moe-preprocess", "the moe_preprocess graph module comes with moe_router",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules)"},
     [](const Inputs& in) {
       // The local impl adds the missing one itself; Transformer Engine's refuses.
       return in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine &&
              (in.s.cuda_graph_modules & kGraphMoePreprocess) && !(in.s.cuda_graph_modules & kGraphMoeRouter);
     },
     [](const Inputs&, Violation& v) {
       v.message = "moe_preprocess cuda graph is only supported with moe_router cuda graph.";
       v.valid = "moe_router with moe_preprocess";
     }},
    {{"graph.moe-recompute", "Transformer Engine's graphed router runs without recomputing the MoE layer",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl, recompute_modules)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine && (in.s.cuda_graph_modules & kGraphMoeRouter) &&
              in.s.recompute == Recompute::selective && (in.s.recompute_modules & kRecomputeMoe);
     },
     [](const Inputs&, Violation& v) {
       v.message = "moe recompute is not supported with moe_router CUDA graph with: --cuda-graph-impl transformer_engine.";
       v.valid = "moe out of recompute_modules, or moe_router out of cuda_graph_modules";
     }},
}};

}  // namespace

std::span<const Rule> feature_rules() { return kFeatureRules; }

}  // namespace meshplan::strategy_rule
