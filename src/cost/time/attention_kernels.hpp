#pragma once
// What a fused attention kernel reaches of a GPU's dense 16-bit peak, by the keys each query
// attends to and the causal mask, forward and backward together: measured, not fit.
//
// Source: Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608) §4.1, the cuDNN and
// FlashAttention-2 bars of the "Attention forward speed" (causal and not) and "Attention backward
// speed" figures, head dims 128 and 64, H100 80GB SXM5. Transformer Engine runs Megatron-core's attention
// on cuDNN's fused kernel; Hugging Face modeling runs the flash-attn package's FlashAttention-2
// (verl's FSDP workers: verl/workers/config/model.py attn_implementation "flash_attention_2";
// NeMo RL's DTensor policy with sequence packing), whose Ampere-generation kernels reach about
// 60% of cuDNN's rate on Hopper. Head dim 64's forward runs at about two thirds of 128's rate
// under cuDNN and its backward at 0.84 (4k keys): 0.79 of 128's combined share. Their FLOPs
// count 4·s²·d a head forward (half with the causal mask) and 2.5x that backward.

namespace meshplan {

/// cudnn: cuDNN's fused kernel as measured on H100 (the FlashAttention-3 paper's bars), the rate
/// for every GPU without bars of its own; cudnn_blackwell / cudnn_blackwell_ultra: cuDNN measured on
/// GB200 / GB300 (B200 and B300 carry the same dies).
enum class AttentionKernel { cudnn, flash_attention_2, cudnn_blackwell, cudnn_blackwell_ultra };

/// What attention computes in (Transformer Engine's fp8_dpa): bf16, or FP8 under a per-tensor recipe
/// (fp8) or the mxfp8 recipe. On Blackwell cuDNN's own FP8 and MXFP8 bars (the same benchmark as
/// the BF16 ones); on Hopper (the cudnn kernel) the BF16 share times cuDNN's FP8 / BF16 speed-up
/// measured on H200 at head dim 128, the only one it took; shares stay of the BF16 peak.
enum class AttentionPrecision { bf16, fp8, mxfp8 };

/// "bf16", "fp8", "mxfp8": for traces.
const char* attention_precision_name(AttentionPrecision precision);

/// "cudnn", "flash_attention_2", "cudnn (GB200 bars)", "cudnn (GB300 bars)": for traces.
const char* attention_kernel_name(AttentionKernel kernel);

/// Attention's achieved share of the dense 16-bit peak over a forward and its backward, in the
/// accounting meshplan and Megatron-LM use (backward = 2 x forward FLOPs):
/// 3 / (1 / forward rate + 2.5 / backward rate) / peak, at `keys` keys per query (interpolated
/// in log2 between 512 and 16k, flat beyond: the kernels have saturated by 8k).
/// The causal backward is not in the figures: it is the full-mask backward scaled by the
/// forward's causal / full ratio at the same length (head dim 128's, which head dim 64's causal
/// forward, not retrieved, is scaled by too). `head_dim`: 64 and below take head dim 64's bars,
/// 128 and above 128's (MLA's 192 included; cuDNN's head dim 256 forward is within 7% of 128's),
/// linear in log2 between.
double attention_kernel_peak_fraction(double keys, bool causal, AttentionKernel kernel = AttentionKernel::cudnn,
                                      double head_dim = 128.0, AttentionPrecision precision = AttentionPrecision::bf16);

/// A sliding window of `window` keys (a causal band): on Blackwell at cuDNN's measured 128-key
/// window (log2 towards the 2k causal bar up to 2k keys), elsewhere at the causal bar of that many
/// keys (the shortest, 512, below it: optimistic; cuDNN measured a 128-key window on GB200 at half
/// the share H100's 512-key bar gives).
double attention_window_peak_fraction(double window, AttentionKernel kernel = AttentionKernel::cudnn,
                                      double head_dim = 128.0, AttentionPrecision precision = AttentionPrecision::bf16);

/// The same for a causal sequence of `seq_len` tokens split over `cp` context-parallel ranks
/// (Megatron-core / Transformer Engine ring attention with the load-balanced chunk order): each
/// rank runs cp blocks of seq_len / cp queries and keys, one of them on the diagonal (causal),
/// the others full; `causal` false (an encoder) runs every block full.
double ring_attention_peak_fraction(double seq_len, double cp, bool causal,
                                    AttentionKernel kernel = AttentionKernel::cudnn, double head_dim = 128.0,
                                    AttentionPrecision precision = AttentionPrecision::bf16);

}  // namespace meshplan
