#pragma once
// A config parsed for a test: the parse must succeed (its error is printed when it does not).
#include <doctest/doctest.h>

#include <string>

#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan::test {

inline ModelSpec parsed_model(const std::string& text, const char* name) {
  Result<ModelSpec> model = parse_model_config(text, name);
  REQUIRE_MESSAGE(model.ok(), (model.ok() ? "" : model.error().to_string()));
  return std::move(model).value();
}

inline ModelSpec preset_model(const char* name) {
  const auto text = find_model_preset_config(name);
  REQUIRE_MESSAGE(text.has_value(), "no preset " << name);
  return parsed_model(std::string(*text), name);
}

}  // namespace meshplan::test
