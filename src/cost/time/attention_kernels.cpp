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

/// A forward and its backward at these rates (TFLOP/s), as a share of a `peak`.
double share_of_peak(double forward, double backward, double peak) {
  return 3.0 / (1.0 / forward + kBackwardFlopRatio / backward) / peak;
}

double combined_fraction(double forward, double backward) { return share_of_peak(forward, backward, kH100PeakTflops); }

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

// cuDNN's fused attention measured on Blackwell: NVIDIA/cudnn-frontend
// benchmark/sdpa_benchmark_training/results (commit 3929da2: cuDNN 9.22, frontend 1.21.1, BF16,
// batch 2, non-deterministic backward), TFLOP/s counted as above, causal (top_left) and not, at
// these keys per query. Llama 3.1's shapes (64 query heads, 8 KV heads, head dim 128) and
// DeepSeek-V3's (128 heads, query/key head dim 192, value 128); GPT-OSS's 128-key sliding window
// (head dim 64) at 4k tokens. The causal backward is measured here, not scaled.
constexpr std::array<double, 5> kBlackwellKeys = {2048, 4096, 8192, 16384, 32768};

struct BlackwellBars {
  std::array<double, 5> forward_causal;
  std::array<double, 5> forward_full;
  std::array<double, 5> backward_causal;
  std::array<double, 5> backward_full;
};

struct BlackwellKernel {
  double peak_tflops;  ///< the measured GPU's dense BF16 peak (catalog), the shares' base
  BlackwellBars head_128;
  BlackwellBars head_192;
  double window_forward;   ///< 128-key window, head dim 64
  double window_backward;
};

// results/llama3.1/gb200/llama3.1_20260424_100750.csv, results/dsv3/gb200/dsv3_20260424_101009.csv,
// results/gpt_oss/gb200/gpt_oss_20260424_100011.csv; GB200 at the catalog's 2.25 PF.
constexpr BlackwellKernel kGb200 = {2250.0,
                                    {{1097, 1408, 1574, 1708, 1622},
                                     {1433, 1599, 1771, 1697, 1634},
                                     {885, 1148, 1332, 1328, 1226},
                                     {1124, 1350, 1404, 1374, 1262}},
                                    {{1072, 1406, 1585, 1678, 1743},
                                     {1492, 1666, 1759, 1812, 1584},
                                     {846, 1057, 1193, 1134, 1076},
                                     {1048, 1175, 1125, 1088, 1086}},
                                    161,
                                    182};
// The same files' FP8 rows (per-tensor scales; cuDNN's FP8 SDPA under Transformer Engine's delayed,
// tensorwise and blockwise recipes) and MXFP8 rows (the mxfp8 recipe), at the same BF16 peak: the
// backward of gpt-oss's 128-key window runs 4x as long as in BF16.
constexpr BlackwellKernel kGb200Fp8 = {2250.0,
                                       {{1420, 1805, 2047, 2154, 2197},
                                        {1881, 2093, 2241, 2263, 2223},
                                        {831, 1178, 1454, 1632, 1687},
                                        {1214, 1577, 1772, 1836, 1825}},
                                       {{1659, 2095, 2397, 2486, 2447},
                                        {2175, 2518, 2582, 2590, 2340},
                                        {1312, 1692, 1959, 1968, 1857},
                                        {1807, 2071, 2122, 1989, 1932}},
                                       173,
                                       49};
constexpr BlackwellKernel kGb200Mxfp8 = {2250.0,
                                         {{1330, 1685, 1902, 1999, 2046},
                                          {1754, 1944, 2080, 2103, 2070},
                                          {745, 1054, 1287, 1436, 1425},
                                          {1069, 1344, 1495, 1554, 1480}},
                                         {{1535, 1925, 2219, 2355, 2329},
                                          {2018, 2316, 2408, 2492, 2162},
                                          {1047, 1364, 1494, 1552, 1532},
                                          {1504, 1675, 1680, 1638, 1561}},
                                         161,
                                         41};
// The same files of results/*/gb300 (20260424): Blackwell Ultra, whose doubled exponential
// throughput shows in the forward; GB300 at the catalog's 2.5 PF.
constexpr BlackwellKernel kGb300 = {2500.0,
                                    {{1373, 1703, 1856, 1915, 1953},
                                     {1805, 1900, 2017, 2014, 1836},
                                     {967, 1248, 1435, 1507, 1490},
                                     {1213, 1429, 1531, 1536, 1427}},
                                    {{1285, 1590, 1825, 1967, 1991},
                                     {1770, 1937, 2021, 2032, 1917},
                                     {914, 1143, 1291, 1302, 1289},
                                     {1117, 1267, 1301, 1254, 1246}},
                                    167,
                                    191};
constexpr BlackwellKernel kGb300Fp8 = {2500.0,
                                       {{1954, 2532, 2897, 3054, 3108},
                                        {2728, 2988, 3160, 3182, 3050},
                                        {944, 1396, 1781, 2035, 2128},
                                        {1390, 1839, 2111, 2177, 2178}},
                                       {{2290, 2788, 3128, 3305, 3364},
                                        {3058, 3304, 3400, 3438, 3362},
                                        {1511, 1982, 2310, 2459, 2406},
                                        {2099, 2406, 2509, 2579, 2466}},
                                       203,
                                       57};
constexpr BlackwellKernel kGb300Mxfp8 = {2500.0,
                                         {{1751, 2272, 2570, 2727, 2785},
                                          {2443, 2693, 2870, 2889, 2814},
                                          {811, 1143, 1404, 1563, 1590},
                                          {1164, 1469, 1636, 1689, 1654}},
                                         {{2069, 2517, 2829, 2998, 2959},
                                          {2758, 3015, 3108, 3117, 3063},
                                          {1158, 1522, 1780, 1844, 1863},
                                          {1665, 1921, 2027, 2007, 1948}},
                                         194,
                                         45};

// Hopper's FP8 attention as a speed-up over its BF16 at the same keys and mask: cuDNN 9.19 on H200
// (the same benchmark, results/h200_919_only_cudnn/llama3.1_20260227_034703.csv: 64 / 8 heads of 128,
// batch 2), forward and backward TFLOP/s, BF16 then FP8, causal then full. Only head dim 128: cuDNN
// refused FP8 at 64 there ("hidden_dim shoud be equal to 128"), so other head dims keep BF16's bars
// (compute_time.cpp attention_precision).
struct HopperFp8Bars {
  std::array<double, 5> bf16_forward, bf16_backward, fp8_forward, fp8_backward;
};
constexpr HopperFp8Bars kH200Causal = {{484, 591, 644, 673, 688}, {370, 474, 541, 579, 581},
                                       {698, 854, 964, 1010, 1042}, {393, 471, 430, 374, 370}};
constexpr HopperFp8Bars kH200Full = {{633, 671, 691, 702, 693}, {504, 560, 594, 612, 572},
                                     {870, 973, 1023, 1055, 1062}, {531, 602, 636, 659, 674}};

double hopper_fp8_speedup_at(std::size_t i, bool causal) {
  const HopperFp8Bars& bars = causal ? kH200Causal : kH200Full;
  return share_of_peak(bars.fp8_forward[i], bars.fp8_backward[i], 1.0) /
         share_of_peak(bars.bf16_forward[i], bars.bf16_backward[i], 1.0);
}

/// At the Blackwell benchmark's keys (2k..32k), linear in log2 between, flat outside.
double hopper_fp8_speedup(double keys, bool causal) {
  if (!(keys > kBlackwellKeys.front())) return hopper_fp8_speedup_at(0, causal);
  if (keys >= kBlackwellKeys.back()) return hopper_fp8_speedup_at(kBlackwellKeys.size() - 1, causal);
  std::size_t i = 1;
  while (keys > kBlackwellKeys[i]) ++i;
  const double w = std::log2(keys / kBlackwellKeys[i - 1]) / std::log2(kBlackwellKeys[i] / kBlackwellKeys[i - 1]);
  return (1.0 - w) * hopper_fp8_speedup_at(i - 1, causal) + w * hopper_fp8_speedup_at(i, causal);
}

double blackwell_share_at(std::size_t i, bool causal, const BlackwellBars& bars, double peak) {
  return causal ? share_of_peak(bars.forward_causal[i], bars.backward_causal[i], peak)
                : share_of_peak(bars.forward_full[i], bars.backward_full[i], peak);
}

/// Linear in log2 of the keys between two bars, flat beyond 32k; below 2k, the 2k bar scaled as
/// H100's cuDNN bars fall from 2k to those keys (not measured on Blackwell).
double blackwell_over_keys(double keys, bool causal, const BlackwellBars& bars, double peak) {
  if (!(keys > kBlackwellKeys.front())) {
    return blackwell_share_at(0, causal, bars, peak) * fraction_over_keys(keys, causal, kCudnn128, kCudnn128) /
           fraction_over_keys(kBlackwellKeys.front(), causal, kCudnn128, kCudnn128);
  }
  if (keys >= kBlackwellKeys.back()) return blackwell_share_at(kBlackwellKeys.size() - 1, causal, bars, peak);
  std::size_t i = 1;
  while (keys > kBlackwellKeys[i]) ++i;
  const double w = std::log2(keys / kBlackwellKeys[i - 1]) / std::log2(kBlackwellKeys[i] / kBlackwellKeys[i - 1]);
  return (1.0 - w) * blackwell_share_at(i - 1, causal, bars, peak) + w * blackwell_share_at(i, causal, bars, peak);
}

/// Head dim 128 and 192 (MLA) measured, linear in log2 between, 192's above; below 128, 128's
/// scaled by H100's head dim 64 / 128 ratio at the same keys (not measured on Blackwell).
double blackwell_fraction(double keys, bool causal, const BlackwellKernel& kernel, double head_dim) {
  const double at_128 = blackwell_over_keys(keys, causal, kernel.head_128, kernel.peak_tflops);
  if (head_dim < 128.0) {
    return at_128 * attention_kernel_peak_fraction(keys, causal, AttentionKernel::cudnn, head_dim) /
           attention_kernel_peak_fraction(keys, causal, AttentionKernel::cudnn, 128.0);
  }
  const double at_192 = blackwell_over_keys(keys, causal, kernel.head_192, kernel.peak_tflops);
  if (!(head_dim < 192.0)) return at_192;
  const double w = std::log2(head_dim / 128.0) / std::log2(192.0 / 128.0);
  return (1.0 - w) * at_128 + w * at_192;
}

const BlackwellKernel* blackwell_kernel(AttentionKernel kernel, AttentionPrecision precision) {
  const bool fp8 = precision == AttentionPrecision::fp8, mxfp8 = precision == AttentionPrecision::mxfp8;
  if (kernel == AttentionKernel::cudnn_blackwell) return fp8 ? &kGb200Fp8 : mxfp8 ? &kGb200Mxfp8 : &kGb200;
  if (kernel == AttentionKernel::cudnn_blackwell_ultra) return fp8 ? &kGb300Fp8 : mxfp8 ? &kGb300Mxfp8 : &kGb300;
  return nullptr;
}

}  // namespace

const char* attention_kernel_name(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::flash_attention_2: return "flash_attention_2";
    case AttentionKernel::cudnn_blackwell: return "cudnn (GB200 bars)";
    case AttentionKernel::cudnn_blackwell_ultra: return "cudnn (GB300 bars)";
    case AttentionKernel::cudnn: break;
  }
  return "cudnn";
}

const char* attention_precision_name(AttentionPrecision precision) {
  switch (precision) {
    case AttentionPrecision::fp8: return "fp8";
    case AttentionPrecision::mxfp8: return "mxfp8";
    case AttentionPrecision::bf16: break;
  }
  return "bf16";
}

double attention_window_peak_fraction(double window, AttentionKernel kernel, double head_dim,
                                      AttentionPrecision precision) {
  const BlackwellKernel* blackwell = blackwell_kernel(kernel, precision);
  if (blackwell == nullptr || window > kBlackwellKeys.front()) {
    return attention_kernel_peak_fraction(window, true, kernel, head_dim, precision);
  }
  // The measured 128-key window up to it; log2 towards the 2k causal bar above it.
  const double at_window = share_of_peak(blackwell->window_forward, blackwell->window_backward, blackwell->peak_tflops);
  if (!(window > 128.0)) return at_window;
  const double w = std::log2(window / 128.0) / std::log2(kBlackwellKeys.front() / 128.0);
  return (1.0 - w) * at_window + w * blackwell_fraction(kBlackwellKeys.front(), true, *blackwell, head_dim);
}

double attention_kernel_peak_fraction(double keys, bool causal, AttentionKernel kernel, double head_dim,
                                      AttentionPrecision precision) {
  if (const BlackwellKernel* blackwell = blackwell_kernel(kernel, precision)) {
    return blackwell_fraction(keys, causal, *blackwell, head_dim);
  }
  if (kernel == AttentionKernel::cudnn && precision != AttentionPrecision::bf16) {
    return attention_kernel_peak_fraction(keys, causal, kernel, head_dim) * hopper_fp8_speedup(keys, causal);
  }
  const bool fa2 = kernel == AttentionKernel::flash_attention_2;
  const KernelBars& bars_128 = fa2 ? kFlashAttention2_128 : kCudnn128;
  const double at_128 = fraction_over_keys(keys, causal, bars_128, bars_128);
  if (!(head_dim < 128.0)) return at_128;
  const double at_64 = fraction_over_keys(keys, causal, fa2 ? kFlashAttention2_64 : kCudnn64, bars_128);
  if (!(head_dim > 64.0)) return at_64;
  const double w = std::log2(head_dim / 64.0);
  return (1.0 - w) * at_64 + w * at_128;
}

double ring_attention_peak_fraction(double seq_len, double cp, bool causal, AttentionKernel kernel, double head_dim,
                                    AttentionPrecision precision) {
  const double blocks = std::max(cp, 1.0);
  const double block = seq_len / blocks;
  if (!causal || blocks <= 1.0) return attention_kernel_peak_fraction(block, causal, kernel, head_dim, precision);
  // Time shares add: the diagonal block holds 1/cp of the rank's (causal) work.
  const double diagonal = 1.0 / blocks;
  return 1.0 / (diagonal / attention_kernel_peak_fraction(block, true, kernel, head_dim, precision) +
                (1.0 - diagonal) / attention_kernel_peak_fraction(block, false, kernel, head_dim, precision));
}

}  // namespace meshplan
