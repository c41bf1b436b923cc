#pragma once
// A measured run's recipe settings applied to the Strategy its table gives, as the tests use them:
// the library's cost/calibration/megatron_settings.hpp, with a settings file the tests read
// required to hold only names Megatron-core knows.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "cost/calibration/megatron_settings.hpp"

namespace meshplan::test {

/// The settings of the preset that gives a row's table layout (nemo_recipe_settings.json): the
/// release's own where its layout is the table's; else the first later commit's on the release
/// branch or main whose preset gives it ("later_commit_matching_table_layout": the release's
/// settings with those that commit changed); nullopt where no preset in the repository gives it.
inline std::optional<nlohmann::json> recipe_settings_of_table_layout(const nlohmann::json& recipe) {
  if (recipe.value("layout_matches_table", false)) return recipe["settings"];
  const auto later = recipe.find("later_commit_matching_table_layout");
  if (later == recipe.end() || !later->is_object() || !later->contains("commit")) return std::nullopt;
  nlohmann::json settings = recipe["settings"];
  for (const auto& [name, change] : (*later)["settings_changed_vs_tag"].items()) settings[name] = change["here"];
  return settings;
}

inline void require_ok(const Status& status) { REQUIRE_MESSAGE(status.ok(), (status.ok() ? "" : status.error().to_string())); }

inline void apply_recipe_recompute(const nlohmann::json& settings, Strategy& strategy) {
  require_ok(apply_megatron_recompute(settings, strategy));
}
inline void apply_recipe_optimizer(const nlohmann::json& settings, Strategy& strategy) {
  apply_megatron_optimizer(settings, strategy);
}
inline void apply_recipe_sharding_and_offload(const nlohmann::json& settings, Strategy& strategy) {
  apply_megatron_sharding_and_offload(settings, strategy);
}
inline void apply_recipe_pipeline_layout(const nlohmann::json& settings, Strategy& strategy) {
  require_ok(apply_megatron_pipeline_layout(settings, strategy));
}
inline void apply_recipe_a2a_overlap(const nlohmann::json& settings, Strategy& strategy) {
  apply_megatron_a2a_overlap(settings, strategy);
}
inline void apply_recipe_dispatcher(const nlohmann::json& settings, Strategy& strategy) {
  apply_megatron_dispatcher(settings, strategy);
}
inline void apply_recipe_kernels(const nlohmann::json& settings, Strategy& strategy) {
  apply_megatron_kernels(settings, strategy);
}
inline void apply_recipe_mtp(const nlohmann::json& settings, Strategy& strategy) { apply_megatron_mtp(settings, strategy); }
inline void apply_recipe_cuda_graphs(const nlohmann::json& settings, Strategy& strategy) {
  require_ok(apply_megatron_cuda_graphs(settings, strategy));
}

}  // namespace meshplan::test
