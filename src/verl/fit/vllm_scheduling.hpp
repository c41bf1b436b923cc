#pragma once
// Whether a verl launch's vLLM engines run async scheduling (RlSettings::vllm_async_scheduling):
// the engine's host work per decode step then hides behind the GPU's.
#include <string>

#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct VllmScheduling {
  bool async_scheduling = false;
  std::string reason;  ///< why, for the estimate's inputs ("verl 0.9.0 runs vLLM >=0.18.0 with the mp executor")
};

/// verl's rollout.engine_kwargs.vllm.async_scheduling when set; else on when the vLLM executor
/// verl gives the engine supports it (the version's "vllm_executor" registry: mp, not verl's own
/// executors) and the vLLM installed (the script's `vllm==X`, else the newest the verl's setup.py
/// admits) enables it by default (0.14.0 on).
VllmScheduling verl_vllm_scheduling(const VerlLaunch& launch);

}  // namespace meshplan
