#pragma once
// The output layer and what the loss keeps of the [tokens, vocab / TP] logits. Often the term
// that decides an OOM (formulas.md "Logits").
#include "cost/trace.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

enum class LossKind : unsigned char {
  cross_entropy,          ///< Megatron vocab-parallel cross entropy (pretrain / SFT)
  verl_log_prob,          ///< verl log-probs only (flash-attn cross entropy, gradient written in place)
  verl_log_prob_entropy,  ///< verl log-probs + entropy on the logits
  value_head,             ///< verl critic: one fp32 value per token instead of vocabulary logits
};

/// Bytes per logit element the loss holds at its peak.
/// cross_entropy: 2 (logits in the compute dtype) + 4 (the fp32 copy that becomes the softmax
/// kept for backward; Megatron-core cross_entropy.py). verl_log_prob: 2, the logits alone (verl
/// dp_actor: logprobs_from_logits with inplace_backward when no entropy is computed).
/// verl_log_prob_entropy: 7 = (4 + 2 + 1) (verl docs/perf/perf_tuning.rst, formulas.md).
double logit_element_bytes(LossKind kind);

/// Logits memory for `tokens` tokens on one rank (one micro-batch, the last pipeline stage):
/// the output layer input 2*tokens*h plus tokens * vocab_per_rank * logit_element_bytes.
/// With verl's entropy_from_logits_with_chunking the fp32 part is bounded by the chunk:
/// 2 * tokens * V_rank + 5 * min(chunk, tokens) * V_rank.
double logits_bytes(const ModelSpec& model, const Strategy& strategy, double tokens, LossKind kind,
                    const RlSettings& rl, Trace* trace);

}  // namespace meshplan
