#include "verl/shell/shell_paths.hpp"

#include <algorithm>

namespace meshplan {
namespace {

bool same_value(const ShellVariable& a, const ShellVariable& b) {
  return a.values == b.values && a.exported == b.exported && a.unknown == b.unknown &&
         a.element_unknown == b.element_unknown;
}

// Every value or element the paths give `name`, when each path gives it known ones (else none).
std::vector<std::string> known_alternatives(const std::string& name, const std::vector<ShellVariables>& ends) {
  std::vector<std::string> out;
  for (const ShellVariables& end : ends) {
    const auto it = end.find(name);
    if (it == end.end() || it->second.unknown) return {};
    for (std::size_t k = 0; k < it->second.values.size(); ++k) {
      if (k < it->second.element_unknown.size() && it->second.element_unknown[k]) return {};
      out.push_back(it->second.values[k]);
    }
  }
  return out;
}

// An array that every path starts with the same known elements and some paths extend
// (`A+=(...)` in a branch): the common elements stay known, the rest is one unknown element.
bool keep_common_elements(const std::string& name, ShellVariable& variable, const std::vector<ShellVariables>& ends,
                          const std::string& why) {
  std::size_t common = std::string::npos;
  for (const ShellVariables& end : ends) {
    const auto it = end.find(name);
    if (it == end.end() || it->second.unknown || it->second.lines.empty()) return false;  // not an array everywhere
    const std::vector<std::string>& values = it->second.values;
    const std::vector<std::string>& first = ends.front().at(name).values;
    std::size_t same = 0;
    while (same < values.size() && same < first.size() && values[same] == first[same]) ++same;
    common = std::min(common, same);
  }
  if (common == 0 || common == std::string::npos) return false;
  variable.values.resize(common);
  variable.lines.resize(common);
  variable.element_unknown.resize(common);
  variable.values.push_back("${" + name + "[@]}");
  variable.lines.push_back(variable.lines.back());
  variable.element_unknown.push_back(why);
  variable.unknown.reset();
  return true;
}

}  // namespace

ShellVariables merge_path_ends(const std::vector<ShellVariables>& ends, const std::string& kind, int line) {
  ShellVariables merged = ends.front();
  for (std::size_t k = 1; k < ends.size(); ++k) {
    for (const auto& [name, variable] : ends[k]) merged.try_emplace(name, variable);
  }
  for (auto& entry : merged) {
    const std::string& name = entry.first;  // clang 14 cannot capture structured bindings
    auto& variable = entry.second;
    const bool agreed = std::all_of(ends.begin(), ends.end(), [&](const ShellVariables& end) {
      const auto it = end.find(name);
      return it != end.end() && same_value(it->second, variable);
    });
    if (agreed) continue;
    const std::string why =
        "$" + name + " is set differently in the branches of the " + kind + " at line " + std::to_string(line);
    if (keep_common_elements(name, variable, ends, why)) continue;
    variable.alternatives = known_alternatives(name, ends);
    variable.values = {""};
    variable.lines.clear();
    variable.element_unknown.clear();
    variable.unknown = why;
    for (const ShellVariables& end : ends) {
      const auto it = end.find(name);
      if (it != end.end()) variable.exported = variable.exported || it->second.exported;
    }
  }
  return merged;
}

}  // namespace meshplan
