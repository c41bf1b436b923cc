#include "verl/hydra/version_keys.hpp"

#include <optional>

#include "verl/hydra/verl_base.hpp"

namespace meshplan {
namespace {

std::string bare_key(const Finding& finding) {
  std::string key = finding.keys.front();
  while (!key.empty() && (key.front() == '+' || key.front() == '~')) key.erase(0, 1);
  return key;
}

}  // namespace

void note_newer_keys(std::vector<Finding>& findings, const VerlVersion& chosen, const std::string& config_name,
                     const std::map<std::string, std::string>& group_choices) {
  const VerlVersion& newest = newest_verl_version();
  if (chosen.index >= newest.index) return;
  std::optional<ConfigNode> newer;
  for (Finding& finding : findings) {
    if (finding.rule != "hydra.unknown-key" || finding.keys.empty()) continue;
    if (!newer) {
      auto base = embedded_verl_base(newest, config_name, group_choices);
      if (!base.ok()) return;
      newer = std::move(base.value());
    }
    if (find_path(*newer, bare_key(finding)) == nullptr) continue;
    finding.severity = Severity::warning;
    finding.message += "; it is a key of newer verl (" + newest.id + "): if the launch runs a newer verl than " +
                       chosen.id + ", give --verl-version";
  }
}

void note_older_keys(std::vector<Finding>& findings, const VerlVersion& chosen, const std::string& config_name,
                     const std::map<std::string, std::string>& group_choices) {
  for (Finding& finding : findings) {
    if (finding.rule != "hydra.unknown-key" || finding.severity != Severity::error || finding.keys.empty()) continue;
    const std::string key = bare_key(finding);
    std::vector<std::string> having;
    for (const VerlVersion& older : embedded_verl_versions()) {
      if (older.index >= chosen.index) continue;
      auto base = embedded_verl_base(older, config_name, group_choices);
      if (base.ok() && find_path(base.value(), key) != nullptr) having.push_back(older.id);
    }
    if (having.empty()) continue;
    finding.severity = Severity::warning;
    finding.message += "; it is a key of verl " + version_list(having) + ": the launch names no verl, so if it runs " +
                       (having.size() == 1 ? "that one" : "one of those") + ", give --verl-version";
  }
}

}  // namespace meshplan
