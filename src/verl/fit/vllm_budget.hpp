#pragma once
// Whether a verl launch may run a vLLM whose KV budget counts the memory already on the GPU: the
// V1 worker of vLLM 0.9.1 and older sizes the KV cache as gpu_memory_utilization x GPU memory
// minus everything allocated on the device at its profile run, other processes' and the
// trainer's included (vllm/v1/worker/gpu_worker.py determine_available_memory: non-torch
// allocations = total - free - torch's own; vllm-project/vllm#18854, #19312). Later releases
// measure from a snapshot taken when the worker starts, so memory held by others stays outside.
#include <optional>
#include <string>

#include "cost/memory/memory_estimate.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct DeviceWideBudget {
  std::string releases;        ///< "vllm==0.8.4" (the script's pin) or "vllm<=0.8.5" (verl's setup.py)
  bool every_release = false;  ///< every release the launch may run budgets device-wide
};

/// The vLLM releases the launch may run that budget device-wide: the script's `vllm==X` when it is
/// 0.9.1 or older, else the verl's setup.py requirement when it admits one ("<=0.8.5"); nullopt
/// when every release it may run budgets from its start-up snapshot.
std::optional<DeviceWideBudget> device_wide_vllm_budget(const VerlLaunch& launch);

/// The rollout phase's peak if the engine's budget held everything else on the GPU: the KV cache
/// shrinks by what lies outside the engine (trainer states, contexts, communicators), never below 0.
double rollout_peak_with_device_wide_budget(const PhaseMemory& rollout);

}  // namespace meshplan
