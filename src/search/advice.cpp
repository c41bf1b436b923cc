#include "search/advice.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "search/layout.hpp"
#include "search/search_space.hpp"

namespace meshplan {
namespace {

double peak_of(const PlanMemory& memory) {
  return *std::max_element(memory.peak_bytes.begin(), memory.peak_bytes.end());
}

}  // namespace

std::vector<Remedy> remedies_for(const PlanCandidate& closest, const CostModel& cost, double usable_bytes) {
  std::vector<Remedy> remedies;
  // Only a change whose re-estimate fits or shrinks the shortfall is advice (issue 17): one that
  // raises the peak is left out, whatever the intuition behind it.
  auto add = [&](std::string change, const Strategy& strategy, const Workload& workload) {
    const double peak = peak_of(cost.memory(strategy, workload));
    if (peak <= usable_bytes || peak < closest.peak_bytes) {
      remedies.push_back(Remedy{std::move(change), peak, peak <= usable_bytes});
    }
  };
  for (int factor : {2, 4, 8}) {
    Strategy more = closest.strategy;
    more.dp *= factor;
    add(fmt::format("{}x the GPUs ({} GPUs, DP={})", factor, more.world_size(), more.dp), more, closest.workload);
  }
  if (!closest.strategy.offload.params) {
    Strategy offload = closest.strategy;
    Workload workload = closest.workload;
    apply_offload(offload, workload, OffloadChoice::all);
    add("offload params, grads, optimizer states and the reference model to the host (offload=all)", offload,
        workload);
  }
  if (closest.strategy.recompute != Recompute::full) {
    Strategy recompute = closest.strategy;
    recompute.recompute = Recompute::full;
    recompute.recompute_method = RecomputeMethod::uniform;
    recompute.recompute_num_layers = 1;
    add("full activation recompute (recompute=full_uniform)", recompute, closest.workload);
  }
  if (closest.strategy.micro_batch > 1) {
    Strategy smaller = closest.strategy;
    smaller.micro_batch = 1;
    Workload workload = closest.workload;
    workload.rl.ppo_micro_batch_per_gpu = 1;
    add("micro-batch 1 (mb=1)", smaller, workload);
  }
  if (closest.peak_phase == PlanPhase::rollout) {
    Workload wider = closest.workload;
    wider.rl.rollout_tp *= 2;
    add(fmt::format("a wider rollout replica (rollout_tp={}; beyond a node it spans whole nodes)", wider.rl.rollout_tp),
        closest.strategy, wider);
  }
  if (closest.workload.kind == WorkloadKind::rl && closest.workload.rl.gpu_memory_utilization > 0.3) {
    Workload workload = closest.workload;
    workload.rl.gpu_memory_utilization = 0.3;
    add("a smaller rollout memory share (gpu_memory_utilization=0.3)", closest.strategy, workload);
  }
  return remedies;
}

std::optional<int> smallest_fitting_gpus(const std::function<bool(int)>& fits, int gpus_per_node, int max_gpus) {
  for (int gpus = 1; gpus < gpus_per_node && gpus <= max_gpus; gpus *= 2) {
    if (fits(gpus)) return gpus;
  }
  int last_failed_nodes = 0;
  for (int nodes = 1; nodes * gpus_per_node <= max_gpus; nodes *= 2) {
    if (fits(nodes * gpus_per_node)) {
      for (int between = last_failed_nodes + 1; between < nodes; ++between) {
        if (fits(between * gpus_per_node)) return between * gpus_per_node;
      }
      return nodes * gpus_per_node;
    }
    last_failed_nodes = nodes;
  }
  return std::nullopt;
}

}  // namespace meshplan
