#include "verl/passthrough_rules.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "core/text.hpp"
#include "data/embedded.hpp"

namespace meshplan {
namespace {

struct Dictionary {
  std::string_view suffix;  ///< key under the section
  std::string_view table;   ///< table in megatron_core_fields.json
  std::string_view dataclass;
};

constexpr std::array<Dictionary, 3> kDictionaries = {{
    {"megatron.override_transformer_config", "transformer_config", "TransformerConfig"},
    {"optim.override_optimizer_config", "optimizer_config", "OptimizerConfig"},
    {"megatron.override_ddp_config", "ddp_config", "DistributedDataParallelConfig"},
}};
constexpr std::array<std::string_view, 3> kSections = {"actor_rollout_ref.actor.", "actor_rollout_ref.ref.", "critic."};

const nlohmann::json& megatron_fields() {
  static const nlohmann::json fields = [] {
    const auto text = embedded_file("verl/megatron_core_fields.json");
    return text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::object();
  }();
  return fields;
}

const nlohmann::json& engine_table() {
  static const nlohmann::json table = [] {
    const auto text = embedded_file("verl/engine_args.json");
    return text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::object();
  }();
  return table;
}

const nlohmann::json& env_table() {
  static const nlohmann::json table = [] {
    const auto text = embedded_file("verl/env_vars.json");
    return text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::object();
  }();
  return table;
}

bool type_matches(const std::string& type, const ConfigNode& value) {
  const bool nullable = !type.empty() && type.back() == '?';
  const std::string base = nullable ? type.substr(0, type.size() - 1) : type;
  if (value.kind == NodeKind::null) return nullable || base == "any";
  if (value.kind == NodeKind::unknown || base == "any") return true;
  if (base == "bool") return value.kind == NodeKind::boolean;
  if (base == "int") return value.kind == NodeKind::integer;
  if (base == "float") return value.is_number();
  if (base == "str") return value.kind == NodeKind::string;
  if (base == "list") return value.kind == NodeKind::list;
  if (base == "dict") return value.is_map();
  return true;
}

void check_dictionary(const VerlLaunch& launch, const std::string& key, const Dictionary& dictionary,
                      std::vector<Finding>& out) {
  const ConfigNode* node = find_path(launch.config, key);
  if (node == nullptr || !node->is_map()) return;
  const nlohmann::json& table = megatron_fields()[std::string(dictionary.table)];
  std::vector<std::string> names;
  for (const auto& [name, unused] : table.items()) names.push_back(name);
  const std::string version = megatron_fields().value("megatron_core_version", "?");
  for (const auto& [field, value] : node->entries) {
    Finding finding;
    finding.keys = {key + "." + field};
    finding.value = value.to_text();
    finding.location = value.origin;
    if (!table.contains(field)) {
      finding.severity = Severity::error;
      finding.rule = "passthrough.unknown-field";
      finding.message = "'" + field + "' is not a field of Megatron-core's " + std::string(dictionary.dataclass) +
                        " (megatron-core " + version + "): building it in the Megatron worker fails with "
                        "TypeError: unexpected keyword argument";
      finding.fix = {"~" + key + "." + field};
      if (auto near = nearest_match(field, names)) {
        finding.message += "; did you mean '" + *near + "'?";
        // Offer the rename only when the value suits the field it would become.
        if (type_matches(table[*near].get<std::string>(), value)) {
          finding.fix.insert(finding.fix.begin(), "+" + key + "." + *near + "=" + value.to_text());
        }
      }
      out.push_back(std::move(finding));
    } else if (!type_matches(table[field].get<std::string>(), value)) {
      finding.severity = Severity::error;
      finding.rule = "passthrough.field-type";
      finding.message = "'" + field + "' of " + std::string(dictionary.dataclass) + " is " +
                        table[field].get<std::string>() + ", not '" + value.to_text() + "'";
      out.push_back(std::move(finding));
    }
  }
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Why `value` is not a valid `type`, or "" when it is.
std::string malformed(const std::string& type, const std::string& value) {
  if (type == "bool" && value != "0" && value != "1") return "expects 0 or 1";
  if (type == "int" && !all_digits(value) && !(value.size() > 1 && value[0] == '-' && all_digits(value.substr(1)))) {
    return "expects an integer";
  }
  if (type == "devices") {
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t comma = value.find(',', start);
      const std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!all_digits(item) && item.rfind("GPU-", 0) != 0 && item.rfind("MIG-", 0) != 0) {
        return "expects comma-separated device indices or UUIDs";
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (type == "alloc_conf") {
    static constexpr std::array<std::string_view, 7> kOptions = {
        "expandable_segments", "max_split_size_mb", "garbage_collection_threshold", "roundup_power2_divisions",
        "backend", "release_lock_on_cudamalloc", "pinned_use_cuda_host_register"};
    std::size_t start = 0;
    while (start < value.size()) {
      const std::size_t comma = value.find(',', start);
      const std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const std::string option = item.substr(0, item.find(':'));
      if (item.find(':') == std::string::npos ||
          std::find(kOptions.begin(), kOptions.end(), option) == kOptions.end()) {
        return "'" + item + "' is not option:value with a known option";
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return "";
}

// rollout.engine_kwargs.<engine>: verl hands these to the engine's arguments; a name the engine
// does not have stops the rollout server when it starts.
void check_engine_kwargs(const VerlLaunch& launch, std::vector<Finding>& out) {
  const ConfigNode* kwargs = find_path(launch.config, "actor_rollout_ref.rollout.engine_kwargs");
  if (kwargs == nullptr || !kwargs->is_map()) return;
  for (const auto& [engine, arguments] : kwargs->entries) {
    if (!engine_table().contains(engine) || !arguments.is_map()) continue;  // no table for this engine
    const nlohmann::json& table = engine_table()[engine];
    std::vector<std::string> names;
    for (const auto& [name, unused] : table["arguments"].items()) names.push_back(name);
    for (const auto& [name, value] : arguments.entries) {
      if (table["arguments"].contains(name)) continue;
      const std::string key = "actor_rollout_ref.rollout.engine_kwargs." + engine + "." + name;
      Finding finding;
      finding.severity = Severity::error;
      finding.rule = "passthrough.engine-argument";
      finding.keys = {key};
      finding.value = value.to_text();
      finding.message = "'" + name + "' is not an argument of " + engine + " (" + table["source"].get<std::string>() +
                        "): the rollout server fails when it starts inside the rollout worker";
      if (auto near = nearest_match(name, names)) {
        finding.message += "; did you mean '" + *near + "'?";
        finding.fix = {"+actor_rollout_ref.rollout.engine_kwargs." + engine + "." + *near + "=" + value.to_text()};
      }
      finding.location = value.origin;
      out.push_back(std::move(finding));
    }
  }
}

}  // namespace

std::vector<Finding> check_passthrough_dictionaries(const VerlLaunch& launch) {
  std::vector<Finding> out;
  check_engine_kwargs(launch, out);
  for (std::string_view section : kSections) {
    for (const Dictionary& dictionary : kDictionaries) {
      check_dictionary(launch, std::string(section) + std::string(dictionary.suffix), dictionary, out);
    }
  }
  return out;
}

std::vector<Finding> check_environment(const std::map<std::string, ShellArgument>& environment) {
  std::vector<Finding> out;
  const nlohmann::json& table = env_table();
  for (const auto& [name, value] : environment) {
    if (!table.contains("families")) break;
    bool skip = false;
    for (const auto& prefix : table["not_checked_prefixes"]) skip = skip || name.rfind(prefix.get<std::string>(), 0) == 0;
    if (skip) continue;
    for (const auto& [family, entry] : table["families"].items()) {
      if (name.rfind(family, 0) != 0) continue;
      const auto& variables = entry["variables"];
      Finding finding;
      finding.keys = {name};
      finding.value = value.text;
      finding.location = value.location;
      if (!variables.contains(name)) {
        std::vector<std::string> names;
        for (const auto& [known, unused] : variables.items()) names.push_back(known);
        finding.severity = Severity::warning;
        finding.rule = "env.unknown";
        finding.message = name + " has no effect: it is not a variable " + family + "* readers know (" +
                          entry["source"].get<std::string>() + ")";
        if (auto near = nearest_match(name, names)) finding.message += "; did you mean " + *near + "?";
        finding.fix = {"unset " + name};
        out.push_back(std::move(finding));
      } else if (!value.unknown) {
        const std::string why = malformed(variables[name].get<std::string>(), value.text);
        if (!why.empty()) {
          finding.severity = Severity::error;
          finding.rule = "env.malformed";
          finding.message = name + "=" + value.text + " is malformed: " + why;
          out.push_back(std::move(finding));
        }
      }
      break;
    }
  }
  return out;
}

}  // namespace meshplan
