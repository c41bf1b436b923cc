#include "cost/time/attention_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace meshplan {
namespace {

// Shah et al. 2024 (FlashAttention-3) §4.1, H100 80GB SXM5, TFLOP/s, at these keys per query.
constexpr std::array<double, 6> kKeys = {512, 1024, 2048, 4096, 8192, 16384};

// One head dimension's bars: the forward without and with the causal mask, the backward without.
struct KernelBars {
  std::array<double, 6> forward_causal;
  std::array<double, 6> forward_full;
  std::array<double, 6> backward_full;
};
// Head dim 128 ("Attention forward speed" with and without the causal mask, "Attention backward speed").
constexpr KernelBars kCudnn128 = {{315, 410, 484, 518, 529, 539}, {497, 574, 617, 609, 600, 595},
                                  {305, 408, 465, 499, 518, 516}};
constexpr KernelBars kFlashAttention2_128 = {{191, 260, 298, 319, 333, 335}, {309, 350, 362, 368, 370, 370},
                                             {214, 260, 291, 310, 318, 322}};
// Head dim 64: the forward without the mask and the backward; the causal forward was not retrieved
// (left 0): head dim 128's causal / full ratio stands for it.
constexpr KernelBars kCudnn64 = {{}, {335, 373, 395, 408, 412, 413}, {266, 348, 395, 417, 432, 433}};
constexpr KernelBars kFlashAttention2_64 = {{}, {282, 306, 318, 321, 322, 324}, {198, 238, 264, 279, 287, 291}};
// The H100 SXM5's dense BF16 peak the rates above are shares of (NVIDIA H100 datasheet).
constexpr double kH100PeakTflops = 989.4;
// FlashAttention's backward counts 2.5x the forward's FLOPs (five s x s matmuls to two).
constexpr double kBackwardFlopRatio = 2.5;

double combined_fraction(double forward, double backward) {
  return 3.0 / (1.0 / forward + kBackwardFlopRatio / backward) / kH100PeakTflops;
}

/// The share at the i-th length: the causal pass is the full one scaled by the causal / full
/// forward ratio of head dim 128 (measured there for the forward; applied to the backward, and to
/// head dim 64's forward, as an inference).
double fraction_at(std::size_t i, bool causal, const KernelBars& bars, const KernelBars& bars_128) {
  if (!causal) return combined_fraction(bars.forward_full[i], bars.backward_full[i]);
  const double causal_share = bars_128.forward_causal[i] / bars_128.forward_full[i];
  return combined_fraction(bars.forward_full[i] * causal_share, bars.backward_full[i] * causal_share);
}

/// Linear in log2 of the keys between two bars, flat outside the figures.
double fraction_over_keys(double keys, bool causal, const KernelBars& bars, const KernelBars& bars_128) {
  if (!(keys > kKeys.front())) return fraction_at(0, causal, bars, bars_128);
  if (keys >= kKeys.back()) return fraction_at(kKeys.size() - 1, causal, bars, bars_128);
  std::size_t i = 1;
  while (keys > kKeys[i]) ++i;
  const double w = std::log2(keys / kKeys[i - 1]) / std::log2(kKeys[i] / kKeys[i - 1]);
  return (1.0 - w) * fraction_at(i - 1, causal, bars, bars_128) + w * fraction_at(i, causal, bars, bars_128);
}

}  // namespace

double attention_kernel_peak_fraction(double keys, bool causal, AttentionKernel kernel, double head_dim) {
  const bool fa2 = kernel == AttentionKernel::flash_attention_2;
  const KernelBars& bars_128 = fa2 ? kFlashAttention2_128 : kCudnn128;
  const double at_128 = fraction_over_keys(keys, causal, bars_128, bars_128);
  if (!(head_dim < 128.0)) return at_128;
  const double at_64 = fraction_over_keys(keys, causal, fa2 ? kFlashAttention2_64 : kCudnn64, bars_128);
  if (!(head_dim > 64.0)) return at_64;
  const double w = std::log2(head_dim / 64.0);
  return (1.0 - w) * at_64 + w * at_128;
}

double ring_attention_peak_fraction(double seq_len, double cp, bool causal, AttentionKernel kernel, double head_dim) {
  const double blocks = std::max(cp, 1.0);
  const double block = seq_len / blocks;
  if (!causal || blocks <= 1.0) return attention_kernel_peak_fraction(block, causal, kernel, head_dim);
  // Time shares add: the diagonal block holds 1/cp of the rank's (causal) work.
  const double diagonal = 1.0 / blocks;
  return 1.0 / (diagonal / attention_kernel_peak_fraction(block, true, kernel, head_dim) +
                (1.0 - diagonal) / attention_kernel_peak_fraction(block, false, kernel, head_dim));
}

}  // namespace meshplan
