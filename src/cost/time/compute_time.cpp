#include "cost/time/compute_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/memory/vision_activations.hpp"
#include "cost/time/attention_kernels.hpp"
#include "cost/time/mamba_kernels.hpp"
#include "model/flops.hpp"
#include "model/mtp_module.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16/fp16 activations (fp8 GEMMs keep 16-bit tensors)

// Unfused attention (Megatron 2021: masked softmax in its own kernel) writes and reads the
// 5·a·s bytes per token of score-sized tensors that Korthikanti et al. 2022 Table 2 lists
// (QKᵀ 2, softmax 2, dropout mask 1 ... per score element): ~2 × 5 bytes of traffic per score.
constexpr double kUnfusedScoreBytes = 10.0;

// Vocab-parallel cross-entropy (Megatron tensor_parallel/cross_entropy.py) reads the logits,
// writes and reads fp32 exp/softmax and writes the gradient: ~4 passes of 4 bytes per logit.
constexpr double kCrossEntropyBytesPerLogit = 16.0;

// Transformer Engine casts every fp8 GEMM's 16-bit input before the GEMM (Float8CurrentScaling-
// and MXFP8Quantizer, transformer_engine/pytorch/tensor/): one read of 2 bytes and two writes of 1
// byte, the row-wise copy for the GEMM and the column-wise one for the weight gradient, per input
// element; the backward casts the output gradients the same way (backward = 2 x forward).
constexpr double kFp8CastBytesPerElement = 4.0;
// NVFP4 (Transformer Engine NVFP4Quantizer::quantize_impl, pytorch/csrc/quantizer.cpp at v2.14) adds
// an amax pass (the input's and, under the random Hadamard transform, the transformed transpose's),
// the Hadamard transform of the column-wise copy and stochastic rounding of the gradients. Measured
// against MXFP8's: Transformer Engine's GEMM profiling guide on B300 (docs/examples/gemm_profiling/
// gemm_profiling.rst at d0067d0da, a layer of hidden 4096, intermediate 16384, 15,872 tokens) times
// the quantization as autocast minus pre-quantized, 6.453 - 3.764 = 2.689 ms NVFP4 against 8.984 -
// 7.161 = 1.823 ms MXFP8: 1.475 times the fp8 casts' bytes.
constexpr double kNvfp4CastBytesPerElement = kFp8CastBytesPerElement * (6.453 - 3.764) / (8.984 - 7.161);

/// What a low-precision GEMM's input costs to cast, per element; 0 for 16-bit GEMMs.
double cast_bytes_per_element(Dtype compute_dtype) {
  if (compute_dtype == Dtype::fp8) return kFp8CastBytesPerElement;
  if (compute_dtype == Dtype::fp4) return kNvfp4CastBytesPerElement;
  return 0.0;
}

/// The dtype of what the low-precision recipes leave in 16 bits: attention (Transformer Engine's
/// NVFP4 recipe has no fp4 attention, FP8 attention is --fp8-dot-product-attention's) and the output
/// layer.
Dtype sixteen_bit_part_dtype(Dtype compute_dtype) {
  return compute_dtype == Dtype::fp8 || compute_dtype == Dtype::fp4 ? Dtype::bf16 : compute_dtype;
}

/// The output layer's GEMM dtype: Megatron-core builds it as tensor_parallel.ColumnParallelLinear,
/// outside Transformer Engine's autocast (models/gpt/gpt_model.py at 2edffadb), in 16 bits; from
/// d0b3b775 a TE linear under MXFP8 with fp8_output_proj (fp8_utils.py is_mxfp8_output_proj_active).
Dtype head_dtype(const Strategy& strategy) {
  const bool mxfp8_head = strategy.fp8_output_proj && strategy.compute_dtype == Dtype::fp8 &&
                          strategy.fp8_recipe == Fp8Recipe::mxfp8 && strategy.backend == Backend::megatron;
  return mxfp8_head ? Dtype::fp8 : sixteen_bit_part_dtype(strategy.compute_dtype);
}

// Adam with fp32 master weights: read master, m, v, grad (16 B), write master, m, v (12 B) and
// the 16-bit weights (2 B) per parameter (ZeRO paper §3.1 byte counts, one pass each).
constexpr double kAdamBytesPerParam = 30.0;

// Megatron-core MoE router: fp32 logits written, read by the score function (softmax/sigmoid),
// read by top-k, probabilities scattered to [tokens, E]: ~4 passes of 4 bytes per logit.
constexpr double kRouterBytesPerLogit = 16.0;

/// Elements per token of one rank whose fp8 cast is a kernel of its own, forward, in Megatron-core's
/// Transformer Engine layer spec (gpt_layer_specs.py at d98e8a64dd): the QKV projection, the dense
/// MLP's FC1 and MLA's up projections are TELayerNormColumnParallelLinear, whose norm kernel writes
/// the fp8 input itself, so they add none. What casts apart: the output projection's input
/// (TERowParallelLinear, split over TP), the dense MLP's FC2 input (after Megatron's own SwiGLU), MLA's
/// two down projections (TELinear on the normed hidden state), and in a MoE layer (a separate
/// pre-MLP norm) the k routed rows' FC1 and FC2 inputs (TEGroupedMLP) and the shared experts'.
/// The hidden state is split over TP only with sequence parallelism. A linear-attention layer's
/// output projection reads its value width (Mamba-2's inner width, mamba_mixer.py out_proj); in a
/// hybrid of one-sublayer layers only the mixer layers cast a mixer's input, only the MLP layers an MLP's.
double fp8_cast_elements_per_token(const ModelSpec& model, const Strategy& strategy, double layers_per_stage,
                                   double moe_layers) {
  const double t = strategy.tp;
  const double column_split = strategy.sequence_parallel ? t : 1.0;
  const double h = static_cast<double>(model.hidden_size);
  const AttentionSpec& a = model.attention;
  const bool mla = a.kind == AttentionKind::mla;
  const double value_dim = static_cast<double>(a.num_heads) * static_cast<double>(mla ? a.v_head_dim : a.head_dim);
  const double per_model_layer = layers_per_stage / static_cast<double>(std::max<std::int64_t>(model.num_layers, 1));
  double elements = per_model_layer * static_cast<double>(model.num_attention_layers()) *
                    ((mla ? 2.0 * h / column_split : 0.0) + value_dim / t);
  if (model.linear_attention) {
    const LinearAttentionSpec& linear = *model.linear_attention;
    elements += per_model_layer * static_cast<double>(linear.num_layers) *
                static_cast<double>(linear.num_value_heads * linear.value_head_dim) / t;
  }
  const double dense_layers = model.single_sublayer_layers()
                                  ? per_model_layer * static_cast<double>(model.num_dense_layers)
                                  : std::max(0.0, layers_per_stage - moe_layers);
  elements += dense_layers * static_cast<double>(model.dense_mlp.intermediate_size) / t;
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    // A LatentMoE's rows are latent-wide, and its fc2_latent_proj casts the combined latent rows.
    const double routed_h = static_cast<double>(model.expert_hidden_size());
    const double routed = static_cast<double>(moe.experts_per_token) *
                          (routed_h + static_cast<double>(moe.expert_intermediate_size) / strategy.etp) / t;
    const double shared = moe.num_shared_experts > 0
                              ? h / column_split + static_cast<double>(moe.shared_intermediate_size) / t
                              : 0.0;
    const double latent = moe.latent_size > 0 ? routed_h / column_split : 0.0;
    elements += moe_layers * (routed + shared + latent);
  }
  return elements;
}

/// Elements per routed row that gpt-oss-style experts read or write outside a fused kernel,
/// forward-equivalent (a third of forward + backward, as the model's backward is 2 x forward), in
/// Megatron-core's TEGroupedMLP (megatron/core/transformer/moe/experts.py and
/// fusions/fused_bias_geglu.py at 2edffadb, NeMo 26.04.01):
/// - a clamped GLU (activation_func_clamp_value): weighted_bias_quick_geglu_impl clamps the two
///   halves of FC1's output and concatenates them before the fused kernel: forward two clamps
///   (read + write f each) and the cat (read + write 2f), 8f; backward the clamps' masks (read input
///   and gradient, write gradient: 6f) and the halves' gradients joined (4f): 18f in all, 6f a pass;
/// - FC2's bias (add_bias_linear): _apply_bias adds bias x routing prob per expert in a Python loop
///   and concatenates: forward b*p (write h), the add (read 2h, write h), the cat (read h, write h),
///   6h; backward the bias's and the prob's gradients (a product and a sum each, 6h): 12h, 4h a pass.
/// FC1's bias is added inside the fused activation, so it costs nothing apart. Under Transformer
/// Engine's op fuser (Strategy::te_op_fuser) both are inside the fused ops: none.
double expert_epilogue_elements(const MoeSpec& moe, double h, const Strategy& strategy) {
  if (strategy.te_op_fuser && strategy.backend == Backend::megatron) return 0.0;
  const double f = static_cast<double>(moe.expert_intermediate_size) / strategy.etp;
  return (moe.glu_clamp_limit > 0 ? 6.0 * f : 0.0) + (moe.expert_linear_bias ? 4.0 * h : 0.0);
}

/// Hugging Face modeling (the FSDP backend) runs the flash-attn package's FlashAttention-2, whose
/// kernels are the Ampere generation's: on Hopper they reach about 60% of cuDNN's rate (Shah et al.
/// 2024 §4.1). Elsewhere, and under Megatron-core (Transformer Engine), cuDNN's rate: on Blackwell
/// as cuDNN measured it on GB200 and GB300 (attention_kernels.hpp), on other GPUs H100's share.
AttentionKernel attention_kernel(const Strategy& strategy, const TimeOptions& options, const GpuSpec& gpu) {
  const bool hugging_face = strategy.backend == Backend::fsdp && options.hf_modeling;
  if (hugging_face && gpu.is_generation("hopper")) return AttentionKernel::flash_attention_2;
  if (gpu.is_generation("blackwell ultra")) return AttentionKernel::cudnn_blackwell_ultra;
  if (gpu.is_generation("blackwell")) return AttentionKernel::cudnn_blackwell;
  return AttentionKernel::cudnn;
}

/// Transformer Engine's FP8 attention (Strategy::fp8_attention, --dtype fp8, Megatron backend) at
/// cuDNN's FP8 or MXFP8 bars, by the recipe, where they were measured: Blackwell, and Hopper at head
/// dim 128 (cuDNN 9.19 refused FP8 at 64 on H200; whether a newer cuDNN takes it is not known here).
/// Elsewhere BF16's bars, as the trace says.
AttentionPrecision attention_precision(const Strategy& strategy, const ModelSpec& model, const GpuSpec& gpu) {
  if (!strategy.fp8_attention || strategy.compute_dtype != Dtype::fp8 || strategy.backend != Backend::megatron) {
    return AttentionPrecision::bf16;
  }
  const bool hopper_128 = gpu.is_generation("hopper") && model.attention.head_dim == 128;
  if (!gpu.is_generation("blackwell") && !hopper_128) return AttentionPrecision::bf16;
  return strategy.fp8_recipe == Fp8Recipe::mxfp8 ? AttentionPrecision::mxfp8 : AttentionPrecision::fp8;
}

/// Fraction of the stage's decoder layers that full recomputation redoes.
double full_recompute_fraction(const Strategy& strategy, double layers_per_stage) {
  if (strategy.recompute_method == RecomputeMethod::block && strategy.recompute_num_layers > 0) {
    // Megatron `--recompute-method block`: the first N layers of each virtual chunk.
    return std::min(1.0, strategy.recompute_num_layers * static_cast<double>(strategy.vpp) / layers_per_stage);
  }
  return 1.0;  // uniform: every layer is recomputed
}


/// Forward FLOPs per token that selective recompute redoes (Megatron-core recompute_modules):
/// core attention (Korthikanti et al. 2022 §5), the dense MLPs, the MoE layer or its shared
/// experts, MLA's up projections. Norms and activation functions move bytes, not FLOPs.
double selective_recompute_flops(const ForwardFlops& f, std::uint16_t modules) {
  double flops = 0;
  if (modules & kRecomputeCoreAttn) flops += f.attention_scores;
  if (modules & kRecomputeMlp) flops += f.dense_mlp;
  if (modules & kRecomputeMoe) {
    flops += f.routed_experts + f.routers + f.latent_projections + f.shared_experts;
  } else if (modules & kRecomputeSharedExperts) {
    flops += f.shared_experts;
  }
  if (modules & kRecomputeMlaUpProj) flops += f.mla_up_projections;
  return flops;
}

}  // namespace

double compute_peak_flops(const GpuSpec& gpu, Dtype dtype) {
  const double peak = gpu.peak_flops(dtype);
  return peak > 0 ? peak : gpu.peak_flops(Dtype::fp16);
}

double moe_load_factor(const ModelSpec& model, const Strategy& strategy, const TimeOptions& options) {
  if (!model.moe || strategy.ep <= 1 || !options.moe_dropless_imbalance) return 1.0;
  // A rank's share sums its E/EP experts' shares: its spread is the experts' / sqrt(E/EP); the
  // largest of EP such shares lies about sqrt(2 ln EP) spreads above the mean.
  const double ep = static_cast<double>(strategy.ep);
  const double local_experts = std::max(1.0, static_cast<double>(model.moe->num_experts) / ep);
  return 1.0 + options.constants.moe_expert_load_cv * std::sqrt(2.0 * std::log(ep) / local_experts);
}

double mtp_forward_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len) {
  if (!strategy.train_mtp || model.num_mtp_layers <= 0) return 0.0;
  // Per depth the module's own layers, its eh_proj (2h -> h) and the output layer again, as
  // Megatron-LM counts a step's model FLOPs (training.py num_floating_point_operations: the MTP
  // layers among the layers, "MTP norms and proj", logits x (1 + mtp_num_layers)).
  const ForwardFlops module = forward_flops_per_token(mtp_module_model(model), seq_len);
  const double h = static_cast<double>(model.hidden_size);
  const double depth = module.attention_projections + module.attention_scores + module.mlp + 2.0 * 2.0 * h * h +
                       module.lm_head;
  return static_cast<double>(strategy.mtp_depths_run(model.num_mtp_layers)) * depth;
}

double trained_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len) {
  const ForwardFlops forward = forward_flops_per_token(model, seq_len);
  const double mtp = mtp_forward_flops_per_token(model, strategy, seq_len);
  const double full = train_flops_per_token(model, seq_len) + 3.0 * mtp;
  if (strategy.lora.rank <= 0) return full;
  // LoRA: the frozen weights' GEMMs have no weight gradient (Hu et al. 2021 §4.2): forward plus
  // input gradient, 4 of the 6 FLOPs per parameter per token (adapters negligible at small rank).
  return full - (forward.attention_projections + forward.mlp + forward.lm_head);
}

double hardware_flops_per_token(const ModelSpec& model, const Strategy& strategy, std::int64_t seq_len) {
  const ForwardFlops forward = forward_flops_per_token(model, seq_len);
  const double layers = forward.attention_projections + forward.attention_scores + forward.mlp;
  double recomputed = 0;
  if (strategy.recompute == Recompute::full) {
    const double stage_layers = static_cast<double>(max_stage_layers(model.num_layers, strategy));
    recomputed = layers * full_recompute_fraction(strategy, stage_layers);
  } else if (strategy.recompute == Recompute::selective) {
    recomputed = selective_recompute_flops(forward, strategy.recompute_modules);
  }
  return trained_flops_per_token(model, strategy, seq_len) + recomputed;
}

StageCompute stage_compute(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                           std::int64_t seq_len, int micro_batch, const TimeOptions& options, Trace* trace) {
  const GpuSpec& gpu = node.gpu;
  const EfficiencyConstants& constants = options.constants;
  const double t = strategy.tp;
  const double cp = strategy.cp;
  const double h = static_cast<double>(model.hidden_size);
  // The slowest stage sets the pipeline's pace: its layers (L / p when the split is even).
  const double layers_per_stage = static_cast<double>(max_stage_layers(model.num_layers, strategy));
  const double layer_share = layers_per_stage / static_cast<double>(model.num_layers);
  // Tokens of one micro-batch on this rank's sequence chunk (context parallel splits s).
  const double tokens = static_cast<double>(micro_batch) * static_cast<double>(seq_len) / cp;

  const ForwardFlops flops = forward_flops_per_token(model, seq_len);
  const double routed = flops.routed_experts;
  const double dense_gemm = flops.attention_projections + flops.mlp - routed;
  const double gemm_peak = compute_peak_flops(gpu, strategy.compute_dtype);
  const double attention_peak = compute_peak_flops(gpu, sixteen_bit_part_dtype(strategy.compute_dtype));

  // The stage's layers that first_last_layers_bf16 keeps in 16 bits run their GEMMs at the 16-bit
  // rate (fp8_utils.py is_first_last_bf16_layer); the others at the compute dtype's.
  const double bf16_share = strategy.bf16_layer_share(model.num_layers, layers_per_stage);
  const auto seconds_per_flop = [&](const GemmShape& shape) {
    const double low = 1.0 / (gemm_peak * gemm_efficiency(node, strategy.compute_dtype, shape, constants));
    if (bf16_share <= 0) return low;
    const double sixteen = 1.0 / (compute_peak_flops(gpu, Dtype::bf16) * gemm_efficiency(node, Dtype::bf16, shape, constants));
    return (1.0 - bf16_share) * low + bf16_share * sixteen;
  };
  // Dense GEMMs: every weight matrix split over TP (dense_gemm_shape).
  const GemmShape dense_shape = dense_gemm_shape(flops, h, static_cast<double>(model.num_layers), tokens, t);
  const double dense_eff = gemm_efficiency(node, strategy.compute_dtype, dense_shape, constants);
  const double dense_s = dense_gemm * tokens * layer_share / t * seconds_per_flop(dense_shape);
  // Routed experts: each local expert sees tokens·k·EP/E rows (balanced routing). Megatron-core's
  // TEGroupedMLP runs them as Transformer Engine GroupedLinear, one GEMM per local expert, so
  // each GEMM is as small as its rows: the dense curve, then the grouped-GEMM row penalty.
  // With a trained router's imbalance the most loaded EP rank computes `load` times the mean rows,
  // and the combine all-to-all waits for it (parallel_comm.cpp).
  const double load = moe_load_factor(model, strategy, options);
  double expert_s = 0;
  double expert_rows = 0;
  double expert_eff = 0;
  if (model.moe && routed > 0) {
    const MoeSpec& moe = *model.moe;
    expert_rows = tokens / t * moe.experts_per_token * strategy.ep / std::max<double>(moe.num_experts, 1);
    // An expert's two matrices (fc1, gated or not, and fc2) of input width h (a LatentMoE's latent
    // width): their widths sum to its parameters over that width, split over ETP.
    const double expert_in = static_cast<double>(model.expert_hidden_size());
    const double expert_width = static_cast<double>(moe.routed_expert_params) / expert_in / 2.0 / strategy.etp;
    const GemmShape expert_shape{expert_rows, expert_in, expert_width};
    const double row_penalty = 1.0 + constants.expert_gemm_half_rows / std::max(expert_rows, 1.0);
    expert_eff = gemm_efficiency(node, strategy.compute_dtype, expert_shape, constants) / row_penalty;
    expert_s = load * routed * tokens * layer_share / t * seconds_per_flop(expert_shape) * row_penalty;
  }
  // Attention scores: causal fused kernels do half of the s×s work Megatron counts, at the rate
  // their kernel reaches for blocks of s / cp keys (attention_kernels.hpp; the same share of every
  // GPU's peak): cuDNN's under Megatron-core, FlashAttention-2 under Hugging Face modeling on
  // Hopper. Unfused attention (two batched GEMMs around a softmax kernel of its own, counted
  // below) does the whole s×s at the full-mask rate.
  // The fused kernels' rate depends on the head dimension too (head dim 64: 0.79 of 128's share
  // at 4k causal keys under cuDNN); the unfused batched GEMMs keep head dim 128's full-mask
  // share, as fit.
  // A sliding-window layer (gpt-oss's alternate layers) scores a band of `window` keys per query:
  // no causal half, at the rate of a causal pass over that many keys (the shortest bar, 512, for
  // a shorter window: optimistic, stated in attention_kernels.hpp). Llama 4's chunked layers are
  // causal within each chunk: the half again, at the same rate.
  const double causal = options.flash_attention ? 0.5 : 1.0;
  const AttentionKernel kernel = attention_kernel(strategy, options, gpu);
  const AttentionPrecision precision = options.flash_attention ? attention_precision(strategy, model, gpu) : AttentionPrecision::bf16;
  const double head_dim = static_cast<double>(model.attention.head_dim);
  const double attention_eff =
      options.flash_attention
          ? ring_attention_peak_fraction(static_cast<double>(seq_len), cp, true, kernel, head_dim, precision)
          : attention_kernel_peak_fraction(static_cast<double>(seq_len), false, kernel);
  const double band_scores = options.flash_attention ? flops.windowed_attention_scores : 0.0;
  const double window_keys = static_cast<double>(model.attention.sliding_window);
  const double band_eff =
      band_scores > 0 ? attention_window_peak_fraction(window_keys, kernel, head_dim, precision) : 1.0;
  // Mamba-2's SSD scan (counted with the scores, as Megatron counts it) has no causal half and runs
  // mamba_ssm's chunked kernels, at their measured share of the 16-bit peak (mamba_kernels.hpp).
  const double ssd_scan_s = flops.state_space_scan * tokens * layer_share / t / (attention_peak * kSsdScanPeakShare);
  double attention_s = (flops.attention_scores - band_scores - flops.state_space_scan) * tokens * layer_share / t * causal /
                           (attention_peak * attention_eff) +
                       band_scores * (model.attention.chunked_window ? causal : 1.0) * tokens * layer_share / t /
                           (attention_peak * band_eff);
  if (!options.flash_attention) {
    const double scores = tokens * static_cast<double>(seq_len) * model.attention.num_heads / t;
    attention_s += kUnfusedScoreBytes * scores * layers_per_stage / gpu.memory_bandwidth_Bps;
  }
  // Memory-bound kernels: norms, dropout, residuals, activation, bias (Korthikanti's 34·s·b·h
  // activation bytes are written and read); sequence parallel splits them over TP.
  // Hugging Face modeling code (the FSDP backend) runs RMSNorm, SwiGLU and rotary as separate
  // eager kernels (transformers models/qwen2/modeling_qwen2.py: Qwen2RMSNorm upcasts to fp32,
  // pow, mean, rsqrt, mul, cast, mul) where Megatron-core calls one fused TE kernel each.
  const double elementwise_split = strategy.sequence_parallel ? t : 1.0;
  const double hf_factor = strategy.backend == Backend::fsdp && options.hf_modeling ? constants.hf_elementwise_factor : 1.0;
  // A single-sublayer layer (Nemotron-H) runs one sublayer's norm, residual and activation: half.
  double elementwise_s = hf_factor * constants.elementwise_passes * tokens * h * kActivationBytes * layers_per_stage *
                         model.sublayer_share() / elementwise_split / gpu.memory_bandwidth_Bps;
  // Mamba-2 layers' conv and SSD kernels move their chunk states and layouts through HBM (heads split by TP).
  // Their backward moves more than twice the forward's bytes (mamba_kernels.hpp): the excess over
  // the 2x every forward term gets is added to the backward alone.
  double mamba_memory_s = 0;
  double mamba_backward_excess_s = 0;
  if (model.linear_attention) {
    const double mamba_layers = static_cast<double>(model.linear_attention->num_layers) * layer_share;
    const double per_byte_s = tokens * mamba_layers / t / gpu.memory_bandwidth_Bps;
    const double forward_bytes = mamba2_kernel_bytes_per_token(*model.linear_attention);
    mamba_memory_s = forward_bytes * per_byte_s;
    mamba_backward_excess_s =
        std::max(0.0, mamba2_backward_kernel_bytes_per_token(*model.linear_attention) - 2.0 * forward_bytes) * per_byte_s;
    elementwise_s += mamba_memory_s;
  }
  // MoE token permutation (Megatron-core moe_utils.permute / unpermute): each token's hidden state
  // (a LatentMoE's latent one: fc1_latent_proj runs before dispatch_preprocess) is read once and
  // written k times in expert order, then read k times and written once. The
  // router (moe/router.py TopKRouter: fp32 logits, score function, top-k, probabilities
  // scattered back to [tokens, E]) makes ~4 passes over 4-byte logits.
  const double moe_layers = model.moe ? static_cast<double>(model.moe->num_moe_layers) * layer_share : 0.0;
  double moe_memory_s = 0;
  if (moe_layers > 0) {
    const double k = static_cast<double>(model.moe->experts_per_token);
    const double experts = static_cast<double>(model.moe->num_experts);
    // The alltoall dispatcher also sorts the received rows by local expert and back (Megatron-LM
    // d98e8a64d, megatron/core/transformer/moe/token_dispatcher.py MoEAlltoAllTokenDispatcher
    // dispatch_postprocess / combine_preprocess, sort_chunks_by_idxs, when a rank holds more than
    // one expert): two more reads and writes of the k rows; the flex and allgather dispatchers
    // permute once, on the receiving side.
    const bool sorts_chunks = strategy.moe_dispatcher == MoeDispatcher::alltoall && experts / strategy.ep > 1.0;
    const double routed_h = static_cast<double>(model.expert_hidden_size());
    const double moe_bytes = (2.0 * k + 2.0 + (sorts_chunks ? 4.0 * k : 0.0)) * routed_h * kActivationBytes +
                             kRouterBytesPerLogit * experts +
                             k * expert_epilogue_elements(*model.moe, routed_h, strategy) * kActivationBytes;
    moe_memory_s = load * moe_bytes * tokens * moe_layers / elementwise_split / gpu.memory_bandwidth_Bps;
    elementwise_s += moe_memory_s;
  }
  // fp8 and NVFP4 GEMMs (strategy.compute_dtype) read casts of their inputs: memory-bound, per
  // element, so they weigh most where a GEMM is thin (a small expert's ffn_e, a small hidden size); a
  // cast fused into the norm before the GEMM costs nothing more.
  const double fp8_cast_s = (1.0 - bf16_share) * cast_bytes_per_element(strategy.compute_dtype) * tokens *
                            fp8_cast_elements_per_token(model, strategy, layers_per_stage, moe_layers) /
                            gpu.memory_bandwidth_Bps;

  // A MoE layer whose kernels are shorter than the host time that launches them runs at the
  // host's pace: the dispatcher's per-layer device sync stops the host from running ahead. What
  // a CUDA graph captures is replayed by one launch (strategy/cuda_graphs.hpp).
  const double gpu_forward_s = dense_s + expert_s + attention_s + ssd_scan_s + elementwise_s + fp8_cast_s;
  // The GPU time of a layer with a token mixer and a MoE (the fit's unit): two single-sublayer layers.
  const double gpu_layer_s = gpu_forward_s / std::max(layers_per_stage, 1.0) / model.sublayer_share();
  const double local_experts = model.moe ? static_cast<double>(model.moe->num_experts) / strategy.ep : 0.0;
  const MoeHostLaunches launches = moe_host_launches(strategy.cuda_graph_impl, strategy.cuda_graph_modules);
  const double host_layer_s = (launches.layer ? constants.moe_layer_host_seconds : 0.0) +
                              (launches.experts ? constants.moe_expert_host_seconds * local_experts : 0.0);
  const double host_wait_s = moe_layers * std::max(0.0, host_layer_s - gpu_layer_s);

  StageCompute stage;
  stage.layers_forward_s = gpu_forward_s + host_wait_s;
  stage.attention_forward_s = attention_s;
  stage.moe_host_wait_forward_s = host_wait_s;
  double recomputed_host_wait_s = 0;  // the host wait a recomputed forward repeats
  // Narayanan 2021 §5.1: bwd = 2 × fwd (autograd launches about twice the kernels too): each
  // GEMM's input gradient and its weight gradient. LoRA freezes the base weights (Hu et al. 2021
  // §4.2: no gradients for W0), so their GEMMs compute only the input gradient in the backward;
  // attention, memory-bound kernels and the host time stay at 2 x.
  const bool frozen_base = strategy.lora.rank > 0;
  stage.layers_backward_s = (frozen_base ? 2.0 * stage.layers_forward_s - dense_s - expert_s
                                         : 2.0 * stage.layers_forward_s) +
                            mamba_backward_excess_s;
  if (strategy.recompute == Recompute::full) {
    stage.recompute_s = stage.layers_forward_s * full_recompute_fraction(strategy, layers_per_stage);
    recomputed_host_wait_s = host_wait_s * full_recompute_fraction(strategy, layers_per_stage);
  } else if (strategy.recompute == Recompute::selective) {
    // Megatron-core recompute_modules: the GEMM parts at the dense GEMMs' pace by their FLOPs,
    // the MoE layer with its routed experts, memory-bound kernels and host launches; norms
    // ("layernorm": MLA's input norm, MoE layers' pre-MLP norm) and the routed experts' SwiGLU
    // ("moe_act": read 2 x ffn_e, write ffn_e) at HBM speed.
    const std::uint16_t modules = strategy.recompute_modules;
    const double per_gemm_flop = dense_gemm > 0 ? dense_s / dense_gemm : 0.0;
    double gemm_flops = selective_recompute_flops(flops, modules) - ((modules & kRecomputeCoreAttn) ? flops.attention_scores : 0.0);
    double recompute_s = (modules & kRecomputeCoreAttn) ? attention_s : 0.0;
    if (modules & kRecomputeMoe) {
      gemm_flops -= flops.routed_experts;
      recompute_s += expert_s + moe_memory_s + host_wait_s;
      recomputed_host_wait_s = host_wait_s;
    }
    recompute_s += gemm_flops * per_gemm_flop;
    const double norm_layers = ((model.attention.kind == AttentionKind::mla) ? layers_per_stage : 0.0) + moe_layers;
    if (modules & kRecomputeLayernorm) {
      recompute_s += 2.0 * kActivationBytes * tokens * h * norm_layers / elementwise_split / gpu.memory_bandwidth_Bps;
    }
    if (model.moe && (modules & kRecomputeMoeAct) && !(modules & kRecomputeMoe)) {
      const double rows = tokens / t * static_cast<double>(model.moe->experts_per_token);
      const double width = static_cast<double>(model.moe->expert_intermediate_size) / strategy.etp;
      recompute_s += 3.0 * kActivationBytes * rows * width * moe_layers / gpu.memory_bandwidth_Bps;
    }
    stage.recompute_s = recompute_s;
  }
  stage.moe_host_wait_s = 3.0 * host_wait_s + recomputed_host_wait_s;  // forward, backward (2x), recomputed
  // Output layer on the last stage: logits GEMM split over TP (vocab-parallel), 3 passes (2 with
  // LoRA: the LM head is frozen, PEFT's all-linear leaves it out), plus the memory-bound
  // cross-entropy over the [tokens, V/t] logits.
  const double vocab = static_cast<double>(model.vocab_size);
  const Dtype head = head_dtype(strategy);
  const double head_eff = gemm_efficiency(node, head, GemmShape{tokens, h, vocab / t}, constants);
  const double head_forward = flops.lm_head * tokens / t / (compute_peak_flops(gpu, head) * head_eff);
  const double cross_entropy = kCrossEntropyBytesPerLogit * tokens * vocab / t / gpu.memory_bandwidth_Bps;
  stage.lm_head_forward_s = head_forward + cross_entropy / 2.0;
  stage.lm_head_s = (frozen_base ? 2.0 : 3.0) * head_forward + cross_entropy;
  // Trained MTP modules on the last stage: per depth the module's own layers, costed as a stage of
  // them (mtp_module_model: a Nemotron-H module's "*E" is an attention and a MoE layer, Qwen3-Next's
  // a full-attention layer), forward, backward and what the strategy recomputes of them, and its own
  // pass through the output layer and loss (Megatron-core multi_token_prediction.py; DeepSeek-V3
  // report §2.2); mtp_use_repeated_layer runs one module at mtp_num_layers depths.
  double mtp_depths = 0;
  StageCompute mtp_layers;
  if (strategy.train_mtp && model.num_mtp_layers > 0) {
    mtp_depths = static_cast<double>(strategy.mtp_depths_run(model.num_mtp_layers));
    const ModelSpec module = mtp_module_model(model);
    mtp_layers = stage_compute(module, node, mtp_module_strategy(strategy, module.num_layers), seq_len, micro_batch,
                               options, nullptr);
    stage.lm_head_forward_s += mtp_depths * (mtp_layers.layers_forward_s + stage.lm_head_forward_s);
    stage.lm_head_s += mtp_depths * (mtp_layers.layers_total() + stage.lm_head_s);
  }

  if (trace) {
    trace->push_back({"time/compute/dense_gemm", dense_s, "seconds",
                      "fwd_flops_per_token(dense) * tokens * L_stage/L / t / (peak * eff); eff = fraction / (1 + d0/rows "
                      "+ d0/in + d0/out), out the layer's matrices' mean width over t; the bf16 share of the stage's "
                      "layers (first_last_layers_bf16) at the bf16 peak and eff",
                      fmt::format("flops/token={:.4g}, tokens={:.0f}, L_stage={}, t={}, peak={:.4g}, rows={:.0f}, in={:.0f}, "
                                  "out={:.0f}, d0={:.4g}, eff={:.3f}, bf16 share={:.3f}",
                                  dense_gemm, tokens, layers_per_stage, strategy.tp, gemm_peak, dense_shape.rows,
                                  dense_shape.in, dense_shape.out, constants.gemm_half_size, dense_eff, bf16_share),
                      fmt::format("model/flops.hpp; cost/time/efficiency.cpp (eff: {})",
                                  gemm_peak_basis_name(gemm_peak_basis(node, strategy.compute_dtype)))});
    if (expert_s > 0) {
      trace->push_back({"time/compute/routed_experts", expert_s, "seconds",
                        "load * routed_flops_per_token * tokens * L_stage/L / t / (peak * eff(rows, h, expert width/etp) / "
                        "(1 + r0/rows))",
                        fmt::format("rows/expert={:.0f}, r0={}, eff={:.3f}, load={:.3g} ({})", expert_rows,
                                    constants.expert_gemm_half_rows, expert_eff, load,
                                    !options.moe_dropless_imbalance ? "balanced routing"
                                    : strategy.ep > 1               ? "dropless imbalance: the most loaded EP rank"
                                                                    : "EP 1: every expert on this GPU"),
                        "model/flops.hpp (top-k experts); Megatron-core TEGroupedMLP; "
                        "docs/accuracy-held-out-training.md (dropless vs force-balanced runs)"});
    }
    if (moe_layers > 0) {
      trace->push_back({"time/compute/moe_host_wait", host_wait_s, "seconds",
                        "moe_layers_stage * max(0, host_layer + host_expert * E/ep - gpu_per_layer), forward (bwd 2x); "
                        "a part a CUDA graph captures costs no host time",
                        fmt::format("moe_layers={:.1f}, host={:.4g} s, local_experts={:.0f}, gpu/layer={:.4g} s, "
                                    "cuda_graph_impl={}{}",
                                    moe_layers, host_layer_s, local_experts, gpu_layer_s,
                                    cuda_graph_impl_name(strategy.cuda_graph_impl),
                                    strategy.cuda_graph_impl == CudaGraphImpl::none ||
                                            strategy.cuda_graph_impl == CudaGraphImpl::full_iteration
                                        ? std::string()
                                        : " modules=" + (strategy.cuda_graph_modules == 0
                                                             ? std::string("whole layer")
                                                             : cuda_graph_module_names(strategy.cuda_graph_modules))),
                        "Megatron-core token_dispatcher.py _maybe_dtoh_and_synchronize; TE grouped_linear.py; "
                        "Megatron-core moe/README.md \"CUDA Graph\""});
    }
    trace->push_back({"time/compute/attention_scores", attention_s, "seconds",
                      "score_flops * tokens * L_stage/L / t * causal / (peak * kernel_share(s/cp, head_dim)) [+ window band / (peak * kernel_share(window))] [+ unfused softmax traffic]",
                      fmt::format("causal={}, flash={}, s={}, cp={}, kernel={}, head_dim={}, kernel_share={:.3f}{}", causal,
                                  options.flash_attention, seq_len, strategy.cp,
                                  attention_kernel_name(kernel),
                                  model.attention.head_dim, attention_eff,
                                  band_scores > 0 ? fmt::format(", {}={} keys on {} layers at kernel_share={:.3f}",
                                                                model.attention.chunked_window ? "chunk" : "window",
                                                                model.attention.sliding_window,
                                                                model.attention.num_sliding_layers, band_eff)
                                                  : std::string()) +
                          (strategy.fp8_attention && strategy.compute_dtype == Dtype::fp8
                               ? fmt::format(", attention in fp8 at {} bars", precision == AttentionPrecision::bf16
                                                                                  ? "bf16 (no FP8 bars measured for this GPU and head dim)"
                                                                                  : attention_precision_name(precision))
                               : std::string()),
                      "Narayanan 2021 Eq. 3 (full s×s counted); FlashAttention computes the causal half; "
                      "cuDNN's (Transformer Engine) or FlashAttention-2's (Hugging Face) bars on H100, Shah et al. 2024 "
                      "(FlashAttention-3) §4.1"});
    if (ssd_scan_s > 0) {
      trace->push_back({"time/compute/ssd_scan", ssd_scan_s, "seconds",
                        "7 x inner x state FLOPs per token and Mamba layer * tokens * L_stage/L / t / (bf16 peak * ssd_share)",
                        fmt::format("flops/token={:.4g}, tokens={:.0f}, t={}, ssd_share={:.4f}", flops.state_space_scan, tokens,
                                    strategy.tp, kSsdScanPeakShare),
                        "Megatron-LM training.py mamba_layer_flops (\"scan\"); cost/time/mamba_kernels.hpp (TileLang's "
                        "SSD chunk-scan benchmark on H800)"});
    }
    trace->push_back({"time/compute/elementwise", elementwise_s, "seconds",
                      "(hf ? hf_factor : 1) * passes * tokens * h * 2 B * L_stage * sublayer share / (SP ? t : 1) / HBM_Bps + MoE permute (2k+2)*h*2 B (+ 4k*h*2 B: alltoall sorts by local expert) + router 16 B * E + k * expert epilogue * 2 B (a clamped GLU 6f, FC2's bias 4h), per token + Mamba-2 conv and SSD bytes * tokens * Mamba layers / t",
                      fmt::format("passes={}, tokens={:.0f}, h={}, sublayer share={}, HBM={:.4g} B/s, expert epilogue={:.0f} elements a row, mamba={:.4g} s",
                                  constants.elementwise_passes, tokens, model.hidden_size, model.sublayer_share(),
                                  gpu.memory_bandwidth_Bps,
                                  model.moe ? expert_epilogue_elements(*model.moe, static_cast<double>(model.expert_hidden_size()), strategy) : 0.0, mamba_memory_s),
                      "Korthikanti et al. 2022 Table 2 (34·s·b·h activation bytes per layer); Megatron-core "
                      "moe/experts.py TEGroupedMLP._apply_bias, fusions/fused_bias_geglu.py weighted_bias_quick_geglu_impl; "
                      "cost/time/mamba_kernels.hpp (mamba_ssm ssd_combined.py)"});
    if (mamba_backward_excess_s > 0) {
      trace->push_back({"time/compute/mamba_backward", mamba_backward_excess_s, "seconds",
                        "(Mamba-2 backward bytes - 2 x forward bytes) per token * tokens * Mamba layers / t / HBM_Bps, "
                        "backward only (the rest of it is the forward's 2x)",
                        fmt::format("forward={:.0f} B, backward={:.0f} B per token and layer, tokens={:.0f}, t={}",
                                    mamba2_kernel_bytes_per_token(*model.linear_attention),
                                    mamba2_backward_kernel_bytes_per_token(*model.linear_attention), tokens, strategy.tp),
                        "cost/time/mamba_kernels.hpp (mamba_ssm ssd_combined.py MambaSplitConv1dScanCombinedFn.backward, "
                        "_mamba_chunk_scan_combined_bwd)"});
    }
    if (fp8_cast_s > 0) {
      trace->push_back({"time/compute/fp8_cast", fp8_cast_s, "seconds",
                        "bytes/element * tokens * elements cast apart per token (output projection, dense FC2, MLA down projections, k routed rows, shared experts) / HBM_Bps, forward (bwd 2x); fp8 4 B, NVFP4 5.9 B",
                        fmt::format("bytes/element={:.4g}, elements/token={:.4g}, tokens={:.0f}",
                                    cast_bytes_per_element(strategy.compute_dtype),
                                    fp8_cast_elements_per_token(model, strategy, layers_per_stage, moe_layers), tokens),
                        "Transformer Engine Float8CurrentScalingQuantizer / MXFP8Quantizer (row-wise + column-wise casts); "
                        "NVFP4Quantizer::quantize_impl (amax pass, row-wise and Hadamard-transformed column-wise casts)"});
    }
    trace->push_back({"time/compute/recompute", stage.recompute_s, "seconds",
                      "full: forward of recomputed layers; selective: the forward of each recomputed module",
                      strategy.recompute == Recompute::selective
                          ? fmt::format("modules={}", recompute_module_names(strategy.recompute_modules))
                          : std::string(),
                      "Korthikanti et al. 2022 §5; Megatron-core transformer_config.py recompute_modules"});
    trace->push_back({"time/compute/lm_head", stage.lm_head_s, "seconds",
                      "3 * 2*V*h*tokens/t / (peak*eff) + 16 B * tokens * V/t / HBM_Bps; the GEMM in bf16 under fp8 and NVFP4 (in fp8 with --fp8-output-proj under mxfp8); "
                      "+ per trained MTP depth its module's layers, costed as a stage of them (forward, backward, recompute), and the above again",
                      fmt::format("head dtype={}", compute_dtype_name(head_dtype(strategy))) +
                          (mtp_depths > 0 ? fmt::format(", MTP depths={:.0f}, module layers forward+backward={:.4g} s",
                                                        mtp_depths, mtp_layers.layers_total())
                                          : std::string()),
                      "Megatron vocab-parallel output layer and cross-entropy; Megatron-core gpt_model.py output_layer "
                      "(tensor_parallel.ColumnParallelLinear, outside Transformer Engine's fp8 autocast); "
                      "multi_token_prediction.py MultiTokenPredictionLayer"});
  }
  return stage;
}

double vision_tower_seconds(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                            double sequences, double images, double pixels, const TimeOptions& options,
                            Trace* trace) {
  if (!model.vision || images <= 0 || pixels <= 0 || sequences <= 0) return 0.0;
  const VisionSpec& vision = *model.vision;
  const double patches = vision_patches_per_image(vision, pixels);
  const double merge = static_cast<double>(vision.spatial_merge_size * vision.spatial_merge_size);
  // flops.vision is per merged (language-model) token: patches / merge^2 of them per image.
  const double lm_tokens = sequences * images * patches / std::max(merge, 1.0);
  const double forward = forward_flops_per_token(model, 1).vision * lm_tokens;
  const double t = strategy.tp;
  // The tower's matrices as one width, its hidden size split over TP (an approximation: its MLP is wider).
  const double vision_hidden = static_cast<double>(vision.hidden_size);
  const double eff = gemm_efficiency(node, strategy.compute_dtype, GemmShape{patches * images, vision_hidden, vision_hidden / t},
                                     options.constants);
  const double seconds = 3.0 * forward / t / (compute_peak_flops(node.gpu, strategy.compute_dtype) * eff);
  if (trace) {
    trace->push_back({"time/compute/vision_tower", seconds, "seconds",
                      "3 * vision_flops_per_merged_token * merged_tokens / t / (peak * eff)",
                      fmt::format("images={}, patches/image={:.0f}, sequences={}", images, patches, sequences),
                      "model/flops.hpp (vision tower per merged token)"});
  }
  return seconds;
}

double optimizer_step_seconds(double optimizer_params, const NodeGroup& node, Trace* trace) {
  const double seconds = kAdamBytesPerParam * optimizer_params / node.gpu.memory_bandwidth_Bps;
  if (trace) {
    trace->push_back({"time/compute/optimizer_step", seconds, "seconds",
                      "30 B * the rank's optimizer params (dense / (DP*CP) + experts / expert DP, if sharded) / HBM_Bps",
                      fmt::format("params={:.4g}", optimizer_params),
                      "ZeRO (Rajbhandari et al. 2020) §3.1 state sizes"});
  }
  return seconds;
}

GemmShape dense_gemm_shape(const ForwardFlops& flops, double hidden, double layers, double rows, double tp) {
  const double per_layer = 2.0 * hidden * std::max(layers, 1.0);
  const double attention_width = flops.attention_projections / per_layer;
  // The MLP's matrices: dense MLPs and shared experts, not the routers (a gate of E outputs, a
  // sliver of the FLOPs that would count as a block of its own).
  const double mlp_width = (flops.mlp - flops.routed_experts - flops.routers) / per_layer;
  const double matrices = (attention_width > 0 ? 2.0 : 0.0) + (mlp_width > 0 ? 2.0 : 0.0);
  return GemmShape{rows, hidden, (attention_width + mlp_width) / std::max(matrices, 1.0) / tp};
}

}  // namespace meshplan
