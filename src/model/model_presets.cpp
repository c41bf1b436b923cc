#include "model/model_presets.hpp"

#include "core/text.hpp"
#include "data/embedded.hpp"

namespace meshplan {

namespace {

constexpr std::string_view kPresetDir = "models/";
constexpr std::string_view kPresetSuffix = ".json";

/// The preset name of an embedded file, or "" when the file is not a preset config.
std::string_view preset_name_of(std::string_view path) {
  if (!path.starts_with(kPresetDir) || !path.ends_with(kPresetSuffix)) return {};
  const std::string_view name = path.substr(kPresetDir.size(), path.size() - kPresetDir.size() - kPresetSuffix.size());
  return name.find('/') == std::string_view::npos ? name : std::string_view{};
}

}  // namespace

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_files()) {
    const std::string_view name = preset_name_of(file.path);
    if (!name.empty()) names.emplace_back(name);
  }
  return names;  // embedded_files() is sorted by path
}

std::optional<std::string> canonical_model_preset_name(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  const std::string wanted = to_lower(slash == std::string_view::npos ? name : name.substr(slash + 1));
  for (const std::string& preset : model_preset_names()) {
    if (to_lower(preset) == wanted) return preset;
  }
  return std::nullopt;
}

std::optional<std::string_view> find_model_preset_config(std::string_view name) {
  const std::optional<std::string> preset = canonical_model_preset_name(name);
  if (!preset) return std::nullopt;
  return embedded_file(std::string(kPresetDir) + *preset + std::string(kPresetSuffix));
}

}  // namespace meshplan
