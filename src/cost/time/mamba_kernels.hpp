#pragma once
// What Megatron-core's Mamba-2 mixer reads and writes in HBM besides its two projections: the
// causal conv1d and the five SSD kernels of mamba_ssm, whose chunk states go through HBM in fp32.
#include "model/model_spec.hpp"

namespace meshplan {

/// Bytes per token one Mamba-2 layer's forward moves through HBM outside its GEMMs (before TP, which
/// splits the heads and groups): Megatron-core ssm/mamba_mixer.py _ssm_training (the in_proj output
/// made contiguous batch-first, the output made sequence-first again, the group RMSNorm) around
/// mamba_ssm (state-spaces/mamba e9594ce) ops/triton/ssd_combined.py mamba_split_conv1d_scan_combined
/// (causal_conv1d over x, B, C; _chunk_cumsum_fwd, _chunk_state_fwd writing fp32 states per chunk, _state_passing_fwd,
/// _bmm_chunk_fwd writing fp32 C B^T per chunk, _chunk_scan_fwd writing the output and its ungated
/// copy), at the mixer's chunk_size. 0 for other linear mixers.
double mamba2_kernel_bytes_per_token(const LinearAttentionSpec& mixer);

/// The same for the layer's backward (mamba_ssm e9594ce ssd_combined.py
/// MambaSplitConv1dScanCombinedFn.backward and _mamba_chunk_scan_combined_bwd): it reruns the conv
/// and four of the forward's five SSD kernels (the states kept in fp32 this time), then runs eleven
/// of its own, the causal conv's backward and the gradients of Megatron-core's layout copies and
/// norm. About 2.5x the forward's bytes, where a backward costed at twice its forward has 2x.
double mamba2_backward_kernel_bytes_per_token(const LinearAttentionSpec& mixer);

/// What an SSD chunk kernel reaches of the 16-bit dense peak: tile-ai/tilelang benchmark/mamba2
/// README (be9c08f6) times the chunk-scan forward on an H800 SXM (batch 8, 80 heads of 64, one
/// group, chunk 256, state 128) at 134.362 TFLOP/s at 8192 tokens (126-136 from 1k to 32k), of
/// the part's 989 TFLOP/s; the same share is taken on every GPU. A tuned TileLang kernel: an upper
/// bound for mamba_ssm's Triton kernels, which Megatron-core's Mamba mixer runs.
constexpr double kSsdScanPeakShare = 134.362 / 989.0;

}  // namespace meshplan
