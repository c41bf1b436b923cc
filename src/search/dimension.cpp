#include "search/dimension.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "search/layout.hpp"
#include "search/search_space.hpp"

namespace meshplan {

std::string_view dimension_name(Dimension dimension) {
  static constexpr std::array<std::string_view, kDimensionCount> kNames = {
      "backend", "tp", "pp", "vpp", "cp", "ep", "etp", "ulysses", "offload", "mb", "recompute",
      "rollout_tp", "rollout_dp", "gmu", "lp_mb", "a2a_overlap", "megatron_fsdp"};
  const auto index = static_cast<std::size_t>(dimension);
  return index < kNames.size() ? kNames[index] : "?";
}

bool is_rl_dimension(Dimension dimension) {
  return dimension == Dimension::rollout_tp || dimension == Dimension::rollout_dp ||
         dimension == Dimension::gpu_memory_utilization || dimension == Dimension::log_prob_micro_batch;
}

DimensionValues dimension_values(const PlanCandidate& candidate) {
  const Strategy& s = candidate.strategy;
  const RlSettings& rl = candidate.workload.rl;
  const bool is_rl = candidate.workload.kind == WorkloadKind::rl;
  return DimensionValues{static_cast<int>(s.backend), s.tp, s.pp, s.vpp, s.cp, s.ep, s.etp, s.ulysses_sp,
                         static_cast<int>(offload_choice(s.offload, is_rl && rl.ref_param_offload)), s.micro_batch,
                         static_cast<int>(recompute_choice_of(s)), is_rl ? rl.rollout_tp : 0, is_rl ? rl.rollout_dp : 0,
                         is_rl ? static_cast<int>(std::lround(rl.gpu_memory_utilization * 100)) : 0,
                         is_rl ? rl.log_prob_micro_batch_per_gpu : 0, s.moe_a2a_overlap ? 1 : 0,
                         s.backend == Backend::megatron && s.zero == ZeroStage::zero3 ? 1 : 0};
}

std::string format_dimension(Dimension dimension, int value) {
  switch (dimension) {
    case Dimension::backend: return fmt::format("backend={}", value == 0 ? "megatron" : "fsdp");
    case Dimension::offload:
      return fmt::format("offload={}", offload_choice_name(static_cast<OffloadChoice>(value)));
    case Dimension::recompute:
      return fmt::format("recompute={}", recompute_choice_name(static_cast<RecomputeChoice>(value)));
    case Dimension::gpu_memory_utilization: return fmt::format("gmu={:.2g}", value / 100.0);
    case Dimension::tp: case Dimension::pp: case Dimension::vpp: case Dimension::cp:
    case Dimension::ep: case Dimension::etp: {
      std::string name(dimension_name(dimension));
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return fmt::format("{}={}", name, value);
    }
    default: break;
  }
  return fmt::format("{}={}", dimension_name(dimension), value);
}

}  // namespace meshplan
