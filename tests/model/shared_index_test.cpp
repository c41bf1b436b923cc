// Acceptance: every config in ../shared/models/INDEX.json gives exactly the listed total and
// active parameter counts (published counts re-derived to the unit; see CONVENTIONS.md there).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "model/config_reader.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("every ../shared/models/INDEX.json entry: total and active parameters exact") {
  const auto index_path = test::shared_file("models/INDEX.json");
  if (!index_path) return;
  const nlohmann::json index = nlohmann::json::parse(test::file_text(*index_path));
  REQUIRE(index.size() >= 8);
  for (const nlohmann::json& entry : index) {
    const std::string file = entry.at("file").get<std::string>();
    CAPTURE(file);
    const Result<ModelSpec> model = parse_model_config(test::file_text(index_path->parent_path() / file), file);
    REQUIRE_MESSAGE(model.ok(), (model.ok() ? "" : model.error().to_string()));
    CHECK(model->total_params == entry.at("total_params").get<std::int64_t>());
    CHECK(model->active_params == entry.at("active_params").get<std::int64_t>());
  }
}

}  // namespace meshplan
