#pragma once
// A composed verl/Hydra configuration as plain values: an ordered tree of maps, lists and
// typed scalars, each remembering where it was set. Strings may hold OmegaConf
// interpolations (`${a.b}`) until resolve_interpolations() replaces them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verl/rules/finding.hpp"

namespace meshplan {

enum class NodeKind {
  null,
  boolean,
  integer,
  floating,
  string,
  list,
  map,
  missing,  ///< OmegaConf's mandatory `???`
  unknown,  ///< statically unknowable, e.g. the output of a shell `$(...)`
};

struct ConfigNode {
  NodeKind kind = NodeKind::null;
  bool boolean = false;
  std::int64_t integer = 0;
  double floating = 0;
  std::string text;  ///< string value; for `unknown` the reason
  /// `unknown` set by a script's override: the value as written, its unknown parts as the script
  /// wrote them ("$HOME/verl/models/Qwen3-32B"); "" otherwise.
  std::string written;
  std::vector<ConfigNode> items;                             ///< list
  std::vector<std::pair<std::string, ConfigNode>> entries;  ///< map, in file order
  SourceLocation origin;  ///< where the value was set (empty for the base config)

  // Defined out of line: `entries` holds pairs of this very type, which clang with libstdc++ cannot
  // check for default-constructibility while the implicit members are being defined in the class.
  ConfigNode();
  ConfigNode(const ConfigNode&);
  ConfigNode(ConfigNode&&) noexcept;
  ConfigNode& operator=(const ConfigNode&);
  ConfigNode& operator=(ConfigNode&&) noexcept;
  ~ConfigNode();

  static ConfigNode make_null();
  static ConfigNode make_bool(bool value);
  static ConfigNode make_int(std::int64_t value);
  static ConfigNode make_float(double value);
  static ConfigNode make_string(std::string value);
  static ConfigNode make_map();
  static ConfigNode make_unknown(std::string reason);

  bool is_map() const { return kind == NodeKind::map; }
  bool is_number() const { return kind == NodeKind::integer || kind == NodeKind::floating; }
  /// A string that still contains an OmegaConf interpolation.
  bool has_interpolation() const;

  /// Direct child of a map; nullptr when absent or not a map.
  ConfigNode* child(std::string_view key);
  const ConfigNode* child(std::string_view key) const;
  /// Inserts or replaces a direct child (this must be a map).
  ConfigNode& set_child(std::string_view key, ConfigNode value);
  /// Removes a direct child; false when absent.
  bool remove_child(std::string_view key);

  /// The value as a user would write it in an override (`true`, `1e-06`, `[a, b]`, `null`).
  std::string to_text() const;
  /// Numeric value of an integer or float (0 otherwise).
  double as_double() const;
};

/// Splits "a.b.c" into its parts (no escaping: verl keys have no dots in them).
std::vector<std::string> split_key(std::string_view dotted);

/// The node at a dotted path from `root`; nullptr when any part is missing.
const ConfigNode* find_path(const ConfigNode& root, std::string_view dotted);
ConfigNode* find_path(ConfigNode& root, std::string_view dotted);

/// Every leaf (non-map node, or an empty map) as "a.b.c", depth first in file order.
std::vector<std::string> leaf_keys(const ConfigNode& root);

}  // namespace meshplan
