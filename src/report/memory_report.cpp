#include "report/memory_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "report/table.hpp"

namespace meshplan {
namespace {

constexpr int kBarWidth = 40;

std::string gib(double bytes) { return fmt::format("{:.2f}", bytes_to_gib(bytes)); }

// A bar of the component's share of the GPU: one block per 1/40 of capacity, at least a
// sliver for a non-zero term.
std::string bar(double bytes, double capacity) {
  if (capacity <= 0 || bytes <= 0) return "";
  const int cells = std::clamp(static_cast<int>(std::lround(bytes / capacity * kBarWidth)), 1, 3 * kBarWidth);
  std::string text;
  for (int i = 0; i < cells; ++i) text += "█";
  return text;
}

}  // namespace

std::string render_memory_phases(const MemoryEstimate& e) {
  std::string text;
  for (int i = 0; i < e.phase_count; ++i) {
    const PhaseMemory& phase = e.phases[i];
    text += fmt::format("Phase {} (most loaded rank: pipeline stage {})\n", memory_phase_name(phase.kind),
                        phase.stage);
    std::vector<std::vector<std::string>> rows;
    for (int c = 0; c < kMemoryComponentCount; ++c) {
      const double bytes = phase.bytes[c];
      if (bytes <= 0) continue;
      rows.push_back(
          {memory_component_name(static_cast<MemoryComponent>(c)), gib(bytes), bar(bytes, e.capacity_bytes)});
    }
    rows.push_back(
        {"peak", gib(phase.peak_bytes()),
         fmt::format("{:.0f}% of {} GiB", 100.0 * phase.peak_bytes() / std::max(e.capacity_bytes, 1.0),
                     gib(e.capacity_bytes))});
    text += render_table(
        {{"component", Align::left}, {"GiB", Align::right}, {"share of the GPU", Align::left}}, rows);
    text += "\n";
  }
  return text;
}

std::string memory_verdict(const MemoryEstimate& e) {
  const PhaseMemory& peak = e.peak();
  const char* phase = memory_phase_name(peak.kind);
  if (e.kv_cache_exhausted) {
    return fmt::format(
        "OOM: the rollout engine's memory budget leaves no room for a KV cache (vLLM/SGLang refuse to "
        "start); raise --gpu-memory-utilization or --rollout-tp. Peak {} GiB in phase {} of {} GiB.",
        gib(e.peak_bytes), phase, gib(e.capacity_bytes));
  }
  if (e.kv_below_one_sequence) {
    const RolloutCapacity& r = e.rollout;
    return fmt::format(
        "does not fit: the rollout KV cache holds {} tokens per replica, less than one max_model_len sequence of {} "
        "tokens ({} GiB of KV): vLLM refuses to start (vllm/v1/core/kv_cache_utils.py "
        "check_enough_kv_cache_memory); --gpu-memory-utilization {:.2f} holds one. Peak {} GiB in phase {}.",
        r.kv_tokens_per_replica, r.max_model_len, gib(double(r.max_model_len) * r.kv_bytes_per_token),
        std::ceil(r.gpu_memory_utilization_for_one_sequence * 100.0) / 100.0, gib(e.peak_bytes), phase);
  }
  if (!e.fits) {
    return fmt::format("OOM by {} GiB in phase {} on rank {} (pipeline stage {}): peak {} GiB of {} GiB",
                       gib(-e.headroom_bytes), phase, peak.stage, peak.stage, gib(e.peak_bytes),
                       gib(e.capacity_bytes));
  }
  return fmt::format("fits: peak {} GiB in phase {} on pipeline stage {}, {} GiB of {} GiB free (headroom)",
                     gib(e.peak_bytes), phase, peak.stage, gib(e.headroom_bytes), gib(e.capacity_bytes));
}

const char* memory_tier_name(MemoryTier tier) {
  switch (tier) {
    case MemoryTier::fits:
      return "fits";
    case MemoryTier::fits_expected:
      return "fits_expected";
    case MemoryTier::does_not_fit:
      return "does_not_fit";
  }
  return "does_not_fit";
}

std::string render_length_tier(const MemoryTiers& t) {
  const MemoryEstimate& w = t.worst;
  if (t.tier == MemoryTier::fits_expected) {
    return fmt::format(
        "Warning: at the maximum lengths (every response reaching the limit) the {} phase needs {} GiB of {} GiB: "
        "OOM{}",
        memory_phase_name(w.peak().kind), gib(w.peak_bytes), gib(w.capacity_bytes),
        t.tipping_mean_response_len > 0
            ? fmt::format("; it tips over at a mean response length of {} tokens", t.tipping_mean_response_len)
            : std::string(" with the longest prompts"));
  }
  return fmt::format("At the maximum lengths: peak {} GiB in phase {}{}", gib(w.peak_bytes),
                     memory_phase_name(w.peak().kind), w.peak_bytes <= w.capacity_bytes ? " (fits)" : " (OOM)");
}

std::string render_rollout_capacity(const MemoryEstimate& e, const RlSettings& rl) {
  const RolloutCapacity& r = e.rollout;
  const std::string engines =
      rl.rollout_dp > 1 ? fmt::format(" x DP {}{}", rl.rollout_dp, rl.rollout_ep > 1 ? " (expert parallel)" : "") : "";
  std::string text = fmt::format(
      "Rollout: {} engine replicas x TP {}{}; KV cache {} GiB per GPU = {} tokens per replica ({} "
      "bytes/token/GPU)\n",
      r.replicas, rl.rollout_tp, engines, gib(r.kv_cache_bytes), r.kv_tokens_per_replica, r.kv_bytes_per_token);
  text += fmt::format(
      "  concurrent sequences per replica: {} (KV-held, capped by max_num_seqs) of {} tokens each\n",
      r.concurrent_sequences_per_replica, r.tokens_per_sequence);
  text +=
      fmt::format("  the step generates {} sequences = {} KV tokens; all at once in the KV cache: {}\n",
                  r.sequences_per_step, r.kv_tokens_needed, r.kv_holds_all ? "yes" : "no (several waves)");
  return text;
}

std::string render_memory_trace(const Trace& trace) {
  std::string text = "Explain (every term: value, formula, inputs, source)\n";
  for (const TraceTerm& t : trace) {
    text += fmt::format("  {} = {} GiB\n      formula: {}\n      inputs:  {}\n      source:  {}\n", t.name,
                        gib(t.value), t.formula, t.inputs, t.source);
  }
  return text;
}

}  // namespace meshplan
