#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/attention_kernels.hpp"

namespace meshplan {
namespace {

// FlashAttention-3 paper (Shah et al. 2024) §4.1, cuDNN on H100 SXM5, head dim 128, TFLOP/s with
// FlashAttention's count (backward 2.5x the forward's FLOPs), over the dense BF16 peak 989.4:
//   4k full:    forward 609, backward 499: 3 / (1/609 + 2.5/499) = 450.98 -> 0.45581
//   4k causal:  forward 518, backward 499 x 518/609 = 424.43: 3 / (1/518 + 2.5/424.43) = 383.63 -> 0.38774
//   16k full:   forward 595, backward 516: 3 / (1/595 + 2.5/516) = 459.69 -> 0.46461
//   16k causal: forward 539, backward 516 x 539/595 = 467.44: 3 / (1/539 + 2.5/467.44) = 416.44 -> 0.42090
//   512 causal: forward 315, backward 305 x 315/497 = 193.31: 3 / (1/315 + 2.5/193.31) = 186.25 -> 0.18825
TEST_CASE("fused attention runs at cuDNN's measured rate for its keys per query and mask") {
  CHECK(attention_kernel_peak_fraction(4096, false) == test::approx(0.45581).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true) == test::approx(0.38774).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(16384, false) == test::approx(0.46461).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(16384, true) == test::approx(0.42090).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(512, true) == test::approx(0.18825).epsilon(1e-4));
  // Beyond the figures the rate is held: the kernels have saturated by 8k; below 512 it is 512's.
  CHECK(attention_kernel_peak_fraction(131072, true) == test::approx(attention_kernel_peak_fraction(16384, true)));
  CHECK(attention_kernel_peak_fraction(128, true) == test::approx(attention_kernel_peak_fraction(512, true)));
  // Between two bars, linear in log2 of the keys: 8k full is 3 / (1/600 + 2.5/518) = 462.01 -> 0.46696;
  // halfway (in log2) between 4k and 8k, the mean of the two shares.
  CHECK(attention_kernel_peak_fraction(4096 * 1.41421356, false) ==
        test::approx((0.45581 + 0.46696) / 2).epsilon(1e-4));
}

TEST_CASE("Hugging Face modeling's FlashAttention-2 bars: about 0.6x cuDNN's on H100") {
  // Same figures, FlashAttention-2: 4k causal forward 319, full forward 368 and backward 310; causal
  // backward 310 x 319/368 = 268.72: 3 / (1/319 + 2.5/268.72) = 241.19 -> 0.24377 of 989.4.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::flash_attention_2) ==
        test::approx(0.24377).epsilon(1e-4));
  // 16k full: 3 / (1/370 + 2.5/322) = 286.63 -> 0.28970.
  CHECK(attention_kernel_peak_fraction(16384, false, AttentionKernel::flash_attention_2) ==
        test::approx(0.28970).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::flash_attention_2) /
            attention_kernel_peak_fraction(4096, true) ==
        test::approx(0.24377 / 0.38774).epsilon(1e-3));
}

TEST_CASE("head dim 64 runs at its own bars, slower than 128, and between the two linear in log2") {
  // Same paper, head dim 64, cuDNN: 4k full-mask forward 408, backward 417 TFLOP/s:
  // 3 / (1/408 + 2.5/417) / 989.4 = 0.35900. Causal: both scaled by head dim 128's forward ratio
  // 518/609 (head dim 64's causal forward not retrieved): 347.04 and 354.69 -> 0.30535.
  CHECK(attention_kernel_peak_fraction(4096, false, AttentionKernel::cudnn, 64) == test::approx(0.35900).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn, 64) == test::approx(0.30535).epsilon(1e-4));
  // 512 causal keys (a 128-key sliding window runs at this, the shortest bar): forward 335, backward
  // 266, scaled by 315/497: 3 / (1/212.32 + 2.5/168.59) / 989.4 = 0.15519.
  CHECK(attention_kernel_peak_fraction(128, true, AttentionKernel::cudnn, 64) == test::approx(0.15519).epsilon(1e-4));
  // FlashAttention-2, head dim 64, 4k full: forward 321, backward 279: 3 / (1/321 + 2.5/279) / 989.4 = 0.25109.
  CHECK(attention_kernel_peak_fraction(4096, false, AttentionKernel::flash_attention_2, 64) ==
        test::approx(0.25109).epsilon(1e-4));
  // Head dim 96 (log2 halfway): the mean; 32 takes 64's bars, 192 (MLA) and 256 take 128's.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn, 64 * 1.41421356) ==
        test::approx((0.30535 + 0.38774) / 2).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn, 32) == test::approx(0.30535).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn, 192) == test::approx(0.38774).epsilon(1e-4));
  // Ring attention carries the head dim to its blocks.
  CHECK(ring_attention_peak_fraction(4096, 1, true, AttentionKernel::cudnn, 64) == test::approx(0.30535).epsilon(1e-4));
}

TEST_CASE("ring attention: blocks of s/cp keys, one of cp on the diagonal under the causal mask") {
  // No context parallelism: one causal block of the whole sequence.
  CHECK(ring_attention_peak_fraction(4096, 1, true) == test::approx(attention_kernel_peak_fraction(4096, true)));
  // 128k over CP 8: blocks of 16k keys, 1/8 of the work causal (0.42090), 7/8 full (0.46461):
  // 1 / (0.125/0.42090 + 0.875/0.46461) = 0.45866.
  CHECK(ring_attention_peak_fraction(131072, 8, true) == test::approx(0.45866).epsilon(1e-4));
  // Without the causal mask every block is full.
  CHECK(ring_attention_peak_fraction(131072, 8, false) == test::approx(0.46461).epsilon(1e-4));
  // Longer blocks run faster: a 32k encoder over CP 8 (4k blocks) runs slower than over CP 2 (16k);
  // under the causal mask CP 8 still gains, as 7 of its 8 blocks run full (0.44603 against 0.44171).
  CHECK(ring_attention_peak_fraction(32768, 8, false) < ring_attention_peak_fraction(32768, 2, false));
  CHECK(ring_attention_peak_fraction(32768, 8, true) == test::approx(0.44603).epsilon(1e-4));
  CHECK(ring_attention_peak_fraction(32768, 2, true) == test::approx(0.44171).epsilon(1e-4));
}

TEST_CASE("FP8 attention runs at cuDNN's FP8 or MXFP8 bars on Blackwell, at H200's FP8 speed-up on Hopper") {
  // cudnn-frontend's benchmark (results at 3929da2), GB200, Llama 3.1's shape at 4k causal keys:
  // MXFP8 forward 1685, backward 1054 TFLOP/s: 3 / (1/1685 + 2.5/1054) = 1011.7 -> 0.44963 of 2250,
  // a little under BF16's 0.46169; per-tensor FP8 (1805, 1178) above it.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell, 128, AttentionPrecision::mxfp8) ==
        test::approx(0.44963).epsilon(1e-4));
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell, 128, AttentionPrecision::fp8) >
        attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell));
  // gpt-oss's 128-key window: MXFP8's backward at 41 TFLOP/s (BF16 182): 3 / (1/161 + 2.5/41) =
  // 44.65 -> 0.019845, against BF16's 0.06684.
  CHECK(attention_window_peak_fraction(128, AttentionKernel::cudnn_blackwell, 64, AttentionPrecision::mxfp8) ==
        test::approx(0.019845).epsilon(1e-3));
  // Hopper: H100's BF16 share times H200's FP8 / BF16 speed-up at the same keys and mask (cuDNN 9.19,
  // head dim 128, 4k causal: BF16 591 / 474, FP8 854 / 471 TFLOP/s):
  // (1/591 + 2.5/474) / (1/854 + 2.5/471) = 1.07524.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn, 128, AttentionPrecision::fp8) ==
        test::approx(1.07524 * attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn)).epsilon(1e-4));
}

}  // namespace
}  // namespace meshplan

namespace meshplan {
namespace {

TEST_CASE("Blackwell runs at cuDNN's bars measured on GB200 and GB300") {
  // NVIDIA/cudnn-frontend's SDPA training benchmark (results at 3929da2, BF16, head dim 128, 64 query
  // and 8 KV heads): GB200 at 4k causal keys forward 1408, backward 1148 TFLOP/s:
  // 3 / (1/1408 + 2.5/1148) = 1038.8 -> 0.46169 of GB200's 2250. H100's bar there gave 0.38774.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell) ==
        test::approx(0.46169).epsilon(1e-4));
  // GB300 (Blackwell Ultra, twice the exponential throughput): 1703 and 1248 -> 1158.1 of 2500 = 0.46325.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell_ultra) ==
        test::approx(0.46325).epsilon(1e-4));
  // DeepSeek-V3's MLA (head dims 192 / 128) at 8k causal on GB200: 1585 and 1193:
  // 3 / (1/1585 + 2.5/1193) = 1100.3 -> 0.48903 of 2250.
  CHECK(attention_kernel_peak_fraction(8192, true, AttentionKernel::cudnn_blackwell, 192) ==
        test::approx(0.48903).epsilon(1e-4));
  // Head dim 64 (not measured on Blackwell): 128's bar scaled by H100's 64 / 128 ratio at the same keys.
  CHECK(attention_kernel_peak_fraction(4096, true, AttentionKernel::cudnn_blackwell, 64) ==
        test::approx(0.46169 * 0.30535 / 0.38774).epsilon(1e-4));
  // Below the shortest bar (2k) the 2k bar falls as H100's does.
  CHECK(attention_kernel_peak_fraction(1024, true, AttentionKernel::cudnn_blackwell) <
        attention_kernel_peak_fraction(2048, true, AttentionKernel::cudnn_blackwell));
}

TEST_CASE("a sliding window runs at its own measured bar on Blackwell") {
  // GPT-OSS's 128-key window (head dim 64, 4k tokens) on GB200: forward 161, backward 182 TFLOP/s
  // (the band's FLOPs, 4·s·w·d a head): 3 / (1/161 + 2.5/182) = 150.39 -> 0.06684 of 2250, less than
  // half the share H100's 512-key causal bar gives (0.15519, above).
  CHECK(attention_window_peak_fraction(128, AttentionKernel::cudnn_blackwell, 64) == test::approx(0.06684).epsilon(1e-3));
  // Elsewhere the window runs at the causal bar of that many keys.
  CHECK(attention_window_peak_fraction(128, AttentionKernel::cudnn, 64) ==
        test::approx(attention_kernel_peak_fraction(128, true, AttentionKernel::cudnn, 64)));
  // Between the window and the 2k bar, linear in log2.
  CHECK(attention_window_peak_fraction(512, AttentionKernel::cudnn_blackwell, 64) >
        attention_window_peak_fraction(128, AttentionKernel::cudnn_blackwell, 64));
}

}  // namespace
}  // namespace meshplan
