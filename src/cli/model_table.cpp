// `meshplan model` terminal view.
#include <fmt/format.h>

#include <array>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/model_report.hpp"
#include "core/units.hpp"
#include "model/flops.hpp"
#include "model/kv_cache.hpp"

namespace meshplan {

namespace {

std::string attention_line(const ModelSpec& model) {
  const AttentionSpec& a = model.attention;
  if (a.kind == AttentionKind::mla) {
    return fmt::format("MLA: {} heads, q_lora_rank {}, kv_lora_rank {}, qk {}+{} (nope+rope), v {}",
                       a.num_heads, a.q_lora_rank == 0 ? std::string("none") : std::to_string(a.q_lora_rank),
                       a.kv_lora_rank, a.qk_nope_head_dim, a.qk_rope_head_dim, a.v_head_dim);
  }
  const char* kind = a.num_kv_heads == a.num_heads ? "MHA" : (a.num_kv_heads == 1 ? "MQA" : "GQA");
  std::string line = fmt::format("{}: {} heads, {} kv heads, head_dim {}", kind, a.num_heads, a.num_kv_heads,
                                 a.head_dim);
  if (a.qkv_bias) line += a.o_bias ? ", q/k/v/o bias" : ", q/k/v bias";
  if (a.qk_norm) line += ", q/k norm";
  if (a.output_gate) line += ", output gate";
  if (a.sinks) line += ", sinks";
  if (model.position == PositionKind::none) line += ", no positional embedding";
  if (a.sliding_window > 0) {
    line += fmt::format(", {} {} on {} of {} layers", a.chunked_window ? "chunked attention" : "sliding window",
                        a.sliding_window, a.num_sliding_layers, model.num_layers);
  }
  if (model.linear_attention) line += fmt::format(" (on {} of {} layers)", model.num_attention_layers(), model.num_layers);
  return line;
}

/// "52 (23 MoE, 0 dense)"; a single-sublayer hybrid's kinds and its pattern.
std::string layers_line(const ModelSpec& model) {
  const std::int64_t moe_layers = model.moe ? model.moe->num_moe_layers : 0;
  if (model.single_sublayer_layers()) {
    const std::int64_t linear = model.linear_attention ? model.linear_attention->num_layers : 0;
    return fmt::format("{}, one sublayer each: {} {}, {} attention, {} MLP, {} MoE ({})", model.num_layers, linear,
                       model.linear_attention ? linear_attention_kind_id(model.linear_attention->kind) : "linear",
                       model.num_attention_layers(), model.num_dense_layers, moe_layers, model.hybrid_layer_pattern);
  }
  if (!model.moe) return std::to_string(model.num_layers);
  return fmt::format("{} ({} MoE, {} dense)", model.num_layers, moe_layers, model.num_dense_layers);
}

std::string linear_attention_line(const LinearAttentionSpec& l, std::int64_t num_layers) {
  if (l.kind == LinearAttentionKind::mamba2) {
    return fmt::format("Mamba-2: {} heads x {}, {} groups, state {}, conv {}, on {} of {} layers ({} params each)",
                       l.num_value_heads, l.value_head_dim, l.num_key_heads, l.key_head_dim, l.conv_kernel_size,
                       l.num_layers, num_layers, human_count(l.params_per_layer));
  }
  if (l.kind == LinearAttentionKind::lightning) {
    return fmt::format("lightning attention: {} heads, head_dim {}, on {} of {} layers ({} params each)",
                       l.num_value_heads, l.value_head_dim, l.num_layers, num_layers, human_count(l.params_per_layer));
  }
  return fmt::format("Gated DeltaNet: {} key heads x {}, {} value heads x {}, conv {}, on {} of {} layers ({} params "
                     "each)",
                     l.num_key_heads, l.key_head_dim, l.num_value_heads, l.value_head_dim, l.conv_kernel_size,
                     l.num_layers, num_layers, human_count(l.params_per_layer));
}

/// The KV cache rows, by layer kind as the rollout budget counts them (kv_cache_shape at TP 1):
/// layers that keep every token, sliding (or chunked) layers capped at their window, and the
/// linear-attention state of one sequence.
std::vector<std::string> kv_cache_rows(const ModelSpec& model) {
  const AttentionSpec& a = model.attention;
  const KvCacheShape shape = kv_cache_shape(model, kReportKvBytesPerElement, 1);
  const std::int64_t windowed_layers = shape.window_tokens > 0 ? a.num_sliding_layers : 0;
  const std::int64_t full_layers = model.num_attention_layers() - windowed_layers;
  const double full = shape.full_bytes_per_token;
  const std::string formula =
      a.kind == AttentionKind::mla
          ? fmt::format("{} layers x ({} latent + {} rope) x 2 B", full_layers, a.kv_lora_rank, a.qk_rope_head_dim)
          : fmt::format("2 x {} {}layers x {} kv heads x {} x 2 B", full_layers,
                        windowed_layers > 0 ? "full-attention " : "", a.num_kv_heads, a.head_dim);
  std::vector<std::string> rows;
  if (full_layers > 0 || windowed_layers == 0) {
    rows.push_back(fmt::format("{:.0f} bytes/token ({:.1f} KiB) in bf16 = {}", full, full / kKiB, formula));
  }
  if (windowed_layers > 0) {
    const double window = shape.window_bytes_per_token;
    const double cap = window * static_cast<double>(shape.window_tokens);
    rows.push_back(fmt::format("{}{:.0f} bytes/token on {} {} layers, kept for {} {} tokens only: at most {:.0f} "
                               "bytes/sequence ({:.2f} MiB)",
                               rows.empty() ? "" : "+ ", window, windowed_layers,
                               a.chunked_window ? "chunked-attention" : "sliding-window",
                               a.chunked_window ? "the current chunk of" : "the last", shape.window_tokens, cap,
                               cap / kMiB));
  }
  if (model.linear_attention) {
    rows.push_back(fmt::format("+ {:.0f} bytes/sequence ({:.2f} MiB) of linear-attention state: conv + recurrent, {} "
                               "layers",
                               shape.state_bytes_per_sequence, shape.state_bytes_per_sequence / kMiB,
                               model.linear_attention->num_layers));
  }
  return rows;
}

void print_breakdown(const ModelSpec& model, std::ostream& out) {
  const ParamBreakdown& p = model.params;
  const std::array<std::pair<const char*, std::int64_t>, 13> rows{{
      {"embedding", p.embedding},
      {"lm_head", p.lm_head},
      {"position_embedding", p.position_embedding},
      {"attention", p.attention},
      {"linear_attention", p.linear_attention},
      {"layer_norms", p.layer_norms},
      {"final_norm", p.final_norm},
      {"dense_mlp", p.dense_mlp},
      {"shared_experts", p.shared_experts},
      {"routed_experts", p.routed_experts},
      {"routers", p.routers},
      {"latent_projections", p.latent_projections},
      {"vision", p.vision},
  }};
  out << "\nParameters by component (unique; MTP listed apart)\n";
  for (const auto& [name, count] : rows) {
    if (count == 0) continue;
    const double share = 100.0 * static_cast<double>(count) / static_cast<double>(model.total_params);
    out << fmt::format("  {:<20} {:>16}  {:>10}  {:5.1f}%\n", name, count, human_count(count), share);
  }
  out << fmt::format("  {:<20} {:>16}  {:>10}\n", "total", model.total_params, human_count(model.total_params));
  if (p.mtp > 0) {
    out << fmt::format("  {:<20} {:>16}  {:>10}  (not in total)\n", "mtp", p.mtp, human_count(p.mtp));
  }
}

}  // namespace

std::string human_count(std::int64_t count) {
  const double value = static_cast<double>(count);
  if (value >= 1e12) return fmt::format("{:.2f} T", value / 1e12);
  if (value >= 1e9) return fmt::format("{:.2f} B", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.2f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.2f} K", value / 1e3);
  return std::to_string(count);
}

void print_model_table(const ModelSpec& model, std::int64_t seq_len, std::ostream& out) {
  const auto row = [&out](const char* label, const std::string& value) {
    out << fmt::format("{:<14}{}\n", label, value);
  };
  row("Model", fmt::format("{} ({}{})", model.name, model.model_type,
                           model.architecture.empty() ? "" : ", " + model.architecture));
  row("Layers", layers_line(model));
  row("Hidden", fmt::format("{} ({})", model.hidden_size,
                            model.norm == NormKind::rms_norm ? "RMSNorm" : "LayerNorm"));
  row("Attention", attention_line(model));
  if (model.linear_attention) row("Linear attn", linear_attention_line(*model.linear_attention, model.num_layers));
  if (model.num_dense_layers > 0) {
    row("MLP", fmt::format("{} ffn {}{}", model.dense_mlp.gated ? "SwiGLU" : model.dense_mlp.squared_relu ? "squared ReLU" : "GeLU",
                           model.dense_mlp.intermediate_size, model.dense_mlp.bias ? ", bias" : ""));
  }
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    std::string line = fmt::format("{} experts, top-{}, expert ffn {} ({} params each)", moe.num_experts,
                                   moe.experts_per_token, moe.expert_intermediate_size,
                                   human_count(moe.routed_expert_params));
    if (moe.num_shared_experts > 0) {
      line += fmt::format(", {} shared (ffn {})", moe.num_shared_experts, moe.shared_intermediate_size);
    }
    if (moe.latent_size > 0) line += fmt::format(", routed in a latent width of {}", moe.latent_size);
    row("MoE", line);
  }
  row("Vocabulary", fmt::format("{} ({})", model.vocab_size,
                                model.tie_word_embeddings ? "LM head tied to the embedding" : "untied LM head"));
  if (model.vision) {
    const VisionSpec& v = *model.vision;
    row("Vision", fmt::format("{} tower: {} blocks, hidden {}, {} heads, patch {}, merge {}x{}, {} params",
                              v.kind, v.depth, v.hidden_size, v.num_heads, v.patch_size, v.spatial_merge_size,
                              v.spatial_merge_size, human_count(v.params)));
  }
  row("Params", fmt::format("total {} ({}), active {} ({}) per token", human_count(model.total_params),
                            model.total_params, human_count(model.active_params), model.active_params));
  row("", fmt::format("embedding {}, lm_head {}, vision {}, mtp {}{}", human_count(model.params.embedding),
                      human_count(model.params.lm_head), human_count(model.params.vision),
                      human_count(model.params.mtp),
                      model.num_mtp_layers > 0 ? fmt::format(" ({} MTP layer(s){})", model.num_mtp_layers,
                                                             model.mtp_layer_pattern.empty()
                                                                 ? ""
                                                                 : fmt::format(" of layers \"{}\"", model.mtp_layer_pattern))
                                               : ""));
  const std::vector<std::string> kv_rows = kv_cache_rows(model);
  for (std::size_t i = 0; i < kv_rows.size(); ++i) row(i == 0 ? "KV cache" : "", kv_rows[i]);
  const ForwardFlops forward = forward_flops_per_token(model, seq_len);
  row("Train FLOPs", fmt::format("{:.3e} per token at seq {} (text tokens; no recomputation)",
                                 train_flops_per_token(model, seq_len), seq_len));
  row("", "= 3 x forward; forward = 2 x (attention + MLP + top-k expert + router params) + 2 x vocab x hidden");
  row("", "  + 2 x seq x heads x (qk_dim + v_dim) per layer (Narayanan et al. 2021 Eq. 3; Kaplan 2020)");
  row("", fmt::format("  forward: projections {:.3e}, scores {:.3e}, mlp {:.3e}, lm_head {:.3e}",
                      forward.attention_projections, forward.attention_scores, forward.mlp, forward.lm_head));
  print_breakdown(model, out);
}

}  // namespace meshplan
