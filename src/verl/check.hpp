#pragma once
// `check` as a library call: read the launch, run every rule table, count the findings.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct CheckOptions {
  VerlReadOptions read;
  std::optional<ModelSpec> model;  ///< --model; else the preset named by actor_rollout_ref.model.path
  std::optional<GpuSpec> gpu;      ///< --gpu / --cluster: enables the memory fit
  int cluster_gpus = 0;            ///< --cluster: its GPU count, which must match trainer.* (0: not given)
  std::int64_t mean_prompt_len = 0;    ///< --mean-prompt-len: expected real prompt tokens (0: the default)
  std::int64_t mean_response_len = 0;  ///< --mean-response-len
};

struct CheckReport {
  std::string config_name;
  std::string verl_source;        ///< the verl version the schema comes from
  std::vector<Finding> findings;  ///< in input order, then rule order
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};

/// Errors only for unusable input (exit 2); rule violations are findings.
Result<CheckReport> check_launch(const std::vector<InputText>& inputs, const CheckOptions& options);

}  // namespace meshplan
