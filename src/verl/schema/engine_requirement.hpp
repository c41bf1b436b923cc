#pragma once
// Whether a verl version's rollout-engine requirement (setup.py: "vllm>=0.18.0", "sglang==0.5.8")
// admits releases newer than the newest one meshplan read the engine's arguments from: then an
// argument the tables lack may be one the installed engine has.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

/// "0.4.6.post5" -> {0, 4, 6, 5}, "v0.12.0" -> {0, 12, 0}; nullopt for text that is not a release
/// number ("main@001067ff").
std::optional<std::vector<int>> release_number(std::string_view text);

/// Whether `spec` (comma-separated ==, >=, <=, <, >, != clauses) admits a release newer than
/// `newest_read`: it has no upper bound (==, <= or <) or its upper bound is newer.
bool admits_newer(std::string_view spec, const std::vector<int>& newest_read);

/// Whether the newest release `spec` admits (what pip installs) is `release` or later: its upper
/// bound (==, <=, <) is at or after `release`, or it has none. A bound not understood admits it.
bool newest_admitted_at_least(std::string_view spec, const std::vector<int>& release);

/// Whether every release `spec` admits is newer than `release`: its lower bound (>=, >, ==) is
/// after it. False when it has no lower bound or one that is not a release number.
bool oldest_admitted_after(std::string_view spec, const std::vector<int>& release);

}  // namespace meshplan
