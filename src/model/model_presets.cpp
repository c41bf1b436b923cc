#include "model/model_presets.hpp"

#include <algorithm>
#include <array>

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

namespace {

// "models--deepseek-ai--DeepSeek-V3-bf16" -> "DeepSeek-V3-bf16"; "" when not a cache directory name.
std::string_view cache_directory_model(std::string_view component) {
  if (!component.starts_with("models--")) return {};
  const std::size_t last = component.rfind("--");
  return last + 2 < component.size() ? component.substr(last + 2) : std::string_view{};
}

std::string model_name_of_path(std::string_view path) {
  std::vector<std::string_view> components;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::string_view component = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (!component.empty()) components.push_back(component);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  for (auto it = components.rbegin(); it != components.rend(); ++it) {
    if (const std::string_view model = cache_directory_model(*it); !model.empty()) return std::string(model);
  }
  return components.empty() ? std::string() : std::string(components.back());
}

bool is_date_tag(std::string_view suffix) {  // "2507", "0324", "20250528"
  if (suffix.size() != 4 && suffix.size() != 6 && suffix.size() != 8) return false;
  return std::all_of(suffix.begin(), suffix.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool has_date_tag(std::string_view name) {
  for (std::size_t dash = name.find('-'); dash != std::string_view::npos; dash = name.find('-', dash + 1)) {
    const std::size_t end = name.find('-', dash + 1);
    if (is_date_tag(name.substr(dash + 1, end == std::string_view::npos ? std::string_view::npos : end - dash - 1))) {
      return true;
    }
  }
  return false;
}

// Lower case, without the prefix and suffixes of same-architecture variants.
std::string architecture_name(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kVariants = {"-instruct", "-chat", "-base", "-it",  "-pt",
                                                                 "-thinking", "-hf",   "-bf16", "-fp16"};
  std::string out = to_lower(name);
  if (out.starts_with("meta-")) out.erase(0, 5);
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (std::string_view variant : kVariants) {
      if (out.size() > variant.size() && out.ends_with(variant)) {
        out.resize(out.size() - variant.size());
        dropped = true;
      }
    }
    const std::size_t dash = out.rfind('-');
    if (dash != std::string::npos && dash > 0 && is_date_tag(std::string_view(out).substr(dash + 1))) {
      out.resize(dash);
      dropped = true;
    }
  }
  return out;
}

}  // namespace

std::optional<PresetForPath> model_preset_for_path(std::string_view path) {
  const std::string name = model_name_of_path(path);
  if (name.empty()) return std::nullopt;
  if (std::optional<std::string> exact = canonical_model_preset_name(name)) return PresetForPath{*exact, false};
  const std::string wanted = architecture_name(name);
  for (const std::string& preset : model_preset_names()) {
    if (architecture_name(preset) == wanted) return PresetForPath{preset, true, has_date_tag(name) && !has_date_tag(preset)};
  }
  return std::nullopt;
}

std::optional<std::string_view> find_model_preset_config(std::string_view name) {
  const std::optional<std::string> preset = canonical_model_preset_name(name);
  if (!preset) return std::nullopt;
  return embedded_file(std::string(kPresetDir) + *preset + std::string(kPresetSuffix));
}

}  // namespace meshplan
