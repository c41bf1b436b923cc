#pragma once
// ModelSpec: the shape of a transformer read from a Hugging Face config.json, with its exact
// unique parameter counts (../shared/models/CONVENTIONS.md). Knows nothing of GPUs.
// This struct is the contract between the model reader and the cost model: fields may be
// added, never renamed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshplan {

enum class NormKind { rms_norm, layer_norm };
enum class PositionKind { rope, learned, none };  ///< learned: GPT-2 style absolute positions;
                                                 ///< none: no positions (Nemotron-H attention)
enum class AttentionKind { standard, mla };    ///< standard = MHA / GQA / MQA; mla = DeepSeek

struct AttentionSpec {
  AttentionKind kind = AttentionKind::standard;
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;   ///< == num_heads for MHA and for MLA
  std::int64_t head_dim = 0;       ///< q/k/v head size (standard); for MLA qk_nope + qk_rope
  // MLA only (zero otherwise):
  std::int64_t q_lora_rank = 0;    ///< 0: q is not compressed (DeepSeek-V2-Lite)
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  bool qkv_bias = false;           ///< bias on q, k, v projections
  bool o_bias = false;             ///< bias on the output projection
  bool qk_norm = false;            ///< Qwen3 q_norm / k_norm (RMSNorm of head_dim)
  bool qk_norm_across_heads = false;  ///< MiniMax-M2 qk_norm_type "per_layer": one RMSNorm over
                                      ///< every head's q, one over every kv head's k
  bool sinks = false;              ///< gpt-oss attention sinks (one per head)
  bool output_gate = false;        ///< Qwen3-Next gated attention: q_proj also emits a sigmoid
                                   ///< gate per head (heads x head_dim more q_proj outputs)
  // DeepSeek-V3.2 sparse attention: the lightning indexer of each layer (0: none).
  std::int64_t index_heads = 0;         ///< index_n_heads
  std::int64_t index_head_dim = 0;      ///< index_head_dim
  std::int64_t sliding_window = 0;      ///< 0: every layer attends to the full sequence
  std::int64_t num_sliding_layers = 0;  ///< layers that use the window (gpt-oss: alternate ones)
  bool chunked_window = false;          ///< Llama 4 chunked attention: a token attends within its
                                        ///< aligned `sliding_window`-token chunk (KV and scores stop
                                        ///< at the chunk as at a window; not a sliding span)
};

/// The token mixer of the linear-attention layers of a hybrid model (the other layers use
/// `attention`). Their state per sequence is fixed, whatever the context length.
enum class LinearAttentionKind {
  gated_delta_net,  ///< Qwen3-Next / Qwen3.5 Gated DeltaNet: short conv + delta-rule state
  lightning,        ///< MiniMax lightning attention: one head_dim x head_dim state per head
  mamba2,           ///< Mamba-2 SSD mixer (Nemotron-H): value heads = mamba_num_heads of
                    ///< mamba_head_dim, key heads = n_groups of B/C, key_head_dim = ssm_state_size
};

/// The kind's name in JSON and reports.
inline const char* linear_attention_kind_id(LinearAttentionKind kind) {
  switch (kind) {
    case LinearAttentionKind::lightning: return "lightning";
    case LinearAttentionKind::mamba2: return "mamba2";
    case LinearAttentionKind::gated_delta_net: break;
  }
  return "gated_delta_net";
}

struct LinearAttentionSpec {
  LinearAttentionKind kind = LinearAttentionKind::gated_delta_net;
  std::int64_t num_layers = 0;       ///< decoder layers with this mixer (MTP excluded)
  std::int64_t num_key_heads = 0;    ///< GDN linear_num_key_heads (lightning: = value heads;
                                     ///< Mamba-2: n_groups, the B and C groups)
  std::int64_t num_value_heads = 0;  ///< GDN linear_num_value_heads; lightning num_attention_heads
  std::int64_t key_head_dim = 0;
  std::int64_t value_head_dim = 0;
  std::int64_t conv_kernel_size = 0;        ///< GDN linear_conv_kernel_dim, Mamba-2 conv_kernel; 0: none
  int state_bytes_per_element = 0;          ///< recurrent state: 0 = the engine's dtype; 4 when the
                                            ///< config keeps it in fp32 (mamba_ssm_dtype)
  std::int64_t chunk_size = 0;              ///< Mamba-2 SSD chunk_size (tokens per chunk); 0: none
  bool conv_bias = false;                   ///< Mamba-2 use_conv_bias
  bool projection_bias = false;             ///< Mamba-2 mamba_proj_bias (in_proj and out_proj)
  std::int64_t params_per_layer = 0;        ///< one layer's mixer (projections, conv, norms)
};

struct MlpSpec {
  std::int64_t intermediate_size = 0;  ///< ffn width
  bool gated = true;                   ///< SwiGLU-style gate+up+down (3 matrices); else up+down
  bool bias = false;
  bool squared_relu = false;           ///< up+down with relu(x)^2 between (Nemotron-H relu2); else GeLU
};

enum class RouterScore { softmax, sigmoid };  ///< config.json scoring_func

struct MoeSpec {
  std::int64_t num_experts = 0;               ///< routed experts per MoE layer
  std::int64_t experts_per_token = 0;         ///< top-k
  std::int64_t expert_intermediate_size = 0;  ///< ffn width of one routed expert
  std::int64_t num_shared_experts = 0;        ///< always-active experts (DeepSeek, Qwen2-MoE: 1)
  std::int64_t shared_intermediate_size = 0;  ///< total ffn width of the shared expert(s)
  std::int64_t num_moe_layers = 0;
  std::int64_t routed_expert_params = 0;      ///< parameters of ONE routed expert
  std::int64_t router_params = 0;             ///< per MoE layer: gate weight (+ bias, + noaux_tc
                                              ///< e_score_correction_bias)
  std::int64_t shared_expert_params = 0;      ///< per MoE layer, all shared experts (+ their gate)
  // Routing (Hugging Face MoE gates: MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock, DeepSeek MoEGate,
  // GptOssTopKRouter):
  RouterScore score = RouterScore::softmax;
  bool normalize_top_k = true;         ///< top-k weights renormalized to sum 1 (norm_topk_prob)
  double routed_scaling_factor = 1.0;  ///< DeepSeek routed_scaling_factor
  std::int64_t num_groups = 0;         ///< group-limited routing: n_group (0: none)
  std::int64_t group_top_k = 0;        ///< topk_group
  bool expert_bias = false;            ///< noaux_tc e_score_correction_bias
  bool router_bias = false;            ///< gpt-oss router bias
  bool expert_linear_bias = false;     ///< biased expert projections (gpt-oss gate_up_proj_bias,
                                       ///< down_proj_bias)
  double glu_clamp_limit = 0;          ///< gpt-oss swiglu_limit: the GLU's halves clamped to it
                                       ///< before the activation (0: no clamp)
  bool shared_expert_gate = false;     ///< Qwen2-MoE sigmoid gate on the shared expert
  bool gated_experts = true;           ///< routed and shared experts are GLUs (gate + up + down);
                                       ///< false: up + down (Nemotron-H relu2)
  /// LatentMoE (Nemotron 3 Super / Ultra moe_latent_size; Megatron-core moe_layer.py): the routed
  /// experts read and write this width, and the dispatcher moves it; fc1_latent_proj (h -> latent)
  /// before the dispatch and fc2_latent_proj (latent -> h) after the combine. 0: no latent (h).
  std::int64_t latent_size = 0;
  std::int64_t latent_projection_params = 0;  ///< per MoE layer: both latent projections (TELinear
                                              ///< "duplicated": whole on every TP rank, as the router)
  std::vector<bool> layer_is_moe;      ///< one entry per decoder layer (MTP excluded)
};

/// Rotary positions as config.json gives them (rope_theta, rope_scaling); Hugging Face
/// modeling_rope_utils.py names.
struct RopeSpec {
  double theta = 10000.0;                   ///< rope_theta
  double fraction = 1.0;                    ///< share of head_dim that is rotated (GPT-NeoX rotary_pct)
  std::string scaling;                      ///< rope_scaling type: "" (none), llama3, yarn, linear, mrope, ...
  double factor = 1.0;
  double low_freq_factor = 1.0;             ///< llama3
  double high_freq_factor = 4.0;            ///< llama3
  std::int64_t original_max_positions = 0;  ///< llama3 / yarn original_max_position_embeddings
  double beta_fast = 32.0;                  ///< yarn
  double beta_slow = 1.0;                   ///< yarn
  double mscale = 1.0;                      ///< DeepSeek yarn (absent: 1, as Hugging Face's get_mscale)
  double mscale_all_dim = 0.0;              ///< DeepSeek yarn (absent: 0)
  std::vector<std::int64_t> mrope_section;  ///< Qwen2.5-VL multimodal rope sections
};

struct VisionSpec {
  std::string kind;                    ///< "qwen2_5_vl" | "qwen3_vl" | "qwen3_5" | "siglip" (Gemma 3) | "llama4" | "glm4v"
  std::int64_t depth = 0;
  std::int64_t hidden_size = 0;
  std::int64_t num_heads = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t patch_size = 0;
  std::int64_t temporal_patch_size = 0;
  std::int64_t spatial_merge_size = 0;
  std::int64_t in_channels = 0;
  std::int64_t out_hidden_size = 0;    ///< the language model's hidden size
  std::int64_t params = 0;             ///< whole tower: patch embed + blocks + merger(s)
  // Added by the model reader:
  std::int64_t merger_params = 0;      ///< part of `params` run once per merged (LM) token:
                                       ///< the final merger + the deepstack mergers
  std::int64_t num_deepstack_mergers = 0;  ///< Qwen3-VL deepstack_visual_indexes (else 0)
};

/// Unique parameters by component, summed over the whole model (MTP excluded except `mtp`).
struct ParamBreakdown {
  std::int64_t embedding = 0;       ///< input token embedding
  std::int64_t lm_head = 0;         ///< 0 when tied to the embedding
  std::int64_t position_embedding = 0;  ///< learned positions (classic GPT)
  std::int64_t attention = 0;       ///< softmax-attention layers: projections, biases, q/k norms, sinks, MLA norms
  std::int64_t linear_attention = 0;  ///< linear-attention layers of a hybrid model
  std::int64_t layer_norms = 0;     ///< all layers' pre-attention and pre-MLP norms
  std::int64_t final_norm = 0;
  std::int64_t dense_mlp = 0;       ///< MLPs of the dense layers
  std::int64_t shared_experts = 0;  ///< all MoE layers
  std::int64_t routed_experts = 0;  ///< all MoE layers, all experts
  std::int64_t routers = 0;         ///< all MoE layers
  std::int64_t latent_projections = 0;  ///< all MoE layers' fc1 / fc2 latent projections (LatentMoE)
  std::int64_t vision = 0;          ///< vision tower incl. merger
  std::int64_t mtp = 0;             ///< multi-token-prediction layers (not in total)
};

struct ModelSpec {
  std::string name;         ///< preset name or the file it came from
  std::string model_type;   ///< config.json model_type (top level for VL models)
  std::string architecture; ///< first entry of `architectures`, "" if absent

  std::int64_t hidden_size = 0;
  std::int64_t num_layers = 0;          ///< decoder layers (num_hidden_layers), MTP excluded
  std::int64_t vocab_size = 0;
  std::int64_t max_position_embeddings = 0;
  bool tie_word_embeddings = false;
  NormKind norm = NormKind::rms_norm;
  double norm_eps = 1e-6;               ///< rms_norm_eps / layer_norm_epsilon
  std::int64_t norms_per_layer = 2;     ///< 2: pre-attention + pre-MLP; 4: Gemma 2/3 sandwich norms
  PositionKind position = PositionKind::rope;
  RopeSpec rope;                        ///< meaningful when position == rope

  AttentionSpec attention;
  MlpSpec dense_mlp;                    ///< MLP of the dense layers
  std::int64_t num_dense_layers = 0;    ///< layers with dense_mlp (= num_layers for dense models)
  std::optional<MoeSpec> moe;           ///< nullopt for dense models
  std::optional<VisionSpec> vision;     ///< nullopt for text-only models
  std::optional<LinearAttentionSpec> linear_attention;  ///< hybrid models only
  std::string hybrid_layer_pattern;     ///< the layers' kinds as Megatron-core writes them (M mamba,
                                        ///< * attention, - MLP, E MoE); "" for other models
  std::int64_t num_mtp_layers = 0;      ///< DeepSeek-V3 num_nextn_predict_layers, Qwen3.5 mtp_num_hidden_layers
  std::string mtp_layer_pattern;        ///< the layers of one MTP module in hybrid_layer_pattern's symbols
                                        ///< (Nemotron-H mtp_hybrid_override_pattern, "*E"); "": one decoder layer
  // Dropout rates of config.json (0 for modern LLMs): attention_dropout / GPT-2 attn_pdrop on the
  // attention probabilities, hidden_dropout / resid_pdrop after attention and MLP, embd_pdrop.
  double attention_dropout = 0;
  double hidden_dropout = 0;
  double embedding_dropout = 0;

  // Per-layer unique parameter counts, for sharding in the cost model.
  std::int64_t attention_params_per_layer = 0;  ///< (ParamBreakdown::attention + linear_attention) / num_layers
                                                ///< (a hybrid model's mean token mixer, rounded down)
  std::int64_t norm_params_per_layer = 0;       ///< the layer's two norms
  std::int64_t dense_mlp_params_per_layer = 0;  ///< one dense layer's MLP (single-sublayer layers:
                                                ///< the dense MLPs' mean over the non-MoE layers)

  ParamBreakdown params;
  std::int64_t total_params = 0;   ///< unique, MTP excluded (CONVENTIONS.md)
  std::int64_t active_params = 0;  ///< per token: total - moe_layers*(experts-topk)*expert

  bool is_moe() const { return moe.has_value(); }
  /// Each decoder layer holds one sublayer, a token mixer, an MLP or a MoE, never a mixer and an MLP
  /// (Megatron-core HybridModel; Nemotron-H hybrid_override_pattern): the models with a layer
  /// pattern. The layers without an MLP are num_layers - num_dense_layers - num_moe_layers; those
  /// without a mixer, the MLP and MoE ones.
  bool single_sublayer_layers() const { return !hybrid_layer_pattern.empty(); }
  /// Layers with a token mixer: all of them, or the single-sublayer layers that are not MLPs.
  std::int64_t num_mixer_layers() const {
    if (!single_sublayer_layers()) return num_layers;
    return num_layers - num_dense_layers - (moe ? moe->num_moe_layers : 0);
  }
  /// Layers whose token mixer is softmax attention (all mixers but the linear-attention ones).
  std::int64_t num_attention_layers() const {
    return num_mixer_layers() - (linear_attention ? linear_attention->num_layers : 0);
  }
  /// Token mixers, dense MLPs and MoEs over all decoder layers: 2 x num_layers, or num_layers when
  /// each layer holds one sublayer.
  std::int64_t num_sublayers() const {
    return num_mixer_layers() + num_dense_layers + (moe ? moe->num_moe_layers : 0);
  }
  /// Sublayers (token mixer, MLP) per decoder layer over a transformer layer's two: 1, or 0.5 for
  /// single-sublayer layers. Scales what every sublayer does once (norms, residuals, TP collectives).
  double sublayer_share() const { return single_sublayer_layers() ? 0.5 : 1.0; }
  /// The width the routed experts read and write and the dispatcher moves: moe_latent_size for a
  /// LatentMoE, else hidden_size.
  std::int64_t expert_hidden_size() const { return moe && moe->latent_size > 0 ? moe->latent_size : hidden_size; }
};

}  // namespace meshplan
