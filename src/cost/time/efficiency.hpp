#pragma once
// Achieved efficiency of the kernels a training step runs, as a small function of their size,
// with a handful of global constants fit once on ../shared/calibration/published_runs.json
// (tools/fit_efficiency.sh, docs/accuracy.md). Nothing here is fit per case.
#include <string_view>

#include "hardware/cluster.hpp"

namespace meshplan {

/// The global constants of the time model. Defaults are the fitted values (docs/accuracy.md).
struct EfficiencyConstants {
  /// Fraction of the dense datasheet peak a large bf16/fp16 GEMM reaches, per generation.
  double gemm_peak_fraction_ampere = 0.0;
  double gemm_peak_fraction_hopper = 0.0;
  /// A generation without a fit and without a measured matmul in the catalog (Volta, Ada,
  /// Ascend): unfit, a guess.
  double gemm_peak_fraction_other = 0.0;
  /// Hopper's share of its dense peak in the best measured matmul (the catalog's H100 and H200
  /// "matmul" figures), where gemm_peak_fraction_hopper was fit: a training GEMM reaches the
  /// fraction gemm_peak_fraction_hopper / this of the best matmul. Data, not fit; a test holds
  /// them to the catalog.
  double reference_matmul_share_bf16 = 0.0;
  double reference_matmul_share_fp8 = 0.0;
  /// GEMM size (elements) at which one dimension costs as much again as the GEMM's work: a GEMM
  /// of M rows, K inputs and N outputs per rank runs at η = η_max / (1 + d0/M + d0/K + d0/N) (the
  /// edge tiles and last wave of the M x N grid, the K loop's prologue and epilogue; DeepGEMM's
  /// H800 FP8 table has the shape, deepseek-ai/DeepGEMM README at 327ec92). A training layer's
  /// forward, data-gradient and weight-gradient GEMMs permute the same three sizes, so each weight
  /// matrix costs the same factor in all three. Fit (tools/fit_efficiency.cpp).
  double gemm_half_size = 0.0;
  /// Bytes moved by the memory-bound kernels of one layer (norms, dropout, residual, bias,
  /// activation, softmax...) per token per hidden element, in units of the activation dtype.
  double elementwise_passes = 0.0;
  /// Achieved fraction of the NIC line rate for DP/PP/CP traffic between nodes.
  double nic_efficiency = 0.0;
  /// Achieved fraction of the NIC line rate for the MoE all-to-alls between nodes (dispatch and
  /// combine of every dispatcher): measured on expert-parallel kernels and NCCL all-to-all, not fit.
  double ep_nic_efficiency = 0.0;
  /// Achieved fraction of the NVLink line rate (NCCL; measured, not fit: gpus.md).
  double nvlink_efficiency = 0.0;
  /// Fraction of a compute window that can hide overlapped DP / FSDP communication.
  double overlap_efficiency = 0.0;
  /// Fraction of TP communication hidden by Megatron's --tp-comm-overlap (userbuffers).
  double tp_overlap_hidden = 0.0;
  /// FP8 GEMMs reach this fraction of what a bf16 GEMM reaches of its own peak, casts included
  /// (fit; H100 GEMM alone: measured 1382/1979 fp8 vs ~0.8 bf16, gpus.md).
  double fp8_relative_efficiency = 0.0;
  /// Routed experts (Megatron-core TEGroupedMLP: Transformer Engine GroupedLinear, one GEMM per
  /// local expert): rows per expert at which a grouped expert GEMM loses half of what a dense
  /// GEMM of the same shape reaches (each expert's last M tile is partly empty).
  double expert_gemm_half_rows = 0.0;
  /// Host time of one MoE layer's forward that the GPU cannot run ahead of: Megatron-core's
  /// token dispatcher synchronises with the device every MoE forward to read the all-to-all
  /// split sizes (token_dispatcher.py `_maybe_dtoh_and_synchronize`), so a layer whose kernels
  /// are shorter than their launches runs at the host's pace. Backward: twice this.
  double moe_layer_host_seconds = 0.0;
  /// The same host time per local expert: Transformer Engine's GroupedLinear keeps one weight
  /// and one quantizer per expert and launches one cuBLAS GEMM per expert
  /// (pytorch/module/grouped_linear.py, general_grouped_gemm), plus per-expert casts under FP8.
  double moe_expert_host_seconds = 0.0;
  /// Dropless routing with a trained softmax router (TimeOptions::moe_dropless_imbalance): the
  /// spread of the experts' shares of a micro-batch's routed tokens, as a coefficient of variation. A rank
  /// holds E/EP experts, so its share varies by this / sqrt(E/EP), and the most loaded of EP ranks
  /// gets about 1 + that x sqrt(2 ln EP) times the mean (the expected maximum of EP normal draws):
  /// every MoE layer waits for it (compute_time.hpp moe_load_factor). Fit on the ratio of dropless
  /// to force-balanced throughput of the same runs (Megatron-MoE-ModelZoo's long-context table,
  /// tools/fit_efficiency.cpp).
  double moe_expert_load_cv = 0.0;
  /// RL rollout: host time of one engine step that the GPU waits for (vLLM V1 EngineCore /
  /// SGLang Scheduler loop: scheduling, sampling, detokenizing, the Python around the model call).
  double engine_step_seconds = 0.0;
  /// RL decode: the shortest time one decoder layer takes per step however little it reads (its
  /// chain of small kernels and, under TP, its all-reduces: latency, not bandwidth).
  double decode_layer_seconds = 0.0;
  /// RL decode: achieved fraction of the HBM datasheet rate while the engine streams the weights
  /// (GEMV / small-batch GEMM and fused MoE kernels; STREAM triad reaches 0.85).
  double decode_hbm_efficiency = 0.0;
  /// RL decode: achieved fraction of the HBM rate while the attention kernels read the KV cache
  /// of the sequences in flight (paged, one block table per sequence), fit apart from the weight
  /// stream's: the step's bytes are weights / (HBM x decode_hbm_efficiency) + KV / (HBM x this).
  double decode_kv_efficiency = 0.0;
  /// Memory-bound traffic of Hugging Face modeling code (FSDP backend: RMSNorm, SwiGLU and
  /// rotary as separate eager PyTorch kernels) relative to Megatron-core's fused kernels.
  double hf_elementwise_factor = 1.0;
};

/// The fitted constants (docs/accuracy.md, tools/fit_efficiency.sh).
EfficiencyConstants fitted_efficiency_constants();

/// Where a GPU's GEMM fraction comes from (gemm_peak_fraction, in that order).
enum class GemmPeakBasis {
  cluster_measured,
  ampere_fit,
  hopper_fit,
  measured_matmul_fp8,
  measured_matmul_fp8_at_fp4_peak,
  measured_matmul_fp8_times_nvfp4_ratio,
  measured_matmul_bf16,
  guess
};
GemmPeakBasis gemm_peak_basis(const NodeGroup& node, Dtype dtype);
std::string_view gemm_peak_basis_name(GemmPeakBasis basis);

/// Peak fraction of a large GEMM of `dtype` (bf16/fp16, or fp8) on this node's GPU. Ampere and
/// Hopper: their fitted constants. Another generation whose parts the catalog measured: Hopper's
/// fraction carried over by the ratio of the two generations' shares of their peaks in the best
/// measured matmul. A cluster's measured GEMM (`meshplan calibrate --gemm-tflops`) is such a
/// best matmul, carried over the same way. Else the guess gemm_peak_fraction_other.
double gemm_peak_fraction(const NodeGroup& node, Dtype dtype, const EfficiencyConstants& constants);

/// The sizes of a training GEMM on one rank: its rows (tokens of the micro-batch, or an expert's
/// rows) and its weight matrix's input and output widths. A group of matrices of one input width
/// takes `out` as the FLOP-weighted harmonic mean of theirs: the sum of their widths over their
/// count (each matrix's FLOPs are proportional to its width).
struct GemmShape {
  double rows = 0;
  double in = 0;
  double out = 0;
};

/// Achieved fraction of the dtype's peak for a training GEMM of this shape (and for its
/// data- and weight-gradient GEMMs, whose sizes are the same three).
double gemm_efficiency(const NodeGroup& node, Dtype dtype, const GemmShape& shape, const EfficiencyConstants& constants);

}  // namespace meshplan
