#include "verl/schema/embedded_json.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>

#include "data/embedded.hpp"

namespace meshplan {

const nlohmann::json& embedded_json(std::string_view path) {
  static std::mutex mutex;
  static std::map<std::string, nlohmann::json, std::less<>> parsed;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = parsed.find(path);
  if (found == parsed.end()) {
    const auto text = embedded_file(path);
    nlohmann::json value = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::object();
    if (value.is_discarded()) value = nlohmann::json::object();
    found = parsed.emplace(std::string(path), std::move(value)).first;
  }
  return found->second;
}

}  // namespace meshplan
