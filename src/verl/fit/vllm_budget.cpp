#include "verl/fit/vllm_budget.hpp"

#include <algorithm>

#include "verl/schema/engine_requirement.hpp"

namespace meshplan {
namespace {

// The last release whose V1 worker counted device-wide allocations: vllm#19312 ("V1's memory
// profiling incorrectly counts memory used by other processes as non_torch_allocations"), opened
// 2025-06-07 and merged after v0.9.1 was cut, moved it to memory_profiling's start-up snapshot.
const std::vector<int> kLastDeviceWideBudget = {0, 9, 1};
const std::vector<int> kFirstSnapshotBudget = {0, 9, 2};

}  // namespace

std::optional<DeviceWideBudget> device_wide_vllm_budget(const VerlLaunch& launch) {
  if (launch.vllm_pin) {
    const auto pinned = release_number(launch.vllm_pin->version);
    if (pinned && *pinned <= kLastDeviceWideBudget) return DeviceWideBudget{"vllm==" + launch.vllm_pin->version, true};
    return std::nullopt;
  }
  const auto requirement = launch.verl_version.engines.find("vllm");
  if (requirement == launch.verl_version.engines.end()) return std::nullopt;
  const std::string& spec = requirement->second;
  if (oldest_admitted_after(spec, kLastDeviceWideBudget)) return std::nullopt;
  return DeviceWideBudget{"vllm" + spec, !newest_admitted_at_least(spec, kFirstSnapshotBudget)};
}

double rollout_peak_with_device_wide_budget(const PhaseMemory& rollout) {
  using C = MemoryComponent;
  const double engine = rollout[C::rollout_weights] + rollout[C::kv_cache] + rollout[C::engine_workspace] +
                        rollout[C::cuda_graphs];
  const double outside = rollout.peak_bytes() - engine;
  return rollout.peak_bytes() - std::min(rollout[C::kv_cache], std::max(outside, 0.0));
}

}  // namespace meshplan
