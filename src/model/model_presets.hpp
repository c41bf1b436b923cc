#pragma once
// The model presets: Hugging Face config.json files under data/models/ compiled into the binary
// (their sources: data/models/SOURCES.md).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

/// Preset names (file names without .json), sorted.
std::vector<std::string> model_preset_names();

/// The config.json text of the preset called `name`: the file name without .json, matched
/// case-insensitively; a Hugging Face repo id ("Qwen/Qwen2.5-7B-Instruct") matches on its last
/// path component. nullopt when there is no such preset.
std::optional<std::string_view> find_model_preset_config(std::string_view name);

/// The preset name `name` resolves to (as find_model_preset_config), e.g. "qwen3-8b" for
/// "Qwen/Qwen3-8B"; nullopt when there is none.
std::optional<std::string> canonical_model_preset_name(std::string_view name);

}  // namespace meshplan
