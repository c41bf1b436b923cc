#include "cli/model_input.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "core/text.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

namespace {

Result<ModelSpec> load_config_file(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return text.error();
  return parse_model_config(*text, path);
}

Error unknown_model(const std::string& arg) {
  const std::vector<std::string> presets = model_preset_names();
  const std::size_t slash = arg.rfind('/');
  const std::optional<std::string> near =
      nearest_match(slash == std::string::npos ? arg : arg.substr(slash + 1), presets);
  std::string message = "no such file, directory or model preset";
  if (near) message += fmt::format("; did you mean \"{}\"?", *near);
  message += fmt::format(" Pass a path to a Hugging Face config.json (or its directory), or a preset "
                         "(`meshplan model --list`): {}", fmt::join(presets, ", "));
  return Error{arg, 0, "MODEL", message};
}

}  // namespace

Result<ModelSpec> load_model_argument(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    const fs::path config = fs::path(arg) / "config.json";
    if (!fs::exists(config, ec)) {
      return Error{arg, 0, "MODEL", "the directory has no config.json (pass the model directory of a "
                                    "Hugging Face checkpoint, or the config file itself)"};
    }
    return load_config_file(config.string());
  }
  if (fs::exists(arg, ec)) return load_config_file(arg);
  if (const std::optional<std::string> preset = canonical_model_preset_name(arg)) {
    Result<ModelSpec> model = parse_model_config(*find_model_preset_config(*preset), *preset);
    return model;
  }
  return unknown_model(arg);
}

}  // namespace meshplan
