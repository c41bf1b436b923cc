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

/// The preset a checkpoint path stands for: the model it names (its last component, or NAME of a
/// Hugging Face cache directory .../models--ORG--NAME/snapshots/<commit>) matched as
/// canonical_model_preset_name, else matched after dropping, on both sides, the suffixes of
/// checkpoints that share their base model's architecture and weight dtype (-Base, -Instruct,
/// -Chat, -it, -pt, -Thinking, -hf, -bf16, a date tag such as -2507 or -0324, a Meta- prefix).
/// A quantized checkpoint (-FP8, -AWQ, -GPTQ, -Int4 ...) matches nothing.
struct PresetForPath {
  std::string preset;
  bool variant = false;  ///< matched only once variant suffixes were dropped
  /// A date-tagged re-release of the preset (Qwen3-30B-A3B-Thinking-2507): same architecture, but
  /// its context length may differ (Qwen3's 2507 releases raised 40960 to 262144).
  bool dated = false;
};
std::optional<PresetForPath> model_preset_for_path(std::string_view path);

}  // namespace meshplan
