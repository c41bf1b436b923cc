#include "verl/hydra/hydra_compose.hpp"

#include <optional>
#include <vector>

#include "verl/hydra/config_loader.hpp"

namespace meshplan {
namespace {

constexpr int kMaxDepth = 32;  // a defaults list that includes itself is an error, not a hang

struct DefaultsEntry {
  bool self = false;       ///< `_self_`
  bool override = false;   ///< `override group: option`
  std::string group;       ///< "" for a config of the parent's own group
  std::string package;     ///< explicit `@package` ("" when none)
  bool has_package = false;
  std::string option;      ///< config name within the group (may interpolate choices)
  /// `group@package: [a, b]`: several configs of the group merged in order at the package (Hydra
  /// 1.1 "Selecting multiple configs from a Config Group"; verl 0.8's mindspeed_actor.yaml
  /// `../engine@mindspeed: [megatron, mindspeed]`). Empty for a single option.
  std::vector<std::string> options;
  int line = 0;  ///< the entry's line in its defaults list
};

std::string join(const std::string& a, const std::string& b, char separator) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + separator + b;
}

// "../optim" from group "actor" -> "optim"; "engine" from "" -> "engine"; an absolute "/optim"
// (Hydra: from the config search path's root) -> "optim" from any group.
std::string resolve_group(const std::string& parent_group, std::string group) {
  if (group.starts_with('/')) return group.substr(1);
  std::string base = parent_group;
  while (group.rfind("../", 0) == 0) {
    group = group.substr(3);
    const std::size_t slash = base.rfind('/');
    base = slash == std::string::npos ? "" : base.substr(0, slash);
  }
  return join(base, group, '/');
}

// A config of the defaults list named without a group: "extra" in group "actor" is
// "actor/extra"; an absolute "/baseline_grpo" (ROPD's ropd.yaml) is the root's.
std::string config_of_group(const std::string& group, const std::string& option) {
  return option.starts_with('/') ? option.substr(1) : join(group, option, '/');
}

// The group a config path belongs to: "actor/extra" -> "actor", "baseline_grpo" -> "".
std::string group_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

Result<DefaultsEntry> parse_entry(const ConfigNode& item, const std::string& file) {
  DefaultsEntry entry;
  entry.line = item.origin.line;
  if (item.kind == NodeKind::string) {
    entry.self = item.text == "_self_";
    entry.option = item.text;
    // `name@package`: a config of the parent's group placed at a package (verl's
    // `- reward_manager@reward_manager`).
    if (const std::size_t at = item.text.find('@'); at != std::string::npos) {
      entry.option = item.text.substr(0, at);
      entry.package = item.text.substr(at + 1);
      entry.has_package = true;
    }
    return entry;
  }
  const auto is_option_list = [](const ConfigNode& value) {
    if (value.kind != NodeKind::list || value.items.empty()) return false;
    for (const ConfigNode& option : value.items) {
      if (option.kind != NodeKind::string) return false;
    }
    return true;
  };
  if (!item.is_map() || item.entries.size() != 1 ||
      (item.entries.front().second.kind != NodeKind::string && !is_option_list(item.entries.front().second))) {
    return Error{file, item.origin.line, "defaults",
                 "a defaults entry must be `name` or `group[@package]: option` (or a list of options)"};
  }
  std::string key = item.entries.front().first;
  const ConfigNode& value = item.entries.front().second;
  entry.option = value.text;
  for (const ConfigNode& option : value.items) entry.options.push_back(option.text);
  if (key.rfind("override ", 0) == 0) {
    entry.override = true;
    key = key.substr(9);
  }
  const std::size_t at = key.find('@');
  entry.group = key.substr(0, at);
  if (at != std::string::npos) {
    entry.package = key.substr(at + 1);
    entry.has_package = true;
  }
  return entry;
}

class Composer {
 public:
  Composer(const std::map<std::string, std::string>& texts, const std::map<std::string, std::string>& choices)
      : texts_(texts), fixed_(choices), choices_(choices) {}

  Result<ConfigNode> run(const std::string& primary) {
    if (auto collected = collect_choices(primary, "", 0); !collected.ok()) return collected.error();
    ConfigNode root = ConfigNode::make_map();
    if (auto composed = compose(primary, "", "", 0, root); !composed.ok()) return composed.error();
    return root;
  }

 private:
  // A config a defaults entry names that no directory holds: the error names the entry's line in
  // the config that lists it (Hydra: "Could not find 'data/x'" in the defaults list of that config).
  static Error at_entry(Error error, const std::string& missing, const std::string& path, const DefaultsEntry& entry) {
    if (error.file != missing + ".yaml" || error.message != "config '" + missing + "' is not in the directory") {
      return error;
    }
    return Error{path + ".yaml", entry.line, "defaults",
                 "names config '" + missing + "', which is not in the directory"};
  }

  struct Loaded {
    ConfigNode content;                  ///< without `defaults`
    std::vector<DefaultsEntry> defaults;
    bool global = false;                 ///< `# @package _global_`
  };

  Result<Loaded> load(const std::string& path) const {
    const auto it = texts_.find(path);
    if (it == texts_.end()) return Error{path + ".yaml", 0, "defaults", "config '" + path + "' is not in the directory"};
    auto node = config_from_yaml(it->second, path + ".yaml");
    if (!node.ok()) return node.error();
    Loaded loaded;
    loaded.global = it->second.find("# @package _global_") != std::string::npos;
    if (const ConfigNode* list = node->child("defaults")) {
      if (list->kind != NodeKind::list) return Error{path + ".yaml", list->origin.line, "defaults", "must be a list"};
      for (const ConfigNode& item : list->items) {
        auto entry = parse_entry(item, path + ".yaml");
        if (!entry.ok()) return entry.error();
        loaded.defaults.push_back(std::move(entry.value()));
      }
      node->remove_child("defaults");
    }
    loaded.content = std::move(node.value());
    return loaded;
  }

  // `${group}` in an option becomes that group's choice.
  Result<std::string> interpolate(const std::string& option, const std::string& file) const {
    std::string out;
    std::size_t at = 0;
    while (true) {
      const std::size_t open = option.find("${", at);
      if (open == std::string::npos) return out + option.substr(at);
      const std::size_t close = option.find('}', open);
      if (close == std::string::npos) return Error{file, 0, "defaults", "unterminated interpolation in '" + option + "'"};
      const std::string group = option.substr(open + 2, close - open - 2);
      const auto choice = choices_.find(group);
      if (choice == choices_.end()) {
        return Error{file, 0, "defaults", "'" + option + "' names the choice of group '" + group + "', which has none"};
      }
      out += option.substr(at, open - at) + choice->second;
      at = close + 1;
    }
  }

  // The group choices of the defaults lists: plain entries choose unless already chosen,
  // `override` entries replace them, the command line wins over both.
  Result<bool> collect_choices(const std::string& path, const std::string& group, int depth) {
    if (depth > kMaxDepth) return Error{path + ".yaml", 0, "defaults", "the defaults lists include each other"};
    auto loaded = load(path);
    if (!loaded.ok()) return loaded.error();
    for (const DefaultsEntry& entry : loaded->defaults) {
      if (entry.self) continue;
      if (entry.group.empty()) {
        const std::string nested_path = config_of_group(group, entry.option);
        if (auto nested = collect_choices(nested_path, group_of(nested_path), depth + 1); !nested.ok()) {
          return at_entry(nested.error(), nested_path, path, entry);
        }
        continue;
      }
      // A list of options chooses for its own package only (composed as listed).
      if (!entry.options.empty()) continue;
      const std::string full = resolve_group(group, entry.group);
      if (fixed_.count(full) != 0) continue;
      if (entry.override || choices_.count(full) == 0) choices_[full] = entry.option;
    }
    return true;
  }

  Result<bool> compose(const std::string& path, const std::string& group, const std::string& package, int depth,
                       ConfigNode& root) {
    if (depth > kMaxDepth) return Error{path + ".yaml", 0, "defaults", "the defaults lists include each other"};
    auto loaded = load(path);
    if (!loaded.ok()) return loaded.error();
    const std::string here = loaded->global ? "" : package;
    bool self_done = false;
    for (const DefaultsEntry& entry : loaded->defaults) {
      if (entry.override) continue;  // a choice, taken by collect_choices
      if (entry.self) {
        merge_at(root, here, loaded->content);
        self_done = true;
        continue;
      }
      if (entry.group.empty()) {  // a config of this config's own group, at this package (or its own)
        const std::string at = entry.has_package ? join(here, entry.package, '.') : here;
        const std::string nested_path = config_of_group(group, entry.option);
        if (auto nested = compose(nested_path, group_of(nested_path), at, depth + 1, root); !nested.ok()) {
          return at_entry(nested.error(), nested_path, path, entry);
        }
        continue;
      }
      const std::string full = resolve_group(group, entry.group);
      // Hydra's default package of a group option is the group's path (`_group_`), relative here.
      std::string own_package = entry.package;
      if (!entry.has_package) {
        own_package = entry.group.starts_with('/') ? entry.group.substr(1) : entry.group;
        while (own_package.rfind("../", 0) == 0) own_package = own_package.substr(3);
        for (char& c : own_package) c = c == '/' ? '.' : c;
      }
      const std::string at = join(here, own_package, '.');
      // A command-line `group@package=option` chooses for that package only (the `model` group
      // serves both actor_rollout_ref.model and critic.model).
      const auto for_package = choices_.find(full + "@" + at);
      std::vector<std::string> chosen = entry.options;
      if (for_package != choices_.end()) {
        chosen = {for_package->second};
      } else if (chosen.empty()) {
        chosen = {choices_.count(full) != 0 ? choices_.at(full) : entry.option};
      }
      for (const std::string& each : chosen) {
        auto option = interpolate(each, path + ".yaml");
        if (!option.ok()) return option.error();
        if (auto nested = compose(full + "/" + *option, full, at, depth + 1, root); !nested.ok()) {
          // A choice given on the command line is the command line's, not this entry's.
          const bool from_command_line = fixed_.count(full) != 0 || fixed_.count(full + "@" + at) != 0;
          return from_command_line ? nested.error() : at_entry(nested.error(), full + "/" + *option, path, entry);
        }
      }
    }
    if (!self_done) merge_at(root, here, loaded->content);
    return true;
  }

  static void merge_into(ConfigNode& target, const ConfigNode& layer) {
    if (!target.is_map() || !layer.is_map()) {
      target = layer;
      return;
    }
    for (const auto& [key, value] : layer.entries) {
      ConfigNode* existing = target.child(key);
      if (existing != nullptr) {
        merge_into(*existing, value);
      } else {
        target.set_child(key, value);
      }
    }
  }

  static void merge_at(ConfigNode& root, const std::string& package, const ConfigNode& content) {
    ConfigNode* node = &root;
    std::size_t start = 0;
    while (!package.empty() && start <= package.size()) {
      const std::size_t dot = package.find('.', start);
      const std::string key = package.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      ConfigNode* next = node->child(key);
      if (next == nullptr || !next->is_map()) next = &node->set_child(key, ConfigNode::make_map());
      node = next;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    merge_into(*node, content);
  }

  const std::map<std::string, std::string>& texts_;
  const std::map<std::string, std::string> fixed_;
  std::map<std::string, std::string> choices_;
};

}  // namespace

Result<ConfigNode> compose_hydra_config(const std::map<std::string, std::string>& texts, const std::string& primary,
                                        const std::map<std::string, std::string>& choices) {
  return Composer(texts, choices).run(primary);
}

bool has_defaults_list(const std::string& text) {
  return text.rfind("defaults:", 0) == 0 || text.find("\ndefaults:") != std::string::npos;
}

bool is_config_group(const std::map<std::string, std::string>& texts, const std::string& group) {
  const std::string prefix = group + "/";
  const auto it = texts.lower_bound(prefix);
  return it != texts.end() && it->first.rfind(prefix, 0) == 0;
}

}  // namespace meshplan
