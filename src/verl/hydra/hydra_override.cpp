#include "verl/hydra/hydra_override.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "verl/hydra/hydra_value.hpp"

namespace meshplan {
namespace {

bool valid_key(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != '/' && c != '@') {
      return false;
    }
  }
  return key.find("..") == std::string_view::npos;
}

Finding hydra_finding(const Override& o, std::string rule, std::string message, std::vector<std::string> fix) {
  Finding finding;
  finding.severity = Severity::error;
  finding.rule = std::move(rule);
  finding.keys = {o.key};
  finding.value = o.has_value ? o.value.to_text() : "";
  finding.message = std::move(message);
  finding.fix = std::move(fix);
  finding.location = o.location;
  return finding;
}

std::string value_part(const Override& o) {
  const std::size_t eq = o.text.find('=');
  return eq == std::string::npos ? "" : o.text.substr(eq + 1);
}

// Merges `value` into `target` as OmegaConf.update(merge=True) does for dicts.
void merge_into(ConfigNode& target, const ConfigNode& value) {
  if (target.is_map() && value.is_map()) {
    for (const auto& [name, child] : value.entries) {
      ConfigNode* existing = target.child(name);
      if (existing != nullptr) {
        merge_into(*existing, child);
      } else {
        target.set_child(name, child);
      }
    }
    target.origin = value.origin;
    return;
  }
  target = value;
}

void stamp_origin(ConfigNode& node, const SourceLocation& where) {
  node.origin = where;
  for (auto& item : node.items) stamp_origin(item, where);
  for (auto& [name, child] : node.entries) stamp_origin(child, where);
}

}  // namespace

Result<Override> parse_override(std::string_view word, const SourceLocation& where,
                                const std::optional<std::string>& unknown_reason) {
  Override o;
  o.text = std::string(word);
  o.location = where;
  std::string_view rest = word;
  if (rest.rfind("++", 0) == 0) {
    o.kind = OverrideKind::force;
    rest.remove_prefix(2);
  } else if (rest.rfind("+", 0) == 0) {
    o.kind = OverrideKind::add;
    rest.remove_prefix(1);
  } else if (rest.rfind("~", 0) == 0) {
    o.kind = OverrideKind::remove;
    rest.remove_prefix(1);
  }
  const std::size_t eq = rest.find('=');
  o.key = std::string(rest.substr(0, eq));
  if (!valid_key(o.key)) {
    return Error{where.file, where.line, o.key, "'" + o.text + "' is not a Hydra override (expected key=value)"};
  }
  if (eq == std::string_view::npos) {
    if (o.kind != OverrideKind::remove) {
      return Error{where.file, where.line, o.key, "'" + o.text + "' has no '=': Hydra overrides are key=value"};
    }
    return o;
  }
  o.has_value = true;
  if (unknown_reason) {
    o.value = ConfigNode::make_unknown(*unknown_reason);
    o.value.written = std::string(rest.substr(eq + 1));
  } else {
    auto value = parse_override_value(rest.substr(eq + 1));
    if (!value.ok()) return Error{where.file, where.line, o.key, value.error().message};
    o.value = std::move(value.value());
  }
  stamp_origin(o.value, where);
  return o;
}

std::optional<std::string> nearest_config_key(const ConfigNode& root, std::string_view dotted) {
  const std::vector<std::string> parts = split_key(dotted);
  // First a sibling of the deepest existing parent, then any key of the whole config.
  const ConfigNode* parent = &root;
  std::string prefix;
  std::size_t depth = 0;
  while (depth + 1 < parts.size()) {
    const ConfigNode* next = parent->child(parts[depth]);
    if (next == nullptr || !next->is_map()) break;
    parent = next;
    prefix += parts[depth] + ".";
    ++depth;
  }
  std::vector<std::string> siblings;
  for (const auto& entry : parent->entries) siblings.push_back(entry.first);
  if (auto near = nearest_match(parts[depth], siblings)) {
    std::string suggestion = prefix + *near;
    for (std::size_t i = depth + 1; i < parts.size(); ++i) suggestion += "." + parts[i];
    if (find_path(root, suggestion) != nullptr) return suggestion;
    return prefix + *near;
  }
  // Elsewhere in the same section and role: a key whose last part is (nearly) the same, e.g.
  // fsdp_size under fsdp_config; the closest full path among those. Never another role's key (the
  // actor's Megatron TP is not the rollout's TP): the role is actor_rollout_ref.<role>, else the
  // top-level section.
  const std::string role = parts.size() > 2 && parts[0] == "actor_rollout_ref" ? parts[0] + "." + parts[1] + "."
                                                                               : parts[0] + ".";
  std::vector<std::string> all;
  for (std::string& key : leaf_keys(root)) {
    if (key.rfind(role, 0) == 0) all.push_back(std::move(key));
  }
  std::vector<std::string> leaves;
  for (const std::string& key : all) leaves.push_back(key.substr(key.rfind('.') + 1));
  const auto leaf = nearest_match(parts.back(), leaves);
  if (!leaf) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = std::string::npos;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (leaves[i] != *leaf) continue;
    const std::size_t distance = edit_distance(dotted, all[i]);
    if (distance < best_distance) {
      best_distance = distance;
      best = all[i];
    }
  }
  return best;
}

// The absolute key a whole-node interpolation reads: `${a.b}` or `${oc.select:a.b,default}`
// (with the default); nullopt for other forms (relative keys, resolvers, embedded text).
struct InterpolationKey {
  std::string key;
  std::optional<std::string> select_default;
};
std::optional<InterpolationKey> interpolation_key(const ConfigNode& node) {
  const std::string& text = node.text;
  if (node.kind != NodeKind::string || text.size() < 4 || text.rfind("${", 0) != 0 || text.back() != '}') return std::nullopt;
  std::string body = text.substr(2, text.size() - 3);
  InterpolationKey out;
  if (body.rfind("oc.select:", 0) == 0) {
    body.erase(0, std::string_view("oc.select:").size());
    const std::size_t comma = body.find(',');
    if (comma != std::string::npos) {
      std::string fallback;
      for (char c : body.substr(comma + 1)) {
        if (c != ' ') fallback += c;
      }
      out.select_default = fallback;
    }
    body.resize(std::min(comma, body.size()));
  }
  if (!valid_key(body) || body.find_first_of("${}:") != std::string::npos) return std::nullopt;
  out.key = body;
  return out;
}

// What OmegaConf.select(cfg, key) finds, following interpolations on the way as it does
// (omegaconf Container._select_impl dereferences every intermediate node).
enum class Selected { absent, present, not_a_container, unknown };
Selected select_through(const ConfigNode& root, const std::vector<std::string>& parts) {
  const ConfigNode* node = &root;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ConfigNode* next = node->child(parts[i]);
    for (int hops = 0; next != nullptr && next->has_interpolation(); ++hops) {
      const auto target = interpolation_key(*next);
      if (!target || hops > 8) return Selected::unknown;
      const ConfigNode* found = find_path(root, target->key);
      if (found == nullptr && target->select_default && (*target->select_default == "null" || *target->select_default == "{}")) {
        return Selected::absent;  // oc.select's default: None, or an empty dict without the key
      }
      if (found == nullptr) return Selected::unknown;
      next = found;
    }
    if (next == nullptr || next->kind == NodeKind::null) return Selected::absent;
    if (next->kind == NodeKind::unknown) return Selected::unknown;
    if (i + 1 == parts.size()) return Selected::present;
    if (!next->is_map()) return Selected::not_a_container;
    node = next;
  }
  return Selected::absent;
}

std::optional<Finding> apply_override(ConfigNode& root, const Override& o) {
  const std::vector<std::string> parts = split_key(o.key);
  const bool creates = o.kind == OverrideKind::add || o.kind == OverrideKind::force;
  // Hydra 1.3 (_apply_overrides_to_config): '+' first asks OmegaConf.select whether the key
  // holds a value, following interpolations; a parent on the way that is a value, not a dict, is
  // OmegaConf's ConfigTypeError.
  const Selected selected = o.kind == OverrideKind::add ? select_through(root, parts) : Selected::unknown;
  if (selected == Selected::not_a_container) {
    return hydra_finding(o, "hydra.not-a-dict", "cannot add '" + o.key + "': a parent of it is not a dict", {});
  }
  // Then OmegaConf.update(force_add=True) replaces every parent that is not a dict (null, or a
  // `${...}` interpolation string) with {} before it sets the key.
  ConfigNode* parent = &root;
  bool parent_reached = true;
  for (std::size_t i = 0; i + 1 < parts.size() && parent_reached; ++i) {
    ConfigNode* next = parent->child(parts[i]);
    if (next == nullptr && creates) next = &parent->set_child(parts[i], ConfigNode::make_map());
    if (next != nullptr && creates && (next->kind == NodeKind::null || o.kind == OverrideKind::force || next->has_interpolation()) && !next->is_map()) {
      *next = ConfigNode::make_map();
    }
    // A list is walked by its index (`trainer.llm_engines.0.model_path`: OmegaConf.update).
    if (next == nullptr || !(next->is_map() || next->kind == NodeKind::list)) {
      parent_reached = false;
    } else {
      parent = next;
    }
  }
  const std::string& leaf = parts.back();
  ConfigNode* existing = parent_reached ? parent->child(leaf) : nullptr;
  switch (o.kind) {
    case OverrideKind::assign: {
      if (existing != nullptr) {
        merge_into(*existing, o.value);
        return std::nullopt;
      }
      // OmegaConf names the first part of the key that is missing, under the deepest section the
      // key reaches. A section with `_target_` is instantiated as a class: adding a key with '+'
      // would only move the failure there, so '+' is offered for plain dicts only.
      const ConfigNode* reached = &root;
      std::size_t missing = 0;
      while (missing + 1 < parts.size() && reached->child(parts[missing]) != nullptr &&
             (reached->child(parts[missing])->is_map() || reached->child(parts[missing])->kind == NodeKind::list)) {
        reached = reached->child(parts[missing++]);
      }
      if (missing + 1 < parts.size() && reached->child(parts[missing]) != nullptr) ++missing;  // under a value
      const bool instantiated = reached->child("_target_") != nullptr;
      std::vector<std::string> fix;
      if (!instantiated) fix.push_back("+" + o.text);
      std::string message = "'" + o.key + "' is not in verl's config: Hydra (struct mode) stops before verl starts "
                            "(\"Could not override '" + o.key + "'. Key '" + parts[missing] + "' is not in struct\")";
      if (auto near = nearest_config_key(root, o.key)) {
        message += "; did you mean '" + *near + "'?";
        fix.insert(fix.begin(), *near + "=" + value_part(o));
      } else if (instantiated) {
        message += "; its section is built as " + reached->child("_target_")->text + ", which has no such field";
      } else {
        message += "; to add a new key use +" + o.key + "=...";
      }
      return hydra_finding(o, "hydra.unknown-key", message, fix);
    }
    case OverrideKind::add:
      // Hydra 1.3 (_apply_overrides_to_config): '+' may set a key whose value is null, or merge
      // a dict/list into it; only a non-null existing value is an error.
      if ((selected == Selected::present || (existing != nullptr && existing->kind != NodeKind::null)) &&
          !o.value.is_map() && o.value.kind != NodeKind::list) {
        return hydra_finding(o, "hydra.append-existing",
                             "'" + o.key + "' already exists: Hydra stops before verl starts (\"Could not append to "
                             "config. An item is already at '" + o.key + "'\"); drop the '+' or use '++'",
                             {o.text.substr(1)});
      }
      [[fallthrough]];
    case OverrideKind::force:
      if (!parent_reached || (existing == nullptr && !parent->is_map())) {
        return hydra_finding(o, "hydra.not-a-dict", "cannot add '" + o.key + "': a parent of it is not a dict", {});
      }
      if (existing != nullptr) {
        merge_into(*existing, o.value);
      } else {
        parent->set_child(leaf, o.value);
      }
      return std::nullopt;
    case OverrideKind::remove:
      if (existing == nullptr) {
        return hydra_finding(o, "hydra.delete-missing",
                             "cannot delete '" + o.key + "': Hydra stops before verl starts (\"Could not delete "
                             "from config. '" + o.key + "' does not exist.\")", {});
      }
      parent->remove_child(leaf);
      return std::nullopt;
  }
  return std::nullopt;
}

std::string split_piece_note(const std::string& split_from) {
  const std::string name = split_from.substr(0, split_from.find(' '));
  return "; it is a piece of " + split_from +
         ", split at its blanks because the expansion is unquoted (bash word splitting): quote it (\"" + name +
         "\") or give the variable a value without blanks";
}

}  // namespace meshplan
