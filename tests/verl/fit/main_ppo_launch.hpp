#pragma once
// A verl.trainer.main_ppo launch read as check and plan --from read it: `arguments` on one node of
// 8 GPUs, after `before` (lines the script runs first, such as an install), against `version`.
#include <doctest/doctest.h>

#include <string>

#include "verl/hydra/verl_launch.hpp"

namespace meshplan::test {

inline VerlLaunch read_main_ppo_launch(const std::string& arguments, const char* version,
                                       const std::string& before = "") {
  const std::string script = before + "python3 -m verl.trainer.main_ppo " + arguments +
                             " trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
  VerlReadOptions options;
  options.verl_version = version;
  Result<VerlLaunch> launch = read_verl_launch({InputText{"run.sh", script}}, options);
  REQUIRE(launch.ok());
  return std::move(launch.value());
}

}  // namespace meshplan::test
