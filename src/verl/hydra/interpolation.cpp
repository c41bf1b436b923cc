#include "verl/hydra/interpolation.hpp"

#include <optional>
#include <set>
#include <string>

#include "verl/hydra/hydra_value.hpp"

namespace meshplan {
namespace {

std::string trim_copy(std::string_view text) {
  std::size_t start = 0, end = text.size();
  while (start < end && (text[start] == ' ' || text[start] == '\n')) ++start;
  while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\n')) --end;
  return std::string(text.substr(start, end - start));
}

// Index of the '}' closing the "${" at `open`, or npos.
std::size_t closing_brace(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      ++depth;
      ++i;
    } else if (text[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// Strings that interpolate others twice over double at each level: past this size the value is
// not evaluated (no real config comes near it).
constexpr std::size_t kMaxJoinedBytes = std::size_t{1} << 20;

class Resolver {
 public:
  explicit Resolver(ConfigNode& root) : root_(root) {}

  void resolve_all(ConfigNode& node, const std::string& path) {
    if (node.is_map()) {
      for (auto& [name, child] : node.entries) resolve_all(child, path.empty() ? name : path + "." + name);
    } else if (node.kind == NodeKind::list) {
      for (auto& item : node.items) resolve_all(item, path);
    } else if (node.has_interpolation()) {
      resolve_node(node, path);
    }
  }

  std::vector<Finding> findings;

 private:
  // Resolves `node` (at dotted `path`) in place.
  void resolve_node(ConfigNode& node, const std::string& path) {
    if (!in_progress_.insert(path).second) {
      report(path, node, "interpolation cycle through '" + path + "'");
      node = ConfigNode::make_unknown("interpolation cycle");
      return;
    }
    const std::string text = node.text;
    const SourceLocation origin = node.origin;
    const std::size_t open = text.find("${");
    const std::size_t close = closing_brace(text, open);
    if (open == 0 && close == text.size() - 1) {
      node = evaluate(text.substr(2, close - 2), path, node);
      if (node.origin.file.empty()) node.origin = origin;
    } else {
      std::optional<std::string> joined = join(text, path, node);
      node = joined ? ConfigNode::make_string(std::move(*joined))
                    : ConfigNode::make_unknown("interpolated string longer than 1 MiB");
      node.origin = origin;
    }
    in_progress_.erase(path);
  }

  // The string with every interpolation replaced; nullopt past kMaxJoinedBytes.
  std::optional<std::string> join(const std::string& text, const std::string& path, const ConfigNode& self) {
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t open = text.find("${", pos);
      const std::size_t close = open == std::string::npos ? open : closing_brace(text, open);
      if (close == std::string::npos) {
        out += text.substr(pos);
        break;
      }
      out += text.substr(pos, open - pos);
      const ConfigNode part = evaluate(text.substr(open + 2, close - open - 2), path, self);
      out += part.kind == NodeKind::string ? part.text : part.to_text();
      if (out.size() > kMaxJoinedBytes) return std::nullopt;
      pos = close + 1;
    }
    return out;
  }

  // The value of one interpolation body such as "a.b" or "oc.select:.x,null".
  ConfigNode evaluate(const std::string& body, const std::string& path, const ConfigNode& self) {
    if (body.rfind("oc.select:", 0) == 0 || body.rfind("oc.env:", 0) == 0) {
      const bool env = body.rfind("oc.env:", 0) == 0;
      const std::string args = body.substr(body.find(':') + 1);
      const std::size_t comma = args.find(',');
      const std::string key = trim_copy(args.substr(0, comma));
      std::optional<ConfigNode> fallback;
      if (comma != std::string::npos) {
        auto parsed = parse_override_value(trim_copy(args.substr(comma + 1)));
        fallback = parsed.ok() ? parsed.value() : ConfigNode::make_string(trim_copy(args.substr(comma + 1)));
      }
      if (env) return fallback ? *fallback : ConfigNode::make_unknown("environment variable " + key);
      if (ConfigNode* target = lookup(key, path)) return value_of(*target, absolute(key, path));
      return fallback ? *fallback : ConfigNode::make_null();
    }
    if (trim_copy(body).empty()) {  // OmegaConf's grammar has no empty interpolation
      report(path, self, "empty interpolation '${}'");
      return ConfigNode::make_unknown("empty interpolation");
    }
    if (body.find(':') != std::string::npos) {
      return ConfigNode::make_unknown("resolver '" + body.substr(0, body.find(':')) + "' is not evaluated");
    }
    if (ConfigNode* target = lookup(body, path)) return value_of(*target, absolute(body, path));
    report(path, self, "interpolation '${" + body + "}' refers to a key that does not exist");
    return ConfigNode::make_unknown("missing interpolation target " + body);
  }

  ConfigNode value_of(ConfigNode& target, const std::string& target_path) {
    if (target.has_interpolation()) resolve_node(target, target_path);
    if (target.is_map() || target.kind == NodeKind::list) resolve_all(target, target_path);
    return target;
  }

  // Dotted absolute path of a (possibly relative) key used at `path`.
  static std::string absolute(const std::string& key, const std::string& path) {
    if (key.empty() || key[0] != '.') return key;
    std::vector<std::string> parts = split_key(path);
    parts.pop_back();  // the key holding the interpolation
    std::size_t dots = 0;
    while (dots < key.size() && key[dots] == '.') ++dots;
    for (std::size_t i = 1; i < dots && !parts.empty(); ++i) parts.pop_back();
    std::string out;
    for (const auto& part : parts) out += part + ".";
    return out + key.substr(dots);
  }

  ConfigNode* lookup(const std::string& key, const std::string& path) {
    return find_path(root_, absolute(key, path));
  }

  void report(const std::string& path, const ConfigNode& node, const std::string& what) {
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "config.interpolation";
    finding.keys = {path};
    finding.value = node.text;
    finding.message = what + ": OmegaConf.resolve() in verl's TaskRunner.run would raise before any worker starts";
    finding.location = node.origin;
    findings.push_back(std::move(finding));
  }

  ConfigNode& root_;
  std::set<std::string> in_progress_;
};

}  // namespace

std::vector<Finding> resolve_interpolations(ConfigNode& root) {
  Resolver resolver(root);
  resolver.resolve_all(root, "");
  return std::move(resolver.findings);
}

}  // namespace meshplan
