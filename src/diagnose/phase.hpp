#pragma once
// Which phase of a verl step a log line belongs to, from the names in traceback frames and Ray
// method names (verl/workers/fsdp_workers.py, megatron_workers.py, sharding_manager/,
// vllm_rollout/, checkpoint/): a data table like the signatures.
#include <span>
#include <string_view>

namespace meshplan {

struct PhaseMarker {
  std::string_view literal;  ///< occurs in a frame ("in update_actor") or a Ray method name
  std::string_view phase;    ///< stable phase id
  std::string_view group;    ///< "training", "rollout", "checkpoint" or "startup"
  /// An engine's own log message announcing the phase (vLLM's "Capturing cudagraphs"): counts on
  /// any line, not only in traceback frames and Ray method names.
  bool message = false;
  /// An engine's own code in a frame (vllm/model_executor/): its forward pass, the phase only
  /// when no other marker of the traceback names one (an engine start's profile_run does).
  bool fallback = false;
};

std::span<const PhaseMarker> phase_markers();

/// The group of a phase id ("" for an unknown or empty phase).
std::string_view phase_group(std::string_view phase);

}  // namespace meshplan
