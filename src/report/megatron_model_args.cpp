// Hugging Face config -> Megatron-LM pretrain_gpt.py (pretrain_hybrid.py for hybrid layers) model arguments. Flag names: Megatron-LM
// megatron/training/arguments.py and the TransformerConfig / MLATransformerConfig fields its
// ArgumentGroupFactory turns into flags (megatron/core/transformer/transformer_config.py, d98e8a6).
// Correspondences: Megatron-Bridge's and verl mbridge's bridges (rope base, qkv bias, router
// pre-softmax for norm_topk_prob=false, expert bias for noaux_tc, MLA dimensions).
#include "report/megatron_model_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace meshplan {
namespace {

std::string number(double value) { return fmt::format("{:g}", value); }

/// Megatron's list syntax for per-layer patterns (moe_freq_type evaluates it): runs of 0/1.
std::string layer_pattern(const std::vector<bool>& layers) {
  std::string pattern;
  for (std::size_t begin = 0; begin < layers.size();) {
    std::size_t end = begin;
    while (end < layers.size() && layers[end] == layers[begin]) ++end;
    pattern += fmt::format("{}[{}]*{}", pattern.empty() ? "" : "+", layers[begin] ? 1 : 0, end - begin);
    begin = end;
  }
  return "\"(" + pattern + ")\"";
}

class ArgList {
 public:
  explicit ArgList(MegatronModelArgs& out) : out_(out) {}
  void operator()(const std::string& name, const std::string& value = "") {
    out_.args.push_back(value.empty() ? name : name + " " + value);
  }
  void note(const std::string& text) { out_.notes.push_back(text); }

 private:
  MegatronModelArgs& out_;
};

void attention_args(const ModelSpec& m, ArgList& arg) {
  const AttentionSpec& a = m.attention;
  arg("--num-attention-heads", std::to_string(a.num_heads));
  if (a.kind == AttentionKind::mla) {
    arg("--multi-latent-attention");
    if (a.q_lora_rank > 0) arg("--q-lora-rank", std::to_string(a.q_lora_rank));
    arg("--kv-lora-rank", std::to_string(a.kv_lora_rank));
    arg("--qk-head-dim", std::to_string(a.qk_nope_head_dim));
    arg("--qk-pos-emb-head-dim", std::to_string(a.qk_rope_head_dim));
    arg("--v-head-dim", std::to_string(a.v_head_dim));
  } else {
    if (a.num_kv_heads != a.num_heads) {
      arg("--group-query-attention");
      arg("--num-query-groups", std::to_string(a.num_kv_heads));
    }
    arg("--kv-channels", std::to_string(a.head_dim));
  }
  if (a.qk_norm) arg("--qk-layernorm");
  // add_bias_linear (default on) covers every linear layer; add_qkv_bias the q/k/v projections only.
  const bool any_linear_bias = a.o_bias || m.dense_mlp.bias;
  if (!any_linear_bias) arg("--disable-bias-linear");
  if (a.qkv_bias && !any_linear_bias) arg("--add-qkv-bias");
  if (a.sinks) arg("--softmax-type", "learnable");  // gpt-oss: one learned sink logit per head
  if (a.chunked_window) {
    arg.note(fmt::format("chunked attention ({}-token chunks on {} of {} layers, Llama 4) has no pretrain_gpt.py "
                         "flag (a window_size window slides instead)",
                         a.sliding_window, a.num_sliding_layers, m.num_layers));
  } else if (a.sliding_window > 0) {
    arg("--window-size", fmt::format("\"({},0)\"", a.sliding_window));
    // window_attn_skip_freq N: one full-attention layer after N-1 sliding ones (layer 0 slides).
    if (a.num_sliding_layers == (m.num_layers + 1) / 2) {
      arg("--window-attn-skip-freq", "2");
    } else {
      arg.note(fmt::format("{} of {} layers use the sliding window: set --window-attn-skip-freq to their pattern",
                           a.num_sliding_layers, m.num_layers));
    }
  }
}

void rope_args(const ModelSpec& m, ArgList& arg) {
  const RopeSpec& r = m.rope;
  const bool yarn = r.scaling == "yarn";
  // MLA takes YaRN through --rope-type; other attention through the position embedding type.
  const bool mla = m.attention.kind == AttentionKind::mla;
  arg("--position-embedding-type", yarn && !mla ? "yarn" : "rope");
  if (r.theta != std::floor(r.theta)) arg.note(fmt::format("rope_theta {} is not whole; --rotary-base takes an integer", number(r.theta)));
  arg("--rotary-base", fmt::format("{:.0f}", r.theta));
  if (r.fraction != 1.0) arg("--rotary-percent", number(r.fraction));
  if (r.scaling == "llama3") {
    arg("--use-rope-scaling");
    arg("--rope-scaling-factor", number(r.factor));
    // RotaryEmbedding._apply_scaling fixes low 1, high 4 and 8192 original positions.
    if (r.low_freq_factor != 1.0 || r.high_freq_factor != 4.0 || r.original_max_positions != 8192) {
      arg.note("llama3 rope scaling with other than low_freq_factor 1, high_freq_factor 4, 8192 original "
               "positions: Megatron-LM's RotaryEmbedding fixes those three");
    }
  } else if (yarn) {
    if (mla) arg("--rope-type", "yarn");
    arg("--rotary-scaling-factor", number(r.factor));
    arg("--mscale", number(r.mscale));
    arg("--mscale-all-dim", number(r.mscale_all_dim));
    if (!mla) {
      arg("--yarn-original-max-position-embeddings", std::to_string(r.original_max_positions));
      arg("--yarn-beta-fast", number(r.beta_fast));
      arg("--yarn-beta-slow", number(r.beta_slow));
    } else if (r.original_max_positions != 4096 || r.beta_fast != 32.0 || r.beta_slow != 1.0) {
      // MLATransformerConfig reads these from no flag; its defaults are 4096, 32, 1.
      arg.note("YaRN original positions / beta differ from MLATransformerConfig's defaults (4096, 32, 1), "
               "which no pretrain_gpt.py flag sets");
    }
  } else if (r.scaling == "mrope") {
    // Text tokens carry the same temporal/height/width position, where multimodal rope equals
    // plain rope; pretrain_gpt.py feeds text (Qwen2VLRotaryEmbedding, Qwen2.5-VL report §2.1).
    arg.note("multimodal rope (mrope_section) runs as plain rope, which it equals on text-only data");
  } else if (r.scaling == "linear" && r.factor == std::floor(r.factor)) {
    // Linear scaling divides positions by the factor, as RotaryEmbedding does with
    // seq_len_interpolation_factor (megatron/core/models/common/embeddings/rotary_pos_embedding.py;
    // arguments.py takes it as an int).
    arg("--rotary-seq-len-interpolation-factor", number(r.factor));
  } else if (!r.scaling.empty()) {
    arg.note(fmt::format("rope_scaling type '{}' (factor {}) has no pretrain_gpt.py flag", r.scaling, number(r.factor)));
  }
}

void moe_args(const ModelSpec& m, ArgList& arg) {
  const MoeSpec& moe = *m.moe;
  arg("--num-experts", std::to_string(moe.num_experts));
  arg("--moe-router-topk", std::to_string(moe.experts_per_token));
  arg("--moe-ffn-hidden-size", std::to_string(moe.expert_intermediate_size));
  if (m.num_dense_layers > 0 && !m.single_sublayer_layers()) arg("--moe-layer-freq", layer_pattern(moe.layer_is_moe));
  if (moe.num_shared_experts > 0) {
    arg("--moe-shared-expert-intermediate-size", std::to_string(moe.shared_intermediate_size));
    if (moe.shared_expert_gate) arg("--moe-shared-expert-gate");
  }
  if (moe.score == RouterScore::sigmoid) {
    arg("--moe-router-score-function", "sigmoid");
    // TopKRouter renormalizes sigmoid top-k scores whenever k > 1.
    if (!moe.normalize_top_k && moe.experts_per_token > 1) {
      arg.note("sigmoid routing without norm_topk_prob: Megatron-core renormalizes the top-k scores");
    }
  } else if (!moe.normalize_top_k) {
    // softmax over every expert before the top-k keeps the weights unnormalized (mbridge: qwen2_moe).
    arg("--moe-router-pre-softmax");
  }
  if (moe.routed_scaling_factor != 1.0) arg("--moe-router-topk-scaling-factor", number(moe.routed_scaling_factor));
  if (moe.num_groups > 0) {
    arg("--moe-router-num-groups", std::to_string(moe.num_groups));
    arg("--moe-router-group-topk", std::to_string(moe.group_top_k));
  }
  if (moe.expert_bias) arg("--moe-router-enable-expert-bias");
  if (moe.latent_size > 0) arg("--moe-latent-size", std::to_string(moe.latent_size));
  if (moe.router_bias) arg.note("the router's bias (gpt-oss) has no pretrain_gpt.py flag");
  arg("--moe-grouped-gemm");
}

/// Megatron-core HybridModel layers (pretrain_hybrid.py): the pattern with Megatron's symbols
/// (megatron/core/models/hybrid/hybrid_layer_allocation.py: M mamba, * attention, - MLP, E MoE, the
/// symbols Nemotron-H's config uses) and the Mamba-2 mixer's sizes (TransformerConfig mamba_* fields;
/// Megatron-LM's examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.sh).
/// Trained MTP depths follow the decoder's pattern, each after a '/' (arguments.py's unified
/// pattern, "M*M*/MM/MM": two depths of "MM"; the per-layer MTP pattern flag is deprecated).
void hybrid_args(const ModelSpec& m, std::int64_t mtp_depths, ArgList& arg) {
  std::string pattern = m.hybrid_layer_pattern;
  for (std::int64_t depth = 0; depth < mtp_depths && !m.mtp_layer_pattern.empty(); ++depth) {
    pattern += "/" + m.mtp_layer_pattern;
  }
  arg("--hybrid-layer-pattern", pattern);
  if (m.linear_attention && m.linear_attention->kind == LinearAttentionKind::mamba2) {
    const LinearAttentionSpec& mamba = *m.linear_attention;
    arg("--mamba-num-heads", std::to_string(mamba.num_value_heads));
    arg("--mamba-head-dim", std::to_string(mamba.value_head_dim));
    arg("--mamba-state-dim", std::to_string(mamba.key_head_dim));
    arg("--mamba-num-groups", std::to_string(mamba.num_key_heads));
    if (mamba.conv_kernel_size != 4) {
      arg.note(fmt::format("a {}-wide Mamba conv (Megatron-core MambaMixer builds d_conv 4)", mamba.conv_kernel_size));
    }
  }
}

}  // namespace

bool builds_hybrid_model(const ModelSpec& model) { return !model.hybrid_layer_pattern.empty(); }

MegatronModelArgs megatron_model_args(const ModelSpec& m, int tp, std::int64_t seq_len, std::int64_t mtp_depths) {
  if (m.num_mtp_layers == 0) mtp_depths = 0;
  MegatronModelArgs out;
  ArgList arg(out);
  arg("--num-layers", std::to_string(m.num_layers));
  arg("--hidden-size", std::to_string(m.hidden_size));
  attention_args(m, arg);
  const std::int64_t ffn = m.num_dense_layers > 0 || !m.moe ? m.dense_mlp.intermediate_size : m.moe->expert_intermediate_size;
  arg("--ffn-hidden-size", std::to_string(ffn));
  if (m.dense_mlp.gated) arg("--swiglu");
  if (m.dense_mlp.squared_relu || (m.moe && !m.moe->gated_experts)) arg("--squared-relu");
  if (builds_hybrid_model(m)) hybrid_args(m, mtp_depths, arg);
  arg("--normalization", m.norm == NormKind::rms_norm ? "RMSNorm" : "LayerNorm");
  arg("--norm-epsilon", number(m.norm_eps));
  if (m.position == PositionKind::rope) {
    rope_args(m, arg);
    // Rotary tables are computed, not learned: the launch's sequence may exceed the config's.
    arg("--max-position-embeddings", std::to_string(std::max(m.max_position_embeddings, seq_len)));
  } else if (m.position == PositionKind::none) {
    arg("--position-embedding-type", "none");
    arg("--max-position-embeddings", std::to_string(std::max(m.max_position_embeddings, seq_len)));
  } else {
    arg("--position-embedding-type", "learned_absolute");
    arg("--max-position-embeddings", std::to_string(m.max_position_embeddings));
  }
  if (!m.tie_word_embeddings) arg("--untie-embeddings-and-output-weights");
  // The embedding rows of the checkpoint; VocabParallelEmbedding splits them over TP.
  const std::int64_t padded = (m.vocab_size + tp - 1) / tp * tp;
  arg("--padded-vocab-size", std::to_string(padded));
  if (padded != m.vocab_size) {
    arg.note(fmt::format("vocab_size {} is padded to {} rows for TP={}; pad the checkpoint's embedding and "
                         "output layer the same way", m.vocab_size, padded, tp));
  }
  if (m.moe) moe_args(m, arg);
  if (mtp_depths > 0) {
    arg("--mtp-num-layers", std::to_string(mtp_depths));
    // One module run at more depths than the checkpoint holds (TransformerConfig mtp_use_repeated_layer).
    if (mtp_depths > m.num_mtp_layers) arg("--mtp-use-repeated-layer");
  }
  if (m.vision) {
    arg.note(fmt::format("pretrain_gpt.py builds the language model only; the {} vision tower needs "
                         "Megatron-LM's multimodal examples", m.vision->kind));
  }
  return out;
}

}  // namespace meshplan
