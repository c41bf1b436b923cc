#pragma once
// The model reader: a Hugging Face config.json (as text) -> ModelSpec with exact parameter counts
// (../shared/models/CONVENTIONS.md). The caller reads the file; errors name `source_name`.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// Parses and validates `json_text`. `source_name` (a path or preset name) becomes
/// ModelSpec::name and the `file` of every Error. Unknown architectures, malformed JSON, wrong
/// types, missing keys and absurd sizes are Errors naming the line and the key.
Result<ModelSpec> parse_model_config(std::string_view json_text, std::string_view source_name);

/// The model_type values parse_model_config understands, in a stable order.
std::vector<std::string> supported_model_types();

}  // namespace meshplan
