#include "verl/fit/vllm_scheduling.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

#include "verl/hydra/config_node.hpp"
#include "verl/schema/engine_requirement.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {
namespace {

// vLLM #27614 ("Enable async scheduling by default", merged 2025-12, first released in v0.14.0 of
// 2026-01): VllmConfig.__post_init__ sets async_scheduling when it is None unless the executor's
// supports_async_scheduling() is False (vllm/config/vllm.py). Before, it was opt-in.
const std::vector<int> kAsyncSchedulingDefaultSince = {0, 14, 0};
// The executors whose supports_async_scheduling() is True (vLLM 0.17.1: "only `mp`, `uni`, and
// `external_launcher` are supported"); verl's ExternalZeroMQDistributedExecutor and
// ExternalRayDistributedExecutor inherit Executor's False.
constexpr const char* kAsyncExecutors[] = {"mp", "uni", "external_launcher"};

bool executor_supports_async(const std::vector<std::string>& executors) {
  return !executors.empty() && std::all_of(executors.begin(), executors.end(), [](const std::string& name) {
    return std::find(std::begin(kAsyncExecutors), std::end(kAsyncExecutors), name) != std::end(kAsyncExecutors);
  });
}

}  // namespace

VllmScheduling verl_vllm_scheduling(const VerlLaunch& launch) {
  if (const ConfigNode* set = find_path(launch.config, "actor_rollout_ref.rollout.engine_kwargs.vllm.async_scheduling");
      set != nullptr && set->kind == NodeKind::boolean) {
    return {set->boolean, fmt::format("rollout.engine_kwargs.vllm.async_scheduling={}", set->to_text())};
  }
  const std::vector<std::string>& executors = verl_registry_names(launch.verl_version, "vllm_executor");
  if (!executor_supports_async(executors)) {
    return {false, fmt::format("verl {} gives vLLM its own executor ({}), which runs no async scheduling",
                               launch.verl_version.id, executors.empty() ? "none read" : executors.front())};
  }
  if (launch.vllm_pin) {
    const auto pinned = release_number(launch.vllm_pin->version);
    const bool on = pinned && *pinned >= kAsyncSchedulingDefaultSince;
    return {on, fmt::format("the script installs vllm=={} ({})", launch.vllm_pin->version,
                            on ? "async scheduling by default" : "before async scheduling by default, 0.14.0")};
  }
  const auto requirement = launch.verl_version.engines.find("vllm");
  const std::string spec = requirement != launch.verl_version.engines.end() ? requirement->second : "";
  const bool on = newest_admitted_at_least(spec, kAsyncSchedulingDefaultSince);
  return {on, fmt::format("verl {} installs vllm{} with the mp executor ({})", launch.verl_version.id,
                          spec.empty() ? " (any)" : spec,
                          on ? "async scheduling by default from 0.14.0" : "before async scheduling by default, 0.14.0")};
}

}  // namespace meshplan
