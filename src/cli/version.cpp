#include "cli/version.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "data/embedded.hpp"
#include "verl/hydra/config_loader.hpp"

namespace meshplan {
namespace {

/// The "repo@commit (date)" head of a data file's source line: what it was taken from.
std::string source_head(const std::string& source) {
  return source.substr(0, source.find(", "));
}

std::string json_source(std::string_view path, std::string_view key) {
  const auto text = embedded_file(path);
  if (!text) return "missing";
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.contains(key) || !json[key].is_string()) return "missing";
  return json[key].get<std::string>();
}

}  // namespace

std::string version_text() {
  // Megatron-core's own version string sits beside the commit its field list was read from.
  const std::string core = json_source("verl/megatron_core_fields.json", "megatron_core_version");
  return fmt::format("meshplan {}\nverl schema: {}\nMegatron-core fields: {} (megatron-core {})", MESHPLAN_VERSION,
                     source_head(embedded_verl_source()), json_source("verl/megatron_core_fields.json", "source"), core);
}

}  // namespace meshplan
