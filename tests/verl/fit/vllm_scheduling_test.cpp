// Whether a verl launch's vLLM engines run async scheduling, per verl version: the executor verl's
// vLLM server passes (vllm_async_server.py: verl's own ExternalZeroMQDistributedExecutor through
// 0.7.0, "mp" from main@b178a3cd and 0.7.1) and the vLLM it installs (setup.py: <=0.12.0 through
// 0.8.0, >=0.18.0 from 0.9.0; async scheduling is vLLM's default from 0.14.0, #27614).
#include <doctest/doctest.h>

#include "main_ppo_launch.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/fit/vllm_scheduling.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {
namespace {

VllmScheduling scheduling(const char* version, const std::string& extra = "", const std::string& install = "") {
  const VerlLaunch launch = test::read_main_ppo_launch(
      "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.rollout.name=vllm" + extra, version,
      install);
  CHECK(verl_to_strategy(launch).workload.rl.vllm_async_scheduling == verl_vllm_scheduling(launch).async_scheduling);
  return verl_vllm_scheduling(launch);
}

}  // namespace

TEST_CASE("vLLM async scheduling in verl launches: verl's executor, the vLLM it installs, the launch's own setting") {
  const VllmScheduling own_executor = scheduling("0.7.0");
  CHECK_FALSE(own_executor.async_scheduling);
  CHECK(own_executor.reason.find("ExternalZeroMQDistributedExecutor") != std::string::npos);
  const VllmScheduling old_vllm = scheduling("0.8.0");  // mp, but vllm<=0.12.0
  CHECK_FALSE(old_vllm.async_scheduling);
  CHECK(old_vllm.reason.find("<=0.12.0") != std::string::npos);
  const VllmScheduling current = scheduling("0.9.0");  // mp and vllm>=0.18.0
  CHECK(current.async_scheduling);
  CHECK(scheduling("main@1dda039b").async_scheduling);
  // The script's own install decides over verl's requirement.
  CHECK_FALSE(scheduling("0.9.0", "", "pip install vllm==0.11.2\n").async_scheduling);
  CHECK(scheduling("0.8.0", "", "pip install vllm==0.14.1\n").async_scheduling);
  // And the launch's own engine argument over both.
  const VllmScheduling off = scheduling("0.9.0", " +actor_rollout_ref.rollout.engine_kwargs.vllm.async_scheduling=False");
  CHECK_FALSE(off.async_scheduling);
  CHECK(off.reason.find("engine_kwargs.vllm.async_scheduling") != std::string::npos);
}

}  // namespace meshplan
