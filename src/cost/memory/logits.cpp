#include "cost/memory/logits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cost/memory/memory_trace.hpp"
#include "cost/memory/model_states.hpp"

namespace meshplan {
namespace {

constexpr double kCrossEntropyBytes = 2.0 + 4.0;       // bf16 logits + fp32 softmax (Megatron-core)
constexpr double kVerlLogProbBytes = 4.0 + 2.0 + 1.0;  // verl perf_tuning.rst (formulas.md)
constexpr double kLogitsDtypeBytes = 2.0;              // logits in the compute dtype
constexpr double kVerlChunkBytes = kVerlLogProbBytes - kLogitsDtypeBytes;  // fp32 work per chunked element
// verl's fused kernels (model.use_fused_kernels; utils/experimental/torch_functional.py
// FusedLinearForPPO, chunk_size 512): no [tokens, vocab] logits; each 512-token chunk computes
// fp32 logits, log-softmax and probabilities (3 x 4 bytes per element) and frees them.
constexpr double kFusedChunkTokens = 512;
constexpr double kFusedChunkElementBytes = 3 * 4.0;

}  // namespace

double logit_element_bytes(LossKind kind) {
  switch (kind) {
    case LossKind::cross_entropy:
      return kCrossEntropyBytes;
    case LossKind::verl_log_prob:
      return kLogitsDtypeBytes;
    case LossKind::verl_log_prob_entropy:
      return kVerlLogProbBytes;
    case LossKind::value_head:
      return 0;
  }
  return 0;
}

double logits_bytes(const ModelSpec& model, const Strategy& s, double tokens, LossKind kind,
                    const RlSettings& rl, Trace* trace) {
  const bool megatron = s.backend == Backend::megatron;
  const double vocab_rank =
      megatron ? double(megatron_padded_vocab(model.vocab_size, s.tp)) / s.tp : double(model.vocab_size);
  const double head_input = 2.0 * tokens * double(model.hidden_size);
  if (kind == LossKind::value_head) {
    const double bytes = head_input + 4.0 * tokens;
    trace_bytes(trace, "memory/values", bytes, "2*tokens*h + 4*tokens",
                "verl critic value head (fp32 values)", [&] { return fmt::format("tokens={:.6g}", tokens); });
    return bytes;
  }
  if (rl.use_fused_kernels && !megatron) {
    const double bytes = head_input + std::min(tokens, kFusedChunkTokens) * vocab_rank * kFusedChunkElementBytes;
    trace_bytes(trace, "memory/logits", bytes, "2*tokens*h + 12 * min(512, tokens) * V",
                "verl FusedLinearForPPO (use_fused_kernels): one 512-token chunk of fp32 logits at a time",
                [&] { return fmt::format("tokens={:.6g} h={} V={:.6g}", tokens, model.hidden_size, vocab_rank); });
    return bytes;
  }
  double elements_bytes = tokens * vocab_rank * logit_element_bytes(kind);
  const bool chunked =
      kind == LossKind::verl_log_prob_entropy && rl.entropy_chunking && rl.entropy_chunk_tokens > 0;
  if (chunked) {
    const double chunk = std::min(tokens, double(rl.entropy_chunk_tokens));
    elements_bytes = tokens * vocab_rank * kLogitsDtypeBytes + chunk * vocab_rank * kVerlChunkBytes;
  }
  const double bytes = head_input + elements_bytes;
  trace_bytes(trace, "memory/logits", bytes,
              chunked ? "2*tokens*h + 2*tokens*V_rank + 5*min(chunk, tokens)*V_rank"
                      : "2*tokens*h + bytes_per_logit * tokens * V_rank",
              kind == LossKind::cross_entropy
                  ? "Megatron-core vocab-parallel cross entropy (bf16 logits + fp32 softmax)"
              : kind == LossKind::verl_log_prob
                  ? "verl dp_actor: log-probs by flash-attn cross entropy, in-place backward (logits only)"
                  : "verl docs/perf/perf_tuning.rst: (4+2+1) bytes per logit with entropy (formulas.md); "
                    "entropy_from_logits_with_chunking bounds the fp32 part",
              [&] {
                return fmt::format("tokens={:.6g} h={} V_rank={:.6g} bytes_per_logit={} chunk={}", tokens,
                                   model.hidden_size, vocab_rank, logit_element_bytes(kind),
                                   chunked ? rl.entropy_chunk_tokens : 0);
              });
  return bytes;
}

}  // namespace meshplan
