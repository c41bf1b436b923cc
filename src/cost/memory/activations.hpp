#pragma once
// Activation memory of transformer layers, per Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", §4 and Table 2), written per tensor so that it
// extends to GQA/MQA, MLA, SwiGLU, MoE, CP and FlashAttention (docs/memory-model.md).
#include <cstdint>

#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"

namespace meshplan {

/// The widths one layer's activations depend on (all in elements, full model before TP).
struct LayerShape {
  double hidden = 0;
  double heads = 0;
  double q_width = 0;           ///< heads x qk head dim
  double k_width = 0;           ///< kv heads x qk head dim (MLA: heads x qk head dim, keys expanded)
  double v_width = 0;           ///< kv heads x v head dim
  double o_width = 0;           ///< heads x v head dim (input of the output projection)
  double latent_width = 0;      ///< MLA: q_a + q_a_norm + kv_a + kv_a_norm outputs, not TP-sharded
  double ffn = 0;               ///< dense MLP width (0 for MoE layers without shared experts)
  bool gated = true;            ///< SwiGLU: fc1 output is 2 x ffn wide
  double experts = 0;           ///< routed experts (0: dense layer)
  double routed_per_token = 0;  ///< top-k x capacity factor
  double expert_ffn = 0;
  double expert_hidden = 0;     ///< width of the routed rows: hidden, or a LatentMoE's latent width
  double linear_mixer = 0;      ///< bytes per token a linear-attention token mixer keeps for the
                                ///< backward (Gated DeltaNet); 0: softmax attention (q/k/v/o widths)
  bool expert_gated = true;     ///< routed experts are GLUs (fc1 output 2 x expert_ffn wide)
  /// Single-sublayer layers (ModelSpec::single_sublayer_layers()): the share of this kind of layer
  /// that holds a token mixer, and the share that holds an MLP or MoE; 1 and 1 otherwise.
  double mixer_share = 1;
  double mlp_share = 1;
  bool attention_dropout = false;  ///< config.json attention dropout rate > 0 (masks on the scores)
  bool hidden_dropout = false;     ///< hidden / residual dropout rate > 0 (two sbh masks per layer)
};

LayerShape dense_layer_shape(const ModelSpec& model);
/// Bytes per token (before TP) one Gated DeltaNet or Mamba-2 layer's token mixer keeps for the
/// backward: what its conv and scan kernels save and the gated norm's and out_proj's inputs. 0 for
/// lightning attention (counted as softmax attention).
double linear_mixer_bytes_per_token(const LinearAttentionSpec& linear);
LayerShape moe_layer_shape(const ModelSpec& model, double capacity_factor);

/// How a layer's activations are split across ranks and stored.
struct LayerSplit {
  double tp = 1;  ///< tensor parallel
  bool sequence_parallel = false;
  double etp = 1;  ///< expert tensor parallel
  /// Bytes per element a linear layer keeps of its input for the weight gradient: 2 in 16-bit
  /// training; 1 under Transformer Engine FP8, which saves the quantized input and drops its
  /// row-wise copy (transformer_engine/pytorch/module/linear.py _Linear forward: "Discard row-wise
  /// data since it is not needed in backward pass"; layernorm_linear.py and grouped_linear.py alike).
  double linear_input_bytes = 2;
  /// Bytes per element the MLP activation function keeps of its input: 2, or 1 with
  /// Strategy::activation_func_fp8_input_store.
  double activation_input_bytes = 2;
};

/// The split of `strategy`'s decoder layers; FP8 linear inputs under Megatron-core (Transformer
/// Engine modules), 16-bit otherwise.
LayerSplit layer_split(const Strategy& strategy);

/// What a layer recomputes: the granularity and, when selective, Megatron-core's modules.
struct LayerRecompute {
  Recompute granularity = Recompute::none;
  std::uint16_t modules = kDefaultRecomputeModules;  ///< RecomputeModule flags (selective only)

  LayerRecompute(Recompute g) : granularity(g) {}  // NOLINT(google-explicit-constructor): default modules
  LayerRecompute(Recompute g, std::uint16_t m) : granularity(g), modules(m) {}
  bool recomputes(RecomputeModule module) const {
    return granularity == Recompute::selective && (modules & module) != 0;
  }
};

/// Bytes one layer stores for one micro-batch of `sequences` x `seq_tokens` tokens (tokens on this
/// rank after CP / Ulysses splitting), with 16-bit activations. `kv_tokens` is the key length
/// the scores term sees. For a GPT layer (MHA, 4h GeLU, dropout, no FlashAttention) this is
/// exactly Table 2: s*b*h*(10 + 24/t + 5*a*s/(h*t)), or 34/t + 5as/(ht) with SP; selective
/// recompute drops the 5as/h term; full recompute keeps 2*s*b*h (÷ t with SP).
double layer_activation_bytes(const LayerShape& shape, const LayerSplit& split, double seq_tokens,
                              double kv_tokens, double sequences, LayerRecompute recompute,
                              const MemoryOptions& options);

/// A micro-batch as one rank sees it.
struct MicroBatchShape {
  double seq_tokens = 0;          ///< tokens per sequence on this rank (after CP and Ulysses)
  double kv_tokens = 0;           ///< tokens per sequence attention keys span (before CP)
  double sequences = 1;           ///< sequences per micro-batch (packed: 1 row of seq_tokens)
  std::int64_t microbatches = 1;  ///< micro-batches per optimizer step (bounds the 1F1B in-flight count)
};

/// Micro-batches whose activations a stage holds at its peak: p for the first stage under 1F1B
/// (min(p, m)), 1 for the last, times (1 + (p-1)/(p*v)) when interleaved (Narayanan et al.
/// 2021 §2.2; Korthikanti §4.2.3; Megatron theoretical_memory_usage.py).
double microbatches_in_flight(const Strategy& strategy, PipelineStage stage, std::int64_t microbatches);

/// Decoder layers of a stage of `stage_layers` whose saved activations stay on the GPU under
/// activation offloading (Strategy::activation_offload_layers; all of them without it).
double resident_activation_layers(const Strategy& strategy, double stage_layers);

/// Bytes of one micro-batch's saved decoder-layer activations that activation offloading keeps in
/// (pinned) host memory on one rank of `stage`.
double offloaded_activation_bytes(const ModelSpec& model, const Strategy& strategy, PipelineStage stage,
                                  const MicroBatchShape& mb, const MemoryOptions& options);

/// Activations of the decoder layers on one rank of `stage` for a training step, including
/// full-recompute working memory and the embedding input ids.
double stage_activation_bytes(const ModelSpec& model, const Strategy& strategy, PipelineStage stage,
                              const MicroBatchShape& mb, const MemoryOptions& options, Trace* trace);

/// Forward-only pass (log-probs under no_grad): one layer's working set at a time.
double forward_only_activation_bytes(const ModelSpec& model, const Strategy& strategy,
                                     const MicroBatchShape& mb, const MemoryOptions& options, Trace* trace);

}  // namespace meshplan
