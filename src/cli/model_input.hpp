#pragma once
// The MODEL argument every subcommand takes: a config.json path, a directory holding one, or an
// embedded preset name.
#include <string>

#include "core/result.hpp"
#include "model/model_spec.hpp"

namespace meshplan {

/// Resolves `arg` in this order: an existing file (read as a Hugging Face config.json), an
/// existing directory (its config.json; an Error when it has none), a preset name (file name
/// or Hugging Face repo id, case-insensitive). Anything else is an Error with a "did you mean"
/// suggestion and the hint to pass a path.
Result<ModelSpec> load_model_argument(const std::string& arg);

}  // namespace meshplan
