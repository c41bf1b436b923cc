#include "cost/memory/activations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/memory/memory_trace.hpp"
#include "model/mtp_module.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

constexpr double kInputIdBytes = 8;  // int64 token ids kept for the embedding backward (Megatron report)
constexpr double kRoutingProbBytes = 4;  // fp32 probability of a routed copy (TopKRouter, weighted SwiGLU)

// Bytes per token of an MLP's inner activations: the fc1 output (2 x ffn wide when gated, the
// SwiGLU input, kept by the activation function at `activation_input_bytes`: 2, or 1 when it stores
// it in fp8) and the fc2 input (kept by fc2 at `fc2_input_bytes`) (Korthikanti §4.1: 8sbh + 8sbh
// for a 4h GeLU MLP).
double mlp_inner_bytes_per_token(double ffn, bool gated, double activation_input_bytes, double fc2_input_bytes) {
  return (gated ? 2.0 : 1.0) * activation_input_bytes * ffn + fc2_input_bytes * ffn;
}

LayerShape attention_shape(const ModelSpec& model) {
  const AttentionSpec& a = model.attention;
  LayerShape shape;
  shape.hidden = double(model.hidden_size);
  shape.heads = double(a.num_heads);
  shape.attention_dropout = model.attention_dropout > 0;
  shape.hidden_dropout = model.hidden_dropout > 0;
  if (a.kind == AttentionKind::mla) {
    const double qk = double(a.qk_nope_head_dim + a.qk_rope_head_dim);
    shape.q_width = shape.heads * qk;
    shape.k_width = shape.heads * qk;
    shape.v_width = shape.heads * double(a.v_head_dim);
    shape.o_width = shape.v_width;
    // q_a output and its norm output (when q is compressed), kv_a output (latent + rope) and
    // the kv norm output: the low-rank projections are not tensor-parallel.
    shape.latent_width =
        2.0 * double(a.q_lora_rank) + double(a.kv_lora_rank + a.qk_rope_head_dim) + double(a.kv_lora_rank);
  } else {
    shape.q_width = double(a.num_heads * a.head_dim);
    shape.k_width = double(a.num_kv_heads * a.head_dim);
    shape.v_width = shape.k_width;
    shape.o_width = shape.q_width;
  }
  return shape;
}

double layer_bytes(const LayerShape& shape, const LayerSplit& split, const MicroBatchShape& mb,
                   LayerRecompute recompute, const MemoryOptions& options) {
  return layer_activation_bytes(shape, split, mb.seq_tokens, mb.kv_tokens, mb.sequences, recompute, options);
}

/// Share of the decoder layers whose token mixer is a counted linear-attention mixer (0: none).
double linear_share(const ModelSpec& model) {
  if (!model.linear_attention || model.num_mixer_layers() <= 0) return 0;
  if (linear_mixer_bytes_per_token(*model.linear_attention) <= 0) return 0;
  return double(model.linear_attention->num_layers) / double(model.num_mixer_layers());
}

/// `shape` with the model's linear-attention token mixer in place of softmax attention.
LayerShape linear_layer(const ModelSpec& model, LayerShape shape) {
  if (model.linear_attention) shape.linear_mixer = linear_mixer_bytes_per_token(*model.linear_attention);
  return shape;
}

/// One layer of `shape` averaged over a hybrid model's token mixers: a stage holds its share of
/// linear-attention layers (exact when its layers follow the model's pattern, e.g. whole
/// full_attention_interval groups). `largest`: the larger of the two kinds instead.
double mixed_layer_bytes(const ModelSpec& model, const LayerShape& shape, const LayerSplit& split,
                         const MicroBatchShape& mb, LayerRecompute recompute, const MemoryOptions& options,
                         bool largest = false) {
  const double attention = layer_bytes(shape, split, mb, recompute, options);
  const double share = linear_share(model);
  if (share <= 0) return attention;
  const double linear = layer_bytes(linear_layer(model, shape), split, mb, recompute, options);
  return largest ? std::max(attention, linear) : (1.0 - share) * attention + share * linear;
}

}  // namespace

LayerSplit layer_split(const Strategy& s) {
  const bool megatron = s.backend == Backend::megatron;
  const bool fp8_activation_input = s.activation_func_fp8_input_store && megatron;
  // Transformer Engine saves a low-precision GEMM's input for the weight gradient as its quantized
  // copy (Strategy::quantized_gemm_input_bytes).
  return LayerSplit{double(s.tp), s.sequence_parallel && s.tp > 1, double(s.etp), s.quantized_gemm_input_bytes(),
                    fp8_activation_input ? 1.0 : 2.0};
}

LayerShape dense_layer_shape(const ModelSpec& model) {
  LayerShape shape = attention_shape(model);
  shape.ffn = double(model.dense_mlp.intermediate_size);
  shape.gated = model.dense_mlp.gated;
  if (model.single_sublayer_layers()) {
    // The non-MoE layers are the mixers and the dense MLPs, each with one sublayer.
    const double layers = double(model.num_layers - (model.moe ? model.moe->num_moe_layers : 0));
    shape.mixer_share = layers > 0 ? double(model.num_mixer_layers()) / layers : 0.0;
    shape.mlp_share = layers > 0 ? double(model.num_dense_layers) / layers : 0.0;
  }
  return shape;
}

double linear_mixer_bytes_per_token(const LinearAttentionSpec& l) {
  if (l.kind == LinearAttentionKind::mamba2) {
    // Megatron-core ssm/mamba_mixer.py _ssm_training: mamba_split_conv1d_scan_combined (mamba_ssm
    // ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn) saves the in_proj output z, x, B, C,
    // dt and the scan's output before the gate, recomputing the conv and the chunk states; the
    // group RMSNorm keeps its input, out_proj its input. All 2 bytes.
    const double inner = double(l.num_value_heads * l.value_head_dim);
    const double in_proj = 2.0 * inner + 2.0 * double(l.num_key_heads * l.key_head_dim) + double(l.num_value_heads);
    return 2.0 * in_proj + 3.0 * 2.0 * inner;
  }
  if (l.kind != LinearAttentionKind::gated_delta_net) return 0;
  // transformers modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward: q and k repeat to the value
  // heads before the kernel. fla ops/gated_delta_rule/chunk.py ChunkGatedDeltaRuleFunction.forward
  // (use_qk_l2norm_in_kernel) saves q, k (l2-normed, bf16), their fp32 rstd, v, the fp32 chunk-local
  // cumsum of g, beta and A (bf16, [T, H, 64]: chunk size 64); the per-chunk states h are not saved
  // but recomputed in the backward (chunk_gated_delta_rule_bwd calls chunk_gated_delta_rule_fwd_h).
  const double heads = double(l.num_value_heads);
  const double key_width = heads * double(l.key_head_dim);
  const double value_width = heads * double(l.value_head_dim);
  const double kernel = 2.0 * (2.0 * key_width + value_width) + 2.0 * 4.0 * heads + 4.0 * heads + 2.0 * heads +
                        2.0 * 64.0 * heads;
  // causal_conv1d_fn saves its input (q, k, v channels before the repeat); FusedRMSNormGated saves
  // the kernel output and the gate z; out_proj keeps its input. All 2 bytes.
  const double conv_input = 2.0 * double(2 * l.num_key_heads * l.key_head_dim + l.num_value_heads * l.value_head_dim);
  return conv_input + kernel + 2.0 * 2.0 * value_width + 2.0 * value_width;
}

LayerShape moe_layer_shape(const ModelSpec& model, double capacity_factor) {
  LayerShape shape = attention_shape(model);
  if (!model.moe) return dense_layer_shape(model);
  const MoeSpec& m = *model.moe;
  shape.ffn = double(m.shared_intermediate_size);
  shape.gated = m.gated_experts;
  shape.expert_gated = m.gated_experts;
  if (model.single_sublayer_layers()) shape.mixer_share = 0;  // a MoE layer holds the MoE alone
  shape.experts = double(m.num_experts);
  shape.routed_per_token = double(m.experts_per_token) * capacity_factor;
  shape.expert_ffn = double(m.expert_intermediate_size);
  shape.expert_hidden = double(model.expert_hidden_size());
  return shape;
}

double layer_activation_bytes(const LayerShape& shape, const LayerSplit& split, double s, double kv_s,
                              double b, LayerRecompute recompute, const MemoryOptions& options) {
  const double t = std::max(split.tp, 1.0);
  const double r = split.sequence_parallel ? t : 1.0;  // divisor of the parts only SP splits
  const double sb = s * b;
  const double h = shape.hidden;
  if (recompute.granularity == Recompute::full) return 2.0 * sb * h / r;  // Table 2: only the layer input

  double replicated = 0;  // LayerNorm inputs, QKV/fc1 inputs, dropout masks (Korthikanti: 10sbh)
  double sharded = 0;     // split by TP (Korthikanti: 24sbh + 5as^2b)
  double unsplit = 0;     // MLA latents, routed experts (already per rank)
  // Dropout (Table 2 assumes it on): the config's rates, or every mask with options.dropout.
  const bool hidden_dropout = options.dropout || shape.hidden_dropout;
  const bool attention_dropout = options.dropout || shape.attention_dropout;
  const bool moe_layer = shape.experts > 0;
  const bool mla = shape.latent_width > 0;
  // Megatron-core "layernorm" recompute drops a norm's output where the norm is a module of its
  // own (transformer_layer.py: not an IdentityOp): MLA's input norm and a MoE layer's pre-MLP norm
  // (gpt_layer_specs.py); elsewhere Transformer Engine fuses the norm into the next linear.
  const bool drop_input_norm_output = mla && recompute.recomputes(kRecomputeLayernorm);
  const bool drop_mlp_norm_output = moe_layer && recompute.recomputes(kRecomputeLayernorm);
  // Attention block (§4.1): norm input 2sbh, shared QKV input 2sbh (what the QKV projection
  // keeps: 1 byte under FP8), Q and K for QK^T, V, the output projection input, dropout mask sbh.
  const double in_bytes = split.linear_input_bytes;
  replicated += 2.0 * sb * h + (drop_input_norm_output ? 0.0 : in_bytes * sb * h) + (hidden_dropout ? sb * h : 0.0);
  double mixer_sharded = 0;
  if (shape.linear_mixer > 0) {
    mixer_sharded += sb * shape.linear_mixer;  // a linear-attention mixer: no scores, heads split by TP
  } else {
    // "mla_up_proj" (multi_latent_attention.py qkv_up_checkpoint) discards the up-projected Q, K
    // and V once core attention has run; the latents below stay.
    if (!(mla && recompute.recomputes(kRecomputeMlaUpProj))) {
      mixer_sharded += 2.0 * sb * (shape.q_width + shape.k_width) + 2.0 * sb * shape.v_width;
    }
    mixer_sharded += 2.0 * sb * shape.o_width;
    // The attention output is kept by the attention kernel; an FP8 output projection keeps its
    // own quantized copy beside it.
    if (in_bytes < 2.0) mixer_sharded += in_bytes * sb * shape.o_width;
    if (options.flash_attention) {
      mixer_sharded += 4.0 * shape.heads * sb;  // FlashAttention keeps only the fp32 row log-sum-exp
    } else if (!recompute.recomputes(kRecomputeCoreAttn)) {
      // softmax output 2as^2b (+ dropout mask as^2b + dropout output 2as^2b) = 5as^2b
      mixer_sharded += (attention_dropout ? 5.0 : 2.0) * shape.heads * s * kv_s * b;
    }
  }
  unsplit += 2.0 * sb * shape.latent_width;
  // Layers without a mixer (single-sublayer MLP and MoE layers) keep none of the above.
  const double mixer_bytes = shape.mixer_share * (replicated / r + mixer_sharded / t + unsplit);
  replicated = 0;
  unsplit = 0;
  // MLP block: norm input 2sbh, fc1 input 2sbh (1 byte under FP8), inner activations, dropout mask sbh.
  // "mlp" (dense layers) and "moe" recompute keep only the block's input (transformer_layer.py,
  // moe_layer.py: tensor_parallel.checkpoint): a dense MLP's input is the norm input its fused
  // norm already keeps, a MoE layer's is the 16-bit pre-MLP norm output. "shared_experts" drops
  // the shared experts' inner activations, "moe_act" the routed experts' activation output
  // (experts.py TEGroupedMLP activation_checkpoint), each rebuilt in the backward.
  const bool whole_block = moe_layer ? recompute.recomputes(kRecomputeMoe) : recompute.recomputes(kRecomputeMlp);
  double norm_output_bytes = whole_block ? (moe_layer ? 2.0 : 0.0) : in_bytes;
  if (drop_mlp_norm_output) norm_output_bytes = 0.0;
  replicated += 2.0 * sb * h + norm_output_bytes * sb * h + (hidden_dropout ? sb * h : 0.0);
  // A LatentMoE's fc2_latent_proj keeps its input, the combined latent rows (moe_layer.py postprocess).
  const double expert_h = shape.expert_hidden > 0 ? shape.expert_hidden : h;
  if (moe_layer && !whole_block && expert_h != h) replicated += in_bytes * sb * expert_h;
  if (!whole_block && !(moe_layer && recompute.recomputes(kRecomputeSharedExperts))) {
    sharded += sb * mlp_inner_bytes_per_token(shape.ffn, shape.gated, split.activation_input_bytes, in_bytes);
  }
  if (moe_layer && !whole_block) {
    // Routed tokens (top-k x capacity) through the experts: permuted input (the grouped fc1's
    // input), inner activations (÷ ETP) and the fp32 routing probability the activation scales by
    // (Megatron-core >= 0.13, "Memory efficient token permutation" 2659630721: TEGroupedMLP's
    // weighted_bias_swiglu_impl applies the probs and the combine's unpermute carries none, so no
    // expert output is kept for them; core 0.12 and older kept it, 2h more a copy); fp32 router logits.
    const double tokens = sb / r;
    const double fc2_input_bytes = recompute.recomputes(kRecomputeMoeAct) ? 0.0 : in_bytes;
    unsplit += tokens * shape.routed_per_token *
               (in_bytes * expert_h + kRoutingProbBytes +
                mlp_inner_bytes_per_token(shape.expert_ffn, shape.expert_gated, split.activation_input_bytes,
                                          fc2_input_bytes) /
                    std::max(split.etp, 1.0));
    unsplit += 4.0 * tokens * shape.experts;
  }
  return mixer_bytes + shape.mlp_share * (replicated / r + sharded / t + unsplit);
}

double microbatches_in_flight(const Strategy& s, PipelineStage stage, std::int64_t microbatches) {
  if (s.pp <= 1) return 1.0;
  const double p = s.pp;
  // 1F1B: stage r runs p - r warm-up forwards before its first backward (Megatron-core
  // schedules.py forward_backward_pipelining_without_interleaving num_warmup_microbatches + 1).
  const double r = pipeline_stage_index(s, stage);
  if (s.vpp > 1) {
    const double penalty = 1.0 + (p - 1.0) / (p * s.vpp);
    // EP all-to-all overlap: one more warm-up forward of one model chunk (schedules.py
    // get_pp_rank_microbatches: num_warmup_microbatches + 1 with overlap_moe_expert_parallel_comm).
    const double a2a_warmup = s.moe_a2a_overlap ? 1.0 / s.vpp : 0.0;
    return (stage == PipelineStage::last ? 1.0 : p - r) * penalty + a2a_warmup;
  }
  return std::min(p - r, double(std::max<std::int64_t>(microbatches, 1)));
}

namespace {

/// What a stage's decoder layers keep for the backward: `stored` per micro-batch in flight (all
/// of it, wherever activation offloading puts it), `working` once (the layers being recomputed).
struct StageStored {
  double stored = 0;
  double working = 0;
  double layers = 0;      ///< decoder layers and trained MTP layers
  double mtp_layers = 0;  ///< of which MTP layers (outside the decoder block: never offloaded)
  double mtp_stored = 0;  ///< the part of `stored` the MTP layers keep
  StageLayers counts;
  double dense_full = 0;  ///< one dense layer without recompute (for the trace)
  double moe_full = 0;    ///< one MoE layer without recompute (for the trace)
};

StageStored stage_stored(const ModelSpec& model, const Strategy& s, PipelineStage stage, const MicroBatchShape& mb,
                         const MemoryOptions& options) {
  const LayerShape dense = dense_layer_shape(model);
  const LayerShape moe = moe_layer_shape(model, options.moe_capacity_factor);
  const LayerSplit split = layer_split(s);
  const StageLayers layers = stage_layers(model, s, stage);
  StageStored out;
  out.counts = layers;
  const double dense_full = mixed_layer_bytes(model, dense, split, mb, Recompute::none, options);
  const double moe_full = mixed_layer_bytes(model, moe, split, mb, Recompute::none, options);
  out.dense_full = dense_full;
  out.moe_full = moe_full;
  const double dense_largest = mixed_layer_bytes(model, dense, split, mb, Recompute::none, options, true);
  const double largest_full =
      layers.moe > 0 ? std::max(dense_largest, mixed_layer_bytes(model, moe, split, mb, Recompute::none, options, true))
                     : dense_largest;
  if (s.recompute != Recompute::full) {
    const LayerRecompute recompute{s.recompute, s.recompute_modules};
    out.stored = double(layers.dense) * mixed_layer_bytes(model, dense, split, mb, recompute, options) +
                 double(layers.moe) * mixed_layer_bytes(model, moe, split, mb, recompute, options);
  } else {
    const double input = layer_activation_bytes(dense, split, mb.seq_tokens, mb.kv_tokens, mb.sequences,
                                                Recompute::full, options);
    const std::int64_t n = std::max(s.recompute_num_layers, 1);
    const std::int64_t total = layers.total();
    if (s.recompute_method == RecomputeMethod::uniform) {
      // Megatron uniform: chunks of n layers, each keeps its input; backward recomputes one chunk.
      out.stored = double((total + n - 1) / n) * input;
      out.working = double(std::min(n, total)) * largest_full;
    } else {
      // Megatron block: the first n layers of each virtual chunk recompute, the others store all.
      const std::int64_t recomputed = std::min<std::int64_t>(total, n * std::max(s.vpp, 1));
      out.stored =
          double(recomputed) * input + double(total - recomputed) * (layers.moe > 0 ? moe_full : dense_full);
      out.working = recomputed > 0 ? largest_full : 0.0;
    }
  }
  out.layers = double(layers.total());
  // Trained MTP depths run on the last stage, each the module's own layers, kept as a stage of them
  // keeps its layers (mtp_module_model, mtp_module_strategy; mtp_use_repeated_layer: one module at
  // several depths).
  const bool mtp = s.train_mtp && model.num_mtp_layers > 0 && (s.pp <= 1 || stage == PipelineStage::last);
  if (!mtp) return out;
  const double depths = double(s.mtp_depths_run(model.num_mtp_layers));
  const ModelSpec module_model = mtp_module_model(model);
  const Strategy module_strategy = mtp_module_strategy(s, module_model.num_layers);
  const StageStored module = stage_stored(module_model, module_strategy, PipelineStage::last, mb, options);
  // Each depth also keeps its enorm and hnorm inputs (2sbh each) and the eh_proj input, the two
  // normed halves side by side (4sbh) (DeepSeek-V3 report §2.2, Fig. 3). A depth checkpointed whole
  // (full uniform recompute: multi_token_prediction.py _checkpointed_forward) keeps instead its
  // second input, the embedded tokens (2sbh), beside the hidden states its layers' chunk keeps.
  const double sp_split = s.sequence_parallel && s.tp > 1 ? double(s.tp) : 1.0;
  const double checkpointed = module_strategy.recompute == Recompute::full ? 2.0 : 8.0;
  const double inputs = checkpointed * mb.seq_tokens * mb.sequences * double(model.hidden_size) / sp_split;
  out.mtp_stored = depths * (module.stored + inputs);
  out.mtp_layers = depths * module.layers;
  out.stored += out.mtp_stored;
  out.working = std::max(out.working, module.working);
  out.layers += out.mtp_layers;
  out.counts.dense += static_cast<std::int64_t>(depths) * module.counts.dense;
  out.counts.moe += static_cast<std::int64_t>(depths) * module.counts.moe;
  return out;
}

}  // namespace

double resident_activation_layers(const Strategy& s, double stage_layers) {
  if (s.activation_offload_layers <= 0 || stage_layers <= 0) return stage_layers;
  const double offloaded = std::min(double(s.activation_offload_layers), std::max(stage_layers - 1.0, 0.0));
  // Megatron-core (Transformer Engine >= 2.10 cpu_offload.py DefaultOffloadSynchronizer): the first
  // N layers go to host, a layer's GPU copy is freed once its copy is done: L - N stay. verl's FSDP
  // handler (utils/activation_offload.py AsyncDoubleBufferGroupOffloadHandler) frees a group only
  // after the next one is computed: one group more is on the GPU, two at most.
  const double in_flight_group = s.backend == Backend::fsdp ? 1.0 : 0.0;
  return std::min(stage_layers, stage_layers - offloaded + in_flight_group);
}

double offloaded_activation_bytes(const ModelSpec& model, const Strategy& s, PipelineStage stage,
                                  const MicroBatchShape& mb, const MemoryOptions& options) {
  if (s.activation_offload_layers <= 0) return 0.0;
  const StageStored kept = stage_stored(model, s, stage, mb, options);
  if (kept.layers <= 0) return 0.0;
  const double decoder = kept.layers - kept.mtp_layers;
  if (decoder <= 0) return 0.0;
  const double offloaded = std::min(double(s.activation_offload_layers), std::max(decoder - 1.0, 0.0));
  return (kept.stored - kept.mtp_stored) * offloaded / decoder;
}

double stage_activation_bytes(const ModelSpec& model, const Strategy& s, PipelineStage stage,
                              const MicroBatchShape& mb, const MemoryOptions& options, Trace* trace) {
  const StageStored kept = stage_stored(model, s, stage, mb, options);
  // Activation offloading keeps only the resident decoder layers' share on the GPU (an average
  // layer); it offloads decoder layers only (the MTP block runs outside TransformerBlock's offload
  // context).
  const double decoder = kept.layers - kept.mtp_layers;
  const double decoder_stored = kept.stored - kept.mtp_stored;
  const double resident_decoder = decoder > 0 ? resident_activation_layers(s, decoder) : 0.0;
  const double stored = (decoder > 0 ? decoder_stored * resident_decoder / decoder : 0.0) + kept.mtp_stored;
  const double working = kept.working;
  // First stage: the int64 input ids and, with embedding dropout, its 1-byte mask (÷ TP with SP)
  // (Megatron-LM theoretical_memory_usage.py: 8sbp + sbhp; Korthikanti §4.3).
  const bool embedding_dropout = options.dropout || model.embedding_dropout > 0;
  const double sp_split = s.sequence_parallel && s.tp > 1 ? double(s.tp) : 1.0;
  const double ids = stage == PipelineStage::first
                         ? kInputIdBytes * mb.seq_tokens * mb.sequences +
                               (embedding_dropout ? mb.seq_tokens * mb.sequences * double(model.hidden_size) / sp_split
                                                  : 0.0)
                         : 0.0;
  const double in_flight = microbatches_in_flight(s, stage, mb.microbatches);
  const double bytes = in_flight * (stored + ids) + working;
  trace_bytes(
      trace,
      stage == PipelineStage::first    ? "memory/activations/first_stage"
      : stage == PipelineStage::middle ? "memory/activations/middle_stage"
                                       : "memory/activations/last_stage",
      bytes, "in_flight * (resident layers * per_layer(recompute) + 8*s*b ids [+ s*b*h/sp embedding dropout mask]) + recompute_working",
      "Korthikanti et al. 2022 §4 / Table 2 (per tensor); Narayanan et al. 2021 §2.2 (in flight)", [&] {
        return fmt::format(
            "s={:.6g} b={:.6g} h={} dense_layers={} moe_layers={} tp={} sp={} cp={} "
            "recompute={} n={} in_flight={:.4g} stored_per_microbatch={:.4g} (without recompute: dense layer={:.4g}, "
            "MoE layer={:.4g}) working={:.4g} flash_attention={} linear_attention_share={:.4g} resident_layers={:.4g}",
            mb.seq_tokens, mb.sequences, model.hidden_size, kept.counts.dense, kept.counts.moe, s.tp,
            s.sequence_parallel, s.cp, static_cast<int>(s.recompute), s.recompute_num_layers, in_flight, stored,
            kept.dense_full, kept.moe_full, working, options.flash_attention, linear_share(model),
            resident_decoder + kept.mtp_layers);
      });
  return bytes;
}

double forward_only_activation_bytes(const ModelSpec& model, const Strategy& s, const MicroBatchShape& mb,
                                     const MemoryOptions& options, Trace* trace) {
  const LayerShape dense = dense_layer_shape(model);
  const LayerShape moe = moe_layer_shape(model, options.moe_capacity_factor);
  const LayerSplit split = layer_split(s);
  double largest = mixed_layer_bytes(model, dense, split, mb, Recompute::none, options, true);
  if (model.moe) largest = std::max(largest, mixed_layer_bytes(model, moe, split, mb, Recompute::none, options, true));
  const double residual = 2.0 * mb.seq_tokens * mb.sequences * double(model.hidden_size);
  const double bytes = largest + residual;
  trace_bytes(
      trace, "memory/activations/forward_only", bytes, "largest_layer_activations + 2*s*b*h residual stream",
      "Korthikanti et al. 2022 §4 (no tensors kept across layers without autograd)", [&] {
        return fmt::format("s={:.6g} b={:.6g} largest_layer={:.4g}", mb.seq_tokens, mb.sequences, largest);
      });
  return bytes;
}

}  // namespace meshplan
