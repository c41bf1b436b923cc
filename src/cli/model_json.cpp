// `meshplan model --json`.
#include <nlohmann/json.hpp>

#include "cli/model_report.hpp"
#include "model/flops.hpp"
#include "model/kv_cache.hpp"

namespace meshplan {

namespace {

nlohmann::json breakdown_json(const ParamBreakdown& p) {
  return {{"embedding", p.embedding},       {"lm_head", p.lm_head},
          {"position_embedding", p.position_embedding}, {"attention", p.attention},
          {"linear_attention", p.linear_attention},
          {"layer_norms", p.layer_norms},   {"final_norm", p.final_norm},
          {"dense_mlp", p.dense_mlp},       {"shared_experts", p.shared_experts},
          {"routed_experts", p.routed_experts}, {"routers", p.routers},
          {"latent_projections", p.latent_projections},
          {"vision", p.vision},             {"mtp", p.mtp}};
}

nlohmann::json moe_json(const ModelSpec& model) {
  if (!model.moe) return nullptr;
  const MoeSpec& moe = *model.moe;
  return {{"experts", moe.num_experts},
          {"experts_per_token", moe.experts_per_token},
          {"expert_intermediate_size", moe.expert_intermediate_size},
          {"expert_params", moe.routed_expert_params},
          {"moe_layers", moe.num_moe_layers},
          {"dense_layers", model.num_dense_layers},
          {"shared_experts", moe.num_shared_experts},
          {"shared_expert_params_per_layer", moe.shared_expert_params},
          {"router_params_per_layer", moe.router_params},
          {"latent_size", moe.latent_size},
          {"latent_projection_params_per_layer", moe.latent_projection_params}};
}

nlohmann::json linear_attention_json(const ModelSpec& model) {
  if (!model.linear_attention) return nullptr;
  const LinearAttentionSpec& l = *model.linear_attention;
  return {{"kind", linear_attention_kind_id(l.kind)},
          {"layers", l.num_layers},
          {"key_heads", l.num_key_heads},
          {"value_heads", l.num_value_heads},
          {"key_head_dim", l.key_head_dim},
          {"value_head_dim", l.value_head_dim},
          {"conv_kernel_size", l.conv_kernel_size},
          {"params_per_layer", l.params_per_layer},
          {"state_bytes_per_sequence",
           kv_cache_shape(model, kReportKvBytesPerElement, 1).state_bytes_per_sequence}};
}

}  // namespace

std::string model_json(const ModelSpec& model, std::int64_t seq_len) {
  const AttentionSpec& attention = model.attention;
  nlohmann::json doc = {
      {"schema_version", 1},  // docs/json.md
      {"name", model.name},
      {"model_type", model.model_type},
      {"architecture", model.architecture},
      {"total_params", model.total_params},
      {"active_params", model.active_params},
      {"embedding_params", model.params.embedding},
      {"lm_head_params", model.params.lm_head},
      {"vision_params", model.params.vision},
      {"mtp_params", model.params.mtp},
      {"mtp_layers", model.num_mtp_layers},
      {"mtp_layer_pattern", model.mtp_layer_pattern.empty() ? nlohmann::json() : nlohmann::json(model.mtp_layer_pattern)},
      {"layers", model.num_layers},
      {"hybrid_layer_pattern", model.hybrid_layer_pattern.empty() ? nlohmann::json() : nlohmann::json(model.hybrid_layer_pattern)},
      {"hidden_size", model.hidden_size},
      {"num_attention_heads", attention.num_heads},
      {"num_key_value_heads", attention.num_kv_heads},
      {"head_dim", attention.head_dim},
      {"attention", attention.kind == AttentionKind::mla ? "mla" : "standard"},
      {"vocab_size", model.vocab_size},
      {"tie_word_embeddings", model.tie_word_embeddings},
      {"moe", moe_json(model)},
      {"linear_attention", linear_attention_json(model)},
      {"kv_cache_bytes_per_token", kv_cache_bytes_per_token(model, kReportKvBytesPerElement)},
      {"kv_cache_dtype", "bf16"},
      {"train_flops_per_token", train_flops_per_token(model, seq_len)},
      {"seq_len", seq_len},
      {"breakdown", breakdown_json(model.params)},
  };
  return doc.dump(2);
}

}  // namespace meshplan
