#include "verl/schema/verl_versions.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>

#include "verl/schema/embedded_json.hpp"

namespace meshplan {
namespace {

constexpr std::string_view kFile = "verl/verl_versions.json";

// A top-level member of the table by reference (json::value() would copy it); null when absent.
const nlohmann::json& table(std::string_view member) {
  static const nlohmann::json null;
  const nlohmann::json& all = embedded_json(kFile);
  const auto found = all.find(member);
  return found == all.end() ? null : *found;
}

int index_of(std::string_view id) {
  const auto& versions = embedded_verl_versions();
  for (const VerlVersion& v : versions) {
    if (v.id == id) return v.index;
  }
  return -1;
}

// Whether an entry with `since`/`until` (until: the first version without it) covers `version`.
bool covers(const nlohmann::json& entry, const VerlVersion& version) {
  const int since = index_of(entry.value("since", ""));
  const int until = entry.contains("until") ? index_of(entry.value("until", "")) : 1 << 20;
  return since >= 0 && since <= version.index && version.index < until;
}

// A PEP 440-ish version as (major, minor, patch, stage): ".devN" sorts before the release,
// ".postN" after; "v" prefix and missing parts allowed. nullopt when it does not start with a number.
using VersionKey = std::array<int, 4>;
std::optional<VersionKey> version_key(std::string_view text) {
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front())) == 0) return std::nullopt;
  VersionKey key{0, 0, 0, 0};
  std::size_t part = 0;
  std::size_t i = 0;
  while (i < text.size() && part < 3) {
    int number = 0;
    bool digits = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      number = std::min(number * 10 + (text[i] - '0'), 1 << 20);
      digits = true;
      ++i;
    }
    if (!digits) break;
    key[part++] = number;
    if (i < text.size() && text[i] == '.') ++i;
  }
  const std::string_view rest = text.substr(i);
  if (rest.find("dev") != std::string_view::npos || rest.find("rc") != std::string_view::npos) key[3] = -1;
  if (rest.find("post") != std::string_view::npos) key[3] = 1;
  return key;
}

bool is_release(const VerlVersion& v) { return v.id.rfind("main@", 0) != 0; }

}  // namespace

const std::vector<VerlVersion>& embedded_verl_versions() {
  static const std::vector<VerlVersion> versions = [] {
    std::vector<VerlVersion> out;
    for (const auto& v : table("versions")) {
      VerlVersion version{v.value("id", ""), v.value("commit", ""), v.value("date", ""),
                          v.value("version_file", ""), static_cast<int>(out.size()), {}};
      if (v.contains("engines")) {
        for (const auto& [engine, spec] : v["engines"].items()) version.engines[engine] = spec.get<std::string>();
      }
      out.push_back(std::move(version));
    }
    return out;
  }();
  return versions;
}

std::string embedded_verl_range() {
  const auto& versions = embedded_verl_versions();
  return versions.empty() ? std::string("none") : versions.front().id + " .. " + versions.back().id;
}

const VerlVersion& newest_verl_version() {
  static const VerlVersion none;
  const auto& versions = embedded_verl_versions();
  return versions.empty() ? none : versions.back();
}

std::string version_list(const std::vector<std::string>& ids) {
  if (ids.empty()) return "";
  if (ids.size() > 3) return ids.front() + " .. " + ids.back() + " (" + std::to_string(ids.size()) + " versions)";
  std::string text = ids.front();
  for (std::size_t i = 1; i < ids.size(); ++i) text += (i + 1 == ids.size() ? " and " : ", ") + ids[i];
  return text;
}

std::optional<VerlVersion> find_verl_version(std::string_view text) {
  const auto& versions = embedded_verl_versions();
  std::string_view bare = text;
  if (!bare.empty() && (bare.front() == 'v' || bare.front() == 'V')) bare.remove_prefix(1);
  for (const VerlVersion& v : versions) {
    if (v.id == bare || v.id == text) return v;
  }
  const std::string_view commit = text.rfind("main@", 0) == 0 ? text.substr(5) : text;
  const bool hex = commit.size() >= 7 && std::all_of(commit.begin(), commit.end(), [](char c) {
                     return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                   });
  if (hex) {
    for (const VerlVersion& v : versions) {
      if (v.commit.rfind(commit, 0) == 0) return v;
    }
    return std::nullopt;
  }
  // The newest one with that version file (a checkout of main says "0.10.0.dev").
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->version_file == text) return *it;
  }
  const auto key = version_key(text);
  if (!key) return std::nullopt;
  // A release series ("0.6"): the newest release of it.
  const std::string series = std::string(bare) + ".";
  if (std::count(bare.begin(), bare.end(), '.') == 1) {
    for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
      if (is_release(*it) && it->id.rfind(series, 0) == 0) return *it;
    }
  }
  // Otherwise the newest embedded version that is not newer.
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    const auto own = version_key(is_release(*it) ? it->id : it->version_file);
    if (own && *own <= *key) return *it;
  }
  return std::nullopt;
}

bool predates_embedded_verl(std::string_view text) {
  const auto key = version_key(text);
  const auto oldest = version_key(embedded_verl_versions().front().id);
  return key && oldest && *key < *oldest;
}

std::optional<VersionPin> verl_version_pin(std::string_view text) { return package_version_pin(text, "verl"); }

std::optional<VersionPin> package_version_pin(std::string_view text, std::string_view package) {
  std::optional<VersionPin> pin;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; };
  const std::size_t n = package.size();
  for (std::size_t at = text.find(package); at != std::string_view::npos; at = text.find(package, at + n)) {
    if (at > 0 && (word_char(text[at - 1]) || text[at - 1] == '/' || text[at - 1] == '.')) continue;
    std::size_t i = at + n;
    if (i < text.size() && text[i] == '[') i = text.find(']', i) == std::string_view::npos ? text.size() : text.find(']', i) + 1;
    if (text.substr(i, 2) != "==") continue;
    i += 2;
    std::size_t end = i;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '.')) ++end;
    if (end == i || std::isdigit(static_cast<unsigned char>(text[i])) == 0) continue;
    pin = VersionPin{std::string(text.substr(i, end - i)),
                     static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1};
  }
  return pin;
}

std::map<std::string, std::string> verl_config_texts(const VerlVersion& version) {
  std::map<std::string, std::string> texts;
  for (const auto& entry : table("configs")) {
    if (covers(entry, version)) texts[entry.value("name", "")] = entry.value("text", "");
  }
  return texts;
}

const std::vector<std::string>& verl_registry_names(const VerlVersion& version, std::string_view kind) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>, std::less<>> cache;
  const std::string key = version.id + "/" + std::string(kind);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto cached = cache.find(key);
  if (cached != cache.end()) return cached->second;
  std::vector<std::string> names;
  const nlohmann::json& enums = table("enums");
  const auto found = enums.find(kind);
  if (found != enums.end()) {
    for (const auto& entry : *found) {
      if (covers(entry, version)) names.push_back(entry.value("name", ""));
    }
  }
  std::sort(names.begin(), names.end());
  return cache.emplace(key, std::move(names)).first->second;
}

std::string verl_registry_range(std::string_view kind, std::string_view name) {
  const auto& versions = embedded_verl_versions();
  std::string first;
  std::string last;
  for (const VerlVersion& v : versions) {
    const auto& names = verl_registry_names(v, kind);
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    if (first.empty()) first = v.id;
    last = v.id;
  }
  if (first.empty()) return "";
  return first == last ? first : first + ".." + last;
}

std::optional<std::string> recipe_entry_config(std::string_view entry) {
  std::string module(entry);
  if (module.ends_with(".py")) {
    module.resize(module.size() - 3);
    for (char& c : module) {
      if (c == '/') c = '.';
    }
  }
  // A path from elsewhere (`$VERL_HOME/recipe/dapo/main_dapo.py`) names the recipe by its tail.
  if (const std::size_t recipe = module.rfind("recipe."); recipe != std::string::npos && recipe > 0 &&
                                                          module[recipe - 1] == '.') {
    module.erase(0, recipe);
  }
  for (const VerlVersion& version : embedded_verl_versions()) {
    for (const std::string& named : verl_registry_names(version, "entry_config")) {
      const std::size_t equals = named.find('=');
      if (named.compare(0, equals, module) == 0 && equals == module.size()) return named.substr(equals + 1);
    }
  }
  return std::nullopt;
}

}  // namespace meshplan
