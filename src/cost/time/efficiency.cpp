#include "cost/time/efficiency.hpp"

namespace meshplan {

EfficiencyConstants fitted_efficiency_constants() {
  // Fitted by tools/fit_efficiency.sh on tests/fixtures/published_runs.json (docs/accuracy.md),
  // with fused attention at its kernel's measured rate (attention_kernels.hpp; session 25).
  EfficiencyConstants constants;
  constants.gemm_peak_fraction_ampere = 0.876667;
  constants.gemm_peak_fraction_hopper = 0.748333;
  constants.gemm_peak_fraction_other = 0.70;
  // The catalog's Hopper matmuls (stas00/ml-engineering's MAMF table at 744d01e1): bf16 794.5 of
  // 989 TFLOP/s (H100 SXM; H200 the same), fp8 the mean of H100's 1402.6 and H200's 1453.4 of
  // 1979. Data, held to the catalog by efficiency_test.cpp.
  constants.reference_matmul_share_bf16 = 794.5 / 989.0;
  constants.reference_matmul_share_fp8 = (1402.6 + 1453.4) / 2.0 / 1979.0;
  // The GEMM size term (GemmShape: rows, input and output widths alike), fit since session 45 with
  // the peak fractions above as a large GEMM's: coordinate descent from 300 (DeepGEMM's H800 table
  // suggests 700-1200 for its kernels; the training rows barely tell the values apart, 0.0112-0.0114
  // mean squared log error from 4 to 600; the runs no constant saw are closer with it than at 4:
  // docs/accuracy-held-out-training.md "A GEMM's three sizes").
  // Before, one width (hidden/TP) and the tokens, fit at its lower bound 4 with the fractions at
  // 0.7575 / 0.6475.
  constants.gemm_half_size = 263.133;
  constants.elementwise_passes = 26.8667;
  constants.nic_efficiency = 0.946667;
  // What the MoE all-to-alls reach of the NIC between nodes at EP 32-64, BF16, 4096 tokens of 7168
  // a rank (wire bytes, the local node's copies taken out): DeepEP normal kernels on H800 CX7 400G
  // 0.86-0.89 (deepseek-ai/DeepEP docs/legacy.md, after PR #130), on B200 EFA 0.84-0.85 (awslabs/
  // awsome-distributed-ai ep-backend-comparison/RESULTS-b200.md), DeepEP V2 on SM90 CX7 0.92
  // (README); HybridEP on H100 0.86-0.89 (hybrid-ep docs/README_Hybrid-EP.md, kernel only);
  // NCCL alltoall_perf's asymptotic busbw on H100 (p5) 0.83-0.91 and B300 (p6-b300) 0.79-0.92,
  // 4-16 nodes (RESULTS-p5.md, RESULTS.md). The median of those 16, 0.87: below the ring
  // collectives' fit above. Not fit.
  constants.ep_nic_efficiency = 0.87;
  // NCCL ring bus bandwidth over the NVLink line rate: A100 231.6/300 = 0.77, H100 ~370/450 =
  // 0.82 (../shared/hardware/gpus.md, measured rows). Not fit.
  constants.nvlink_efficiency = 0.8;
  constants.tp_overlap_hidden = 1.0;
  constants.overlap_efficiency = 0.183333;
  // Fit; for comparison H100 fp8 GEMM 1382 of 1979 TFLOP/s (0.70) vs bf16 ~0.8 (gpus.md): 0.87. The
  // casts of the GEMMs' inputs are counted apart (compute_time.cpp kFp8CastBytesPerElement).
  constants.fp8_relative_efficiency = 0.75;
  // Counted, not fit: a grouped GEMM pads each expert's rows to the kernel's 128-row M tile
  // (Hopper cuBLAS/CUTLASS tiles; Megatron --moe-router-padding-for-fp8 pads to 16/32 only), so
  // on average half a tile per expert is wasted: rows / (rows + 64).
  constants.expert_gemm_half_rows = 64.0;
  // Fit on the two MoE training rows (NeMo Qwen3-30B-A3B and Qwen3-235B-A22B, H100 FP8) with the
  // dense constants fixed, within what eager PyTorch + TE launch (0-3 ms a layer, 0-0.2 ms an
  // expert): both end at their upper bound, the 30B row is still faster than measured.
  constants.moe_layer_host_seconds = 0.003;
  constants.moe_expert_host_seconds = 0.0002;
  // Fit on the four dropless / force-balanced pairs of Megatron-MoE-ModelZoo's long-context table
  // (Qwen3-235B-A22B on 256 H100, EP 8, 16k-128k tokens: 237/295 to 357/389 TFLOP/s), the ratio
  // of the two throughputs, with the constants above fixed: at EP 8 with 16 experts a rank the
  // most loaded rank gets 1.58x the mean (docs/accuracy-held-out-training.md). Applied only with
  // --moe-dropless-imbalance: one router measured, at one EP.
  constants.moe_expert_load_cv = 1.06667;
  // Fit on the 18 RL rows (rl_runs.json, rl_runs_public.json: steps, and the phases where the
  // source times them) with the constants above fixed, each within its physical range: host
  // time per engine step 0-10 ms, per-layer floor 0-0.2 ms (10-20 kernels of a few µs under CUDA
  // graphs), HBM share of the weight stream 0.5-0.9 and of the KV-cache reads 0.05-0.9. The
  // weight update is not fit: NeMo RL's refits go at its measured rate and its step pages the
  // policy's states to the host (weight_sync_rates.hpp, rl_step_time.cpp; session 40, before
  // which the rate was fit here, 20.15 GB/s, and the weight stream's share sat at its upper bound
  // 0.9), its optimizer states through new pageable host tensors at PyTorch's measured rate
  // (offload_time.cpp; session 41, before which the engine step fit 7.5 ms). The KV share (0.23)
  // is below what decode attention kernels reach alone: it carries every cost that grows with
  // sequences x context (docs/accuracy.md).
  constants.engine_step_seconds = 0.00616667;
  constants.decode_layer_seconds = 0.000186667;
  constants.decode_hbm_efficiency = 0.846667;
  constants.decode_kv_efficiency = 0.234167;
  constants.hf_elementwise_factor = 2.0;
  return constants;
}


namespace {

/// What an NVFP4 GEMM reaches of the NVFP4 peak, over what an MXFP8 GEMM reaches of the FP8 peak:
/// Transformer Engine's GEMM profiling guide (docs/examples/gemm_profiling/gemm_profiling.rst at
/// d0067d0da, benchmarks/gemm/benchmark_gemm.py --pre-quantize, B300: the 12 GEMMs of a layer of
/// hidden 4096, intermediate 16384 at 15,872 tokens) times the kernels alone at 7.161 ms MXFP8 and
/// 3.764 ms NVFP4, 1.90x where B300's peaks differ 15 / 4.5 = 3.33x: (7.161 / 3.764) x 4.5 / 15.
constexpr double kNvfp4ShareOfFp8 = (7.161 / 3.764) * 4.5 / 15.0;

/// What an NVFP4 GEMM reaches over an FP8 one on Blackwell's first silicon (B200, GB200), whose
/// NVFP4 peak is 2.2x its FP8 one, not 3.3x: pytorch/ao PR #2427 (2025-06, B200,
/// benchmarks/float8/bench_matmul.py --recipe nvfp4, cuBLAS through torch._scaled_mm, the library
/// Transformer Engine's NVFP4 GEMMs call) 5.50 PF at 6144^3 against B200's best FP8 matmul, 3432.5
/// TFLOP/s (stas00/ml-engineering's MAMF table): 1.60x (vLLM PR #20646's CUTLASS kernels at one
/// shape: 1.53x). B300's profile share above would give it 1.27x.
constexpr double kNvfp4OverFp8Blackwell = 5500.0 / 3432.5;

/// What share of the best measured matmul a training GEMM reaches: where a generation's fraction
/// was fit against its own measured share (Ampere), that ratio; else Hopper's.
double share_of_best_matmul(const GpuSpec& gpu, const EfficiencyConstants& constants) {
  if (gpu.is_generation("ampere") && gpu.matmul_share_bf16 > 0) {
    return constants.gemm_peak_fraction_ampere / gpu.matmul_share_bf16;
  }
  return constants.gemm_peak_fraction_hopper / constants.reference_matmul_share_bf16;
}

}  // namespace

GemmPeakBasis gemm_peak_basis(const NodeGroup& node, Dtype dtype) {
  const GpuSpec& gpu = node.gpu;
  if (node.gemm_flops > 0 && (gpu.peak_flops(Dtype::bf16) > 0 || gpu.peak_flops(Dtype::fp16) > 0)) {
    return GemmPeakBasis::cluster_measured;
  }
  if (gpu.is_generation("ampere")) return GemmPeakBasis::ampere_fit;
  if (gpu.is_generation("hopper")) return GemmPeakBasis::hopper_fit;
  if (dtype == Dtype::fp8 && gpu.matmul_share_fp8 > 0) return GemmPeakBasis::measured_matmul_fp8;
  if (dtype == Dtype::fp4 && gpu.matmul_share_fp8 > 0) {
    // Blackwell Ultra (B300, GB300) as Transformer Engine profiled it; Blackwell's first silicon at
    // its own measured NVFP4-over-FP8 ratio.
    return gpu.is_generation("blackwell") && !gpu.is_generation("blackwell ultra")
               ? GemmPeakBasis::measured_matmul_fp8_times_nvfp4_ratio
               : GemmPeakBasis::measured_matmul_fp8_at_fp4_peak;
  }
  if (gpu.matmul_share_bf16 > 0) return GemmPeakBasis::measured_matmul_bf16;
  return GemmPeakBasis::guess;
}

std::string_view gemm_peak_basis_name(GemmPeakBasis basis) {
  switch (basis) {
    case GemmPeakBasis::cluster_measured: return "the cluster's measured GEMM x the share of it a training GEMM reaches";
    case GemmPeakBasis::ampere_fit: return "Ampere's fit";
    case GemmPeakBasis::hopper_fit: return "Hopper's fit";
    case GemmPeakBasis::measured_matmul_fp8:
      return "Hopper's fit x the generation's measured fp8 matmul share / Hopper's";
    case GemmPeakBasis::measured_matmul_fp8_at_fp4_peak:
      return "Hopper's fit x the generation's measured fp8 matmul share / Hopper's x 0.571, of the NVFP4 peak "
             "(Transformer Engine's B300 GEMM profile: NVFP4 kernels 1.90x MXFP8's where the peaks differ 3.33x)";
    case GemmPeakBasis::measured_matmul_fp8_times_nvfp4_ratio:
      return "Hopper's fit x the generation's measured fp8 matmul share / Hopper's, at 1.60x the fp8 rate "
             "(B200's measured NVFP4 matmul over its FP8 one: pytorch/ao #2427)";
    case GemmPeakBasis::measured_matmul_bf16:
      return "Hopper's fit x the generation's measured bf16 matmul share / Hopper's";
    case GemmPeakBasis::guess: return "a guess: no fit and no measured matmul for this generation";
  }
  return "";
}

double gemm_peak_fraction(const NodeGroup& node, Dtype dtype, const EfficiencyConstants& constants) {
  const GpuSpec& gpu = node.gpu;
  // FP8 GEMMs reach a fraction of what bf16 ones reach of their own peak (fit on Hopper); NVFP4
  // GEMMs that fraction too, times their measured share of an FP8 GEMM's (kNvfp4ShareOfFp8; their
  // casts are counted apart, compute_time.cpp).
  const double fp8 = dtype == Dtype::fp8 || dtype == Dtype::fp4 ? constants.fp8_relative_efficiency : 1.0;
  switch (gemm_peak_basis(node, dtype)) {
    case GemmPeakBasis::cluster_measured: {
      const double bf16_peak = gpu.peak_flops(Dtype::bf16) > 0 ? gpu.peak_flops(Dtype::bf16) : gpu.peak_flops(Dtype::fp16);
      return share_of_best_matmul(gpu, constants) * node.gemm_flops / bf16_peak * fp8;
    }
    case GemmPeakBasis::ampere_fit: return constants.gemm_peak_fraction_ampere * fp8;
    case GemmPeakBasis::hopper_fit: return constants.gemm_peak_fraction_hopper * fp8;
    // A generation the fit never saw, by its measured matmul (stas00/ml-engineering's table in the
    // catalog): Blackwell's parts reach 0.79 of their bf16 peak and 0.77 of their fp8 peak where
    // Hopper's reach 0.80 and 0.72; CDNA3 0.56 of bf16. Hopper's fraction times that ratio.
    case GemmPeakBasis::measured_matmul_fp8:
      return constants.gemm_peak_fraction_hopper * constants.fp8_relative_efficiency * gpu.matmul_share_fp8 /
             constants.reference_matmul_share_fp8;
    case GemmPeakBasis::measured_matmul_fp8_at_fp4_peak:
      return constants.gemm_peak_fraction_hopper * constants.fp8_relative_efficiency * gpu.matmul_share_fp8 /
             constants.reference_matmul_share_fp8 * kNvfp4ShareOfFp8;
    case GemmPeakBasis::measured_matmul_fp8_times_nvfp4_ratio:
      return constants.gemm_peak_fraction_hopper * constants.fp8_relative_efficiency * gpu.matmul_share_fp8 /
             constants.reference_matmul_share_fp8 * kNvfp4OverFp8Blackwell * gpu.peak_flops(Dtype::fp8) /
             gpu.peak_flops(Dtype::fp4);
    case GemmPeakBasis::measured_matmul_bf16: return share_of_best_matmul(gpu, constants) * gpu.matmul_share_bf16 * fp8;
    case GemmPeakBasis::guess: break;
  }
  return constants.gemm_peak_fraction_other * fp8;
}

double gemm_efficiency(const NodeGroup& node, Dtype dtype, const GemmShape& shape, const EfficiencyConstants& constants) {
  // A GEMM reaches its peak fraction only when every dimension fills the GPU's tiles and waves;
  // a dimension of size d costs d0/d more (a saturating curve, as in the piecewise efficiency
  // tables of analytical simulators: large ops near peak, small ops far below).
  const double fraction = gemm_peak_fraction(node, dtype, constants);
  const double d0 = constants.gemm_half_size;
  if (shape.rows <= 0 || shape.in <= 0 || shape.out <= 0) return fraction;
  return fraction / (1.0 + d0 / shape.rows + d0 / shape.in + d0 / shape.out);
}

}  // namespace meshplan
