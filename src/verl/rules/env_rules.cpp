// check_environment (declared in verl/passthrough_rules.hpp): exported variables of the families
// in data/verl/env_vars.json against the names their readers really read, and their values
// against the syntax those readers parse.
#include <nlohmann/json.hpp>

#include <optional>

#include "core/text.hpp"
#include "verl/schema/embedded_json.hpp"
#include "verl/schema/env_value_check.hpp"
#include "verl/rules/passthrough_rules.hpp"

namespace meshplan {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

bool not_checked(const nlohmann::json& table, const std::string& name) {
  for (const auto& prefix : table["not_checked_prefixes"]) {
    if (starts_with(name, prefix.get<std::string>())) return true;
  }
  return false;
}

// The value type every reader of `family` agrees on for `name`, or nullptr when none reads it.
const nlohmann::json* variable_type(const nlohmann::json& family, const std::string& name) {
  for (const auto& reader : family["readers"]) {
    if (reader["variables"].contains(name)) return &reader["variables"][name];
  }
  return nullptr;
}

Finding unknown_variable(const std::string& family_prefix, const nlohmann::json& family,
                         const std::string& name) {
  std::vector<std::string> known;
  for (const auto& reader : family["readers"]) {
    for (const auto& [variable, unused] : reader["variables"].items()) known.push_back(variable);
  }
  Finding finding;
  finding.severity = Severity::warning;
  finding.rule = "env.unknown";
  finding.message = name + " has no effect: no reader of " + family_prefix + "* variables knows it (" +
                    family["readers_summary"].get<std::string>() + ")";
  if (auto near = nearest_match(name, known)) finding.message += "; did you mean " + *near + "?";
  finding.fix = {"unset " + name};
  return finding;
}

// The finding for one exported variable of `family`, if it has one.
std::optional<Finding> judge(const std::string& prefix, const nlohmann::json& family, const std::string& name,
                             const ShellArgument& value) {
  Finding finding;
  if (const nlohmann::json* type = variable_type(family, name); type == nullptr) {
    finding = unknown_variable(prefix, family, name);
  } else {
    const std::string why = value.unknown ? "" : env_value_problem(type->get<std::string>(), value.text);
    if (why.empty()) return std::nullopt;
    finding.severity = Severity::error;
    finding.rule = "env.malformed";
    finding.message = name + "=" + value.text + " is malformed: " + why;
  }
  finding.keys = {name};
  finding.value = value.text;
  finding.location = value.location;
  return finding;
}

}  // namespace

std::vector<Finding> check_environment(const std::map<std::string, ShellArgument>& environment) {
  std::vector<Finding> out;
  const nlohmann::json& table = embedded_json("verl/env_vars.json");
  if (!table.contains("families")) return out;
  for (const auto& [name, value] : environment) {
    if (not_checked(table, name)) continue;
    for (const auto& [prefix, family] : table["families"].items()) {
      if (!starts_with(name, prefix)) continue;
      if (auto finding = judge(prefix, family, name, value)) out.push_back(std::move(*finding));
      break;
    }
  }
  return out;
}

}  // namespace meshplan
