#pragma once
// Hydra command-line overrides applied to a composed config in struct mode, as Hydra 1.3 does
// (hydra/_internal/config_loader_impl.py: _apply_overrides_to_config):
//   key=v   the key must exist                 ("Could not override 'key'")
//   +key=v  the key must not exist             ("Could not append to config. An item is already at 'key'")
//   ++key=v set, creating the key if needed
//   ~key    delete (the key must exist)        ("Could not delete from config. 'key' does not exist.")
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "verl/hydra/config_node.hpp"

namespace meshplan {

enum class OverrideKind { assign, add, force, remove };

struct Override {
  OverrideKind kind = OverrideKind::assign;
  std::string key;         ///< dotted, without the prefix
  std::string text;        ///< the whole override as written after shell expansion
  ConfigNode value;        ///< typed value (null for a bare ~key)
  bool has_value = false;  ///< false only for `~key`
  SourceLocation location;
};

/// Parses one override word. `unknown_reason` set: the value is statically unknown (a shell
/// `$(...)`), the key is still checked. Errors name the malformed word.
Result<Override> parse_override(std::string_view word, const SourceLocation& where,
                                const std::optional<std::string>& unknown_reason = std::nullopt);

/// Applies one override; a finding (rule ids `hydra.*`) when Hydra would refuse it.
std::optional<Finding> apply_override(ConfigNode& root, const Override& override_);

/// The closest existing key to a dotted key that does not exist (for "did you mean").
std::optional<std::string> nearest_config_key(const ConfigNode& root, std::string_view dotted);

/// What a refused override that is one piece of a split value adds to its message:
/// `split_from` is ShellArgument::split_from ("$HOME (line 7: 'Your grpo4llava path')").
std::string split_piece_note(const std::string& split_from);

}  // namespace meshplan
