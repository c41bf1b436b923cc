#include "cli/version.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "data/embedded.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {
namespace {

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
  const VerlVersion& newest = newest_verl_version();
  return fmt::format("meshplan {}\nverl schemas: {} (newest: {}, commit {})\nMegatron-core fields: {} (newest: megatron-core {})",
                     MESHPLAN_VERSION, embedded_verl_range(), newest.id, newest.commit.substr(0, 8),
                     json_source("verl/megatron_core_fields.json", "source"), core);
}

}  // namespace meshplan
