#pragma once
// The failure signatures and categories: data tables a contributor extends without touching
// the engine (signatures.cpp, categories.cpp). Every signature carries an example line that its
// test feeds through the scanner.
#include <span>
#include <string_view>
#include <vector>

#include "verl/rules/finding.hpp"

namespace meshplan {

// Severity (error, warning, info) is the one check's findings use (verl/finding.hpp).

/// primary: can be the root cause. consequence: usually the echo of a failure elsewhere (a
/// watchdog timeout on the ranks that waited for a crashed one, "actor died" after the OOM killer,
/// a network error when the peer exited); it is the root cause only when nothing primary is found.
enum class EventRole { primary, consequence };

/// How a regex group is read: a memory size ("9.28 GiB", "787.74 MiB") converted to GiB, a plain
/// number, a size in kB (dmesg) converted to GiB, or text.
enum class CaptureKind { gib, number, kib_as_gib, text };

struct Capture {
  std::string_view name;  ///< key in the diagnosis' numbers, units in the name (…_gib, …_ms)
  CaptureKind kind = CaptureKind::number;
};

enum class FixKind { override_line, env, action };

/// One suggested fix. `computed` may use placeholders, filled from the user's config and the
/// numbers read from the log:
///   {cfg:KEY}  the config's value of KEY          {half:KEY} / {double:KEY}  half / twice it
///   {n:NAME}   a number read from the message     {d:NAME}   a derived number (fix_renderer.cpp)
/// When any placeholder cannot be filled, `generic` (which names the knob) is shown instead.
struct FixTemplate {
  FixKind kind = FixKind::override_line;
  std::string_view computed;
  std::string_view generic;        ///< "" means: computed has no placeholders, always use it
  std::string_view phases = {};    ///< comma-separated phases it applies to; "" = any phase
  std::string_view unless = {};    ///< "KEY=VALUE": dropped when the config already has it
  /// "KEY=VALUE": with a config that sets KEY, kept only when it is VALUE (else `generic` says when
  /// it applies).
  std::string_view only_if = {};
  /// "sleep_mode": not offered when the run's rollout engine uses vLLM's or SGLang's sleep mode
  /// (their memory pools assert against PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).
  std::string_view conflicts_with = {};
};

/// The category a signature falls into when the phase it happened in belongs to `phase_group`.
struct PhaseRule {
  std::string_view phase_group;  ///< "rollout" or "training" (phase.cpp)
  std::string_view category;
};

/// How a signature is found. `literal`: its literals on any line, then its regex reads the
/// numbers. `shape`: its regex, case-insensitive, on an error line that no literal signature
/// explained ("Class: message" and the lines that continue the message; error_line.hpp).
enum class MatchKind { literal, shape };

struct Signature {
  std::string_view id;        ///< stable, snake_case
  std::string_view category;  ///< stable category id (categories.cpp)
  EventRole role = EventRole::primary;
  /// Every literal must occur in the line (case-sensitive): the cheap prefilter before the regex.
  /// The first is the anchor that lets a line through the scanner's first filter: make it the
  /// most distinctive one, at least 11 bytes long (LiteralMatcher::kMinAnchor).
  std::vector<std::string_view> literals;
  std::string_view pattern;        ///< ECMAScript regex whose groups are `captures`; "" for none
  std::vector<Capture> captures;
  std::vector<PhaseRule> phase_rules;
  std::string_view summary;  ///< the root cause in one sentence, without numbers
  std::string_view detail;   ///< the same with {n:…} / {phase} placeholders; "" = summary only
  std::vector<FixTemplate> fixes;  ///< specific fixes, before the category's general ones
  std::string_view example;        ///< a real-format line this signature must match (its test)
  MatchKind match = MatchKind::literal;
};

struct Category {
  std::string_view id;
  std::string_view title;
  Severity severity = Severity::error;
  bool is_failure = true;          ///< false for the slow-run (bottleneck) categories
  std::vector<FixTemplate> fixes;  ///< ranked by cost to the user, cheapest first
};

std::span<const Signature> signatures();
std::span<const Category> categories();
/// The category with this id; nullptr when unknown.
const Category* find_category(std::string_view id);

}  // namespace meshplan
