#include "verl/schema/registry_sources.hpp"

#include <set>

#include "core/std_regex.hpp"

namespace meshplan {
namespace {

// Every first group of `pattern` in `text`.
void collect(const std::string& text, const std::regex& pattern, std::set<std::string>& out) {
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) out.insert((*it)[1].str());
}

bool under(const std::string& path, const std::string& directory) { return path.rfind(directory, 0) == 0; }

const std::string* source(const std::map<std::string, std::string>& sources, const std::string& path) {
  const auto it = sources.find(path);
  return it == sources.end() ? nullptr : &it->second;
}

std::set<std::string> loggers(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  const std::string* tracking = source(sources, "utils/tracking.py");
  std::smatch list;
  if (tracking == nullptr || !std::regex_search(*tracking, list, std::regex(R"(supported_backend\s*=\s*\[([^\]]*)\])"))) {
    return names;
  }
  collect(list[1].str(), std::regex(R"re("([a-z0-9_]+)")re"), names);
  return names;
}

std::set<std::string> adv_estimators(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  for (const char* path : {"trainer/ppo/core_algos.py", "trainer/ppo/ray_trainer.py"}) {
    const std::string* text = source(sources, path);
    if (text == nullptr) continue;
    const std::size_t start = text->find("class AdvantageEstimator");
    if (start == std::string::npos) continue;
    // The class body: the indented lines after its header, up to the next unindented line.
    std::size_t end = text->find('\n', start);
    while (end != std::string::npos && end + 1 < text->size() &&
           ((*text)[end + 1] == ' ' || (*text)[end + 1] == '\t' || (*text)[end + 1] == '\n')) {
      end = text->find('\n', end + 1);
    }
    const std::string body = text->substr(start, end == std::string::npos ? std::string::npos : end - start);
    collect(body, std::regex(R"re(\n\s+[A-Z_0-9]+\s*=\s*"([^"]+)")re"), names);
    return names;
  }
  return names;
}

std::set<std::string> policy_losses(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  if (const std::string* algos = source(sources, "trainer/ppo/core_algos.py")) {
    collect(*algos, std::regex(R"re(register_policy_loss\("([^"]+)")re"), names);
  }
  if (names.empty()) return names;  // no registry yet: loss_mode did not exist
  // Before "vanilla" was registered (v0.5.0) the actors branched on it themselves.
  for (const auto& [path, text] : sources) {
    if (under(path, "workers/actor/")) collect(text, std::regex(R"re(loss_mode == "([^"]+)")re"), names);
  }
  return names;
}

std::set<std::string> reward_managers(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  for (const auto& [path, text] : sources) {
    if (under(path, "workers/reward_manager/")) collect(text, std::regex(R"re(\n@register\("([^"]+)")re"), names);
  }
  // Before the registry (v0.4.0) load_reward_manager branched on the name.
  if (const std::string* reward = source(sources, "trainer/ppo/reward.py")) {
    collect(*reward, std::regex(R"re(reward_manager_name == "([^"]+)")re"), names);
  }
  return names;
}

}  // namespace

const std::vector<std::string>& registry_source_paths() {
  static const std::vector<std::string> paths = {"utils/tracking.py", "trainer/ppo/core_algos.py",
                                                 "trainer/ppo/ray_trainer.py", "trainer/ppo/reward.py",
                                                 "workers/reward_manager/", "workers/actor/"};
  return paths;
}

std::map<std::string, std::vector<std::string>> registry_names_from_sources(
    const std::map<std::string, std::string>& sources) {
  std::map<std::string, std::vector<std::string>> out;
  const std::pair<const char*, std::set<std::string>> kinds[] = {{"logger", loggers(sources)},
                                                                 {"adv_estimator", adv_estimators(sources)},
                                                                 {"policy_loss", policy_losses(sources)},
                                                                 {"reward_manager", reward_managers(sources)}};
  for (const auto& [kind, names] : kinds) {
    if (!names.empty()) out[kind] = std::vector<std::string>(names.begin(), names.end());
  }
  return out;
}

}  // namespace meshplan
