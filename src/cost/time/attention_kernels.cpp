#include "cost/time/attention_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace meshplan {
namespace {

// Shah et al. 2024 (FlashAttention-3) §4.1, head dim 128, H100 80GB SXM5, TFLOP/s.
constexpr std::array<double, 6> kKeys = {512, 1024, 2048, 4096, 8192, 16384};

struct KernelBars {
  std::array<double, 6> forward_causal;
  std::array<double, 6> forward_full;
  std::array<double, 6> backward_full;
};
constexpr KernelBars kCudnn = {{315, 410, 484, 518, 529, 539}, {497, 574, 617, 609, 600, 595},
                               {305, 408, 465, 499, 518, 516}};
constexpr KernelBars kFlashAttention2 = {{191, 260, 298, 319, 333, 335}, {309, 350, 362, 368, 370, 370},
                                         {214, 260, 291, 310, 318, 322}};
// The H100 SXM5's dense BF16 peak the rates above are shares of (NVIDIA H100 datasheet).
constexpr double kH100PeakTflops = 989.4;
// FlashAttention's backward counts 2.5x the forward's FLOPs (five s x s matmuls to two).
constexpr double kBackwardFlopRatio = 2.5;

double combined_fraction(double forward, double backward) {
  return 3.0 / (1.0 / forward + kBackwardFlopRatio / backward) / kH100PeakTflops;
}

double fraction_at(std::size_t i, bool causal, AttentionKernel kernel) {
  const KernelBars& bars = kernel == AttentionKernel::flash_attention_2 ? kFlashAttention2 : kCudnn;
  if (!causal) return combined_fraction(bars.forward_full[i], bars.backward_full[i]);
  const double causal_share = bars.forward_causal[i] / bars.forward_full[i];
  return combined_fraction(bars.forward_causal[i], bars.backward_full[i] * causal_share);
}

}  // namespace

double attention_kernel_peak_fraction(double keys, bool causal, AttentionKernel kernel) {
  if (!(keys > kKeys.front())) return fraction_at(0, causal, kernel);
  if (keys >= kKeys.back()) return fraction_at(kKeys.size() - 1, causal, kernel);
  std::size_t i = 1;
  while (keys > kKeys[i]) ++i;
  const double w = std::log2(keys / kKeys[i - 1]) / std::log2(kKeys[i] / kKeys[i - 1]);
  return (1.0 - w) * fraction_at(i - 1, causal, kernel) + w * fraction_at(i, causal, kernel);
}

double ring_attention_peak_fraction(double seq_len, double cp, bool causal, AttentionKernel kernel) {
  const double blocks = std::max(cp, 1.0);
  const double block = seq_len / blocks;
  if (!causal || blocks <= 1.0) return attention_kernel_peak_fraction(block, causal, kernel);
  // Time shares add: the diagonal block holds 1/cp of the rank's (causal) work.
  const double diagonal = 1.0 / blocks;
  return 1.0 / (diagonal / attention_kernel_peak_fraction(block, true, kernel) +
                (1.0 - diagonal) / attention_kernel_peak_fraction(block, false, kernel));
}

}  // namespace meshplan
