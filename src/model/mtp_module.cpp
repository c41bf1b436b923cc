#include "model/mtp_module.hpp"

#include <algorithm>

#include "model/param_count.hpp"

namespace meshplan {

std::int64_t mtp_module_layers_of(const ModelSpec& model, char kind) {
  const std::string& pattern = model.mtp_layer_pattern;
  if (!pattern.empty()) return static_cast<std::int64_t>(std::count(pattern.begin(), pattern.end(), kind));
  switch (kind) {
    case '*': return 1;
    case 'E': return model.moe ? 1 : 0;
    case '-': return model.moe ? 0 : 1;
    default: return 0;
  }
}

namespace {

/// A total over `of` layers scaled to `to` of them (0 where the model has none).
std::int64_t per_layers(std::int64_t total, std::int64_t of, std::int64_t to) {
  return of > 0 ? total / of * to : 0;
}

}  // namespace

ModelSpec mtp_module_model(const ModelSpec& model) {
  const std::int64_t attention = mtp_module_layers_of(model, '*');
  const std::int64_t mamba = mtp_module_layers_of(model, 'M');
  const std::int64_t mlp = mtp_module_layers_of(model, '-');
  const std::int64_t moe = mtp_module_layers_of(model, 'E');
  ModelSpec module = model;
  module.num_mtp_layers = 0;
  module.mtp_layer_pattern.clear();
  module.vision.reset();
  module.hybrid_layer_pattern = model.mtp_layer_pattern;
  // A pattern's layers hold one sublayer each; a decoder layer both a mixer and an MLP.
  module.num_layers = model.mtp_layer_pattern.empty() ? 1 : static_cast<std::int64_t>(model.mtp_layer_pattern.size());
  module.num_dense_layers = mlp;
  if (module.moe) module.moe->num_moe_layers = moe;
  if (mamba > 0) {
    module.linear_attention->num_layers = mamba;
  } else {
    module.linear_attention.reset();
  }
  module.attention.num_sliding_layers = 0;
  module.attention.chunked_window = false;
  ParamBreakdown& params = module.params;
  const ParamBreakdown& whole = model.params;
  params.attention = per_layers(whole.attention, model.num_attention_layers(), attention);
  params.linear_attention =
      model.linear_attention ? per_layers(whole.linear_attention, model.linear_attention->num_layers, mamba) : 0;
  params.dense_mlp = per_layers(whole.dense_mlp, model.num_dense_layers, mlp);
  const std::int64_t model_moe = model.moe ? model.moe->num_moe_layers : 0;
  params.shared_experts = per_layers(whole.shared_experts, model_moe, moe);
  params.routed_experts = per_layers(whole.routed_experts, model_moe, moe);
  params.routers = per_layers(whole.routers, model_moe, moe);
  params.latent_projections = per_layers(whole.latent_projections, model_moe, moe);
  params.layer_norms = per_layers(whole.layer_norms, model.num_layers, module.num_layers);
  params.vision = 0;
  params.mtp = 0;
  module.total_params = params_total(params);
  const std::int64_t inactive = module.moe ? params_product({moe, module.moe->num_experts - module.moe->experts_per_token,
                                                             module.moe->routed_expert_params})
                                           : 0;
  module.active_params = module.total_params - inactive;
  module.attention_params_per_layer = params_sum({params.attention, params.linear_attention}) / module.num_layers;
  return module;
}

}  // namespace meshplan
