#pragma once
// A launch that keeps verl's default enforce_eager=True (verl's rollout config until PR #2956,
// 2025-08-07: releases 0.4.x and 0.5.0) decodes without CUDA graphs: each decode step waits for the
// host's kernel launches, which a MoE model feels most (cost/time/rl_step_time.cpp). The launch is
// re-estimated with graphs (their pool's memory included) and the change is offered only when it
// fits and shortens the step.
#include <optional>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

/// Info `rollout.eager-by-default` for a vLLM or SGLang rollout that runs eager by its verl's
/// default, with the step and generation re-estimated with CUDA graphs; nullopt when the launch sets
/// enforce_eager (or may, through an argument not known statically), runs graphs already, does not
/// fit as it is, or graphs would not shorten the step by 1%.
std::optional<Finding> eager_rollout_finding(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                             const GpuSpec& gpu);

}  // namespace meshplan
