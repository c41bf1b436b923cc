#include "cost/time/mamba_kernels.hpp"

namespace meshplan {

namespace {
constexpr double k16Bit = 2.0;  // bf16 activations
constexpr double kFp32 = 4.0;   // the SSD's cumulative decays, chunk states and C B^T
}  // namespace

double mamba2_kernel_bytes_per_token(const LinearAttentionSpec& mixer) {
  const double chunk_size = static_cast<double>(mixer.chunk_size);
  if (mixer.kind != LinearAttentionKind::mamba2 || chunk_size <= 0) return 0.0;
  const double heads = static_cast<double>(mixer.num_value_heads);
  const double inner = heads * static_cast<double>(mixer.value_head_dim);           // H x P: x, z, y
  const double groups_state = static_cast<double>(mixer.num_key_heads * mixer.key_head_dim);  // G x N: B, C
  const double in_proj = 2.0 * inner + 2.0 * groups_state + heads;                   // z, x, B, C, dt
  const double conv = inner + 2.0 * groups_state;                                    // x, B, C
  const double states = inner * static_cast<double>(mixer.key_head_dim) / chunk_size;  // H P N per chunk
  const double cb = static_cast<double>(mixer.num_key_heads) * chunk_size;           // G Q per chunk
  // Read and written once each: the contiguous copy of zxBCdt, the conv, the output's copy, the norm.
  const double layout_copies = 2.0 * k16Bit * in_proj + 2.0 * k16Bit * inner;
  const double conv_bytes = 2.0 * k16Bit * conv;
  const double norm = 2.0 * k16Bit * inner;
  // _chunk_cumsum_fwd: dt in, dt and dA_cumsum out in fp32.
  const double cumsum = k16Bit * heads + 2.0 * kFp32 * heads;
  // _chunk_state_fwd: B, x, dt, dA_cumsum in; states out in fp32.
  const double chunk_state = k16Bit * (groups_state + inner) + 2.0 * kFp32 * heads + kFp32 * states;
  // _state_passing_fwd: fp32 states in, states in the activations' dtype out.
  const double state_passing = kFp32 * states + k16Bit * states;
  // _bmm_chunk_fwd: B and C in, C B^T out in fp32.
  const double bmm = 2.0 * k16Bit * groups_state + kFp32 * cb;
  // _chunk_scan_fwd: C B^T, x, dt, dA_cumsum, C, states, z in; the gated output and out_x out.
  const double chunk_scan = kFp32 * cb + k16Bit * (2.0 * inner + groups_state + states) + 2.0 * kFp32 * heads +
                            2.0 * k16Bit * inner;
  return layout_copies + conv_bytes + norm + cumsum + chunk_state + state_passing + bmm + chunk_scan;
}

}  // namespace meshplan
