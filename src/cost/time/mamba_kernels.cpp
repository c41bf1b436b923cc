#include "cost/time/mamba_kernels.hpp"

namespace meshplan {

namespace {
constexpr double k16Bit = 2.0;  // bf16 activations
constexpr double kFp32 = 4.0;   // the SSD's cumulative decays, chunk states and C B^T

/// Elements a token of one Mamba-2 layer's tensors holds (before TP).
struct Mamba2Widths {
  double heads = 0;         // H: dt, dA_cumsum
  double inner = 0;         // H x P: x, z, y
  double groups_state = 0;  // G x N: B, C
  double in_proj = 0;       // z, x, B, C, dt
  double conv = 0;          // x, B, C
  double states = 0;        // H P N per chunk, a token's share
  double cb = 0;            // G Q per chunk: C B^T, a token's row
};

Mamba2Widths widths_of(const LinearAttentionSpec& mixer) {
  Mamba2Widths w;
  const double chunk_size = static_cast<double>(mixer.chunk_size);
  w.heads = static_cast<double>(mixer.num_value_heads);
  w.inner = w.heads * static_cast<double>(mixer.value_head_dim);
  w.groups_state = static_cast<double>(mixer.num_key_heads * mixer.key_head_dim);
  w.in_proj = 2.0 * w.inner + 2.0 * w.groups_state + w.heads;
  w.conv = w.inner + 2.0 * w.groups_state;
  w.states = w.inner * static_cast<double>(mixer.key_head_dim) / chunk_size;
  w.cb = static_cast<double>(mixer.num_key_heads) * chunk_size;
  return w;
}

bool is_costed(const LinearAttentionSpec& mixer) {
  return mixer.kind == LinearAttentionKind::mamba2 && mixer.chunk_size > 0;
}

// Megatron-core's rearranges around the combined function, read and written once each: the
// contiguous copy of zxBCdt and the output's copy (their gradients likewise in the backward).
double layout_copies(const Mamba2Widths& w) { return 2.0 * k16Bit * w.in_proj + 2.0 * k16Bit * w.inner; }
// causal_conv1d_fwd over x, B, C: read and written.
double conv_forward(const Mamba2Widths& w) { return 2.0 * k16Bit * w.conv; }
// _chunk_cumsum_fwd: dt in, dt and dA_cumsum out in fp32.
double cumsum_forward(const Mamba2Widths& w) { return k16Bit * w.heads + 2.0 * kFp32 * w.heads; }
// _chunk_state_fwd: B, x, dt, dA_cumsum in; states out in fp32.
double chunk_state_forward(const Mamba2Widths& w) {
  return k16Bit * (w.groups_state + w.inner) + 2.0 * kFp32 * w.heads + kFp32 * w.states;
}
// _bmm_chunk_fwd: B and C in, C B^T out in fp32.
double bmm_forward(const Mamba2Widths& w) { return 2.0 * k16Bit * w.groups_state + kFp32 * w.cb; }
}  // namespace

double mamba2_kernel_bytes_per_token(const LinearAttentionSpec& mixer) {
  if (!is_costed(mixer)) return 0.0;
  const Mamba2Widths w = widths_of(mixer);
  const double norm = 2.0 * k16Bit * w.inner;  // the group RMSNorm: y in, out
  // _state_passing_fwd: fp32 states in, states in the activations' dtype out.
  const double state_passing = kFp32 * w.states + k16Bit * w.states;
  // _chunk_scan_fwd: C B^T, x, dt, dA_cumsum, C, states, z in; the gated output and out_x out.
  const double chunk_scan = kFp32 * w.cb + k16Bit * (2.0 * w.inner + w.groups_state + w.states) +
                            2.0 * kFp32 * w.heads + 2.0 * k16Bit * w.inner;
  return layout_copies(w) + conv_forward(w) + norm + cumsum_forward(w) + chunk_state_forward(w) + state_passing +
         bmm_forward(w) + chunk_scan;
}

double mamba2_backward_kernel_bytes_per_token(const LinearAttentionSpec& mixer) {
  if (!is_costed(mixer)) return 0.0;
  const Mamba2Widths w = widths_of(mixer);
  // MambaSplitConv1dScanCombinedFn.backward reruns the conv and, in _mamba_chunk_scan_combined_bwd,
  // the cumsum (on a clone of dt), C B^T, the chunk states and their passing, this time kept in fp32.
  const double dt_clone = 2.0 * k16Bit * w.heads;
  const double state_passing_rerun = 2.0 * kFp32 * w.states;
  const double rerun = conv_forward(w) + dt_clone + cumsum_forward(w) + bmm_forward(w) + chunk_state_forward(w) +
                       state_passing_rerun;
  // The group RMSNorm's backward: dy and y in, dy out.
  const double norm = 3.0 * k16Bit * w.inner;
  // _chunk_scan_bwd_dz: x, z, out, dout in; dz and the ungated dout out.
  const double dz = 6.0 * k16Bit * w.inner;
  // _chunk_scan_bwd_dstates: C, dA_cumsum, dout in; the states' gradients out in fp32.
  const double dstates = k16Bit * (w.groups_state + w.inner) + kFp32 * w.heads + kFp32 * w.states;
  // _state_passing_bwd: fp32 states and their gradients in; both out in the activations' dtype.
  const double state_passing = 2.0 * kFp32 * w.states + 2.0 * k16Bit * w.states;
  // _chunk_scan_chunk_state_bwd_dx: x, B, dout, the states' gradients, C B^T, dt, dA_cumsum in; dx
  // and ddt (fp32) out.
  const double dx = k16Bit * (3.0 * w.inner + w.groups_state + w.states) + kFp32 * (w.cb + 3.0 * w.heads);
  // _chunk_state_bwd_db and _chunk_scan_bwd_dC: x or dout, the states or their gradients, B or C,
  // dt and dA_cumsum in; dB or dC and a ddA out in fp32, then dB.sum(2) / dC.sum(2) over the
  // kernels' head splits (one split at training lengths: a copy).
  const double db = k16Bit * (w.inner + w.states + w.groups_state) + kFp32 * (3.0 * w.heads + w.groups_state) +
                    2.0 * kFp32 * w.groups_state;
  const double dc = k16Bit * (w.states + w.inner + w.groups_state) + kFp32 * (2.0 * w.heads + w.groups_state) +
                    2.0 * kFp32 * w.groups_state;
  // _chunk_scan_bwd_dcb: x, dout, dt, dA_cumsum in; d(C B^T) out in fp32, then summed over splits.
  const double dcb = 2.0 * k16Bit * w.inner + 2.0 * kFp32 * w.heads + 3.0 * kFp32 * w.cb;
  // _bmm_chunk_bwd, twice (dB from C, dC from B): the operand, d(C B^T), the fp32 residual in; out.
  const double bmm = 2.0 * (2.0 * k16Bit * w.groups_state + kFp32 * (w.cb + w.groups_state));
  // _chunk_scan_bwd_ddAcs_stable: x, dout, dt, dA_cumsum, C B^T in; ddA out in fp32.
  const double ddacs = 2.0 * k16Bit * w.inner + kFp32 * (3.0 * w.heads + w.cb);
  // ddA_prev's flip, cumsum and flip (three passes) and ddA += ddA_next + ddA_prev (three in, one out).
  const double dda_sums = 10.0 * kFp32 * w.heads;
  // _chunk_cumsum_bwd: ddA and ddt (fp32) and dt in; ddt out into dzxbcdt.
  const double cumsum = 2.0 * kFp32 * w.heads + 2.0 * k16Bit * w.heads;
  // causal_conv1d_bwd: x, B, C and their gradients in; the gradients before the conv out.
  const double conv = 3.0 * k16Bit * w.conv;
  return rerun + layout_copies(w) + norm + dz + dstates + state_passing + dx + db + dc + dcb + bmm + ddacs +
         dda_sums + cumsum + conv;
}

}  // namespace meshplan
