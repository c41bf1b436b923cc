// vLLM's V1 worker up to 0.9.1 counts the memory already on the GPU inside
// gpu_memory_utilization x GPU memory (vllm#18854, #19312): a rollout-phase shortfall made only
// of the trainer's resident memory is then absorbed by a smaller KV cache. Whether the launch may
// run such a vLLM decides whether the shortfall is certain.
#include <doctest/doctest.h>

#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "approx.hpp"
#include "test_support.hpp"
#include "verl/check_support.hpp"
#include "verl/fit/vllm_budget.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

VerlLaunch launch_of(const std::string& verl, const std::string& pin = "") {
  VerlLaunch launch;
  launch.verl_version = *find_verl_version(verl);
  if (!pin.empty()) launch.vllm_pin = VersionPin{pin};
  return launch;
}

CheckOptions on_a100_40gb(const std::string& verl) {
  CheckOptions options;
  options.model = *parse_model_config(*find_model_preset_config("qwen2.5-7b-instruct"), "qwen2.5-7b-instruct");
  options.gpu = *find_gpu(builtin_gpu_catalog(), "A100-40GB");
  options.read.verl_version = verl;
  return options;
}

}  // namespace

TEST_CASE("the vLLM releases a launch may run that budget device-wide, from verl's setup.py or the script's pin") {
  // verl 0.4.1: vllm<=0.8.5, every admitted release counts device-wide.
  const auto v041 = device_wide_vllm_budget(launch_of("0.4.1"));
  REQUIRE(v041);
  CHECK(v041->releases == "vllm<=0.8.5");
  CHECK(v041->every_release);
  // verl 0.6.1: vllm>=0.8.5,<=0.11.0, some do (0.8.5 .. 0.9.1), pip installs one that does not.
  const auto v061 = device_wide_vllm_budget(launch_of("0.6.1"));
  REQUIRE(v061);
  CHECK(v061->releases == "vllm>=0.8.5,<=0.11.0");
  CHECK_FALSE(v061->every_release);
  // verl 0.9.0: vllm>=0.18.0, none.
  CHECK_FALSE(device_wide_vllm_budget(launch_of("0.9.0")));
  // The script's pin decides over the setup.py.
  CHECK(device_wide_vllm_budget(launch_of("0.9.0", "0.8.4"))->releases == "vllm==0.8.4");
  CHECK_FALSE(device_wide_vllm_budget(launch_of("0.4.1", "0.10.1")));
}

TEST_CASE("with a device-wide budget the KV cache shrinks by what lies outside the engine, never below zero") {
  // By hand: engine = 10 weights + 20 KV + 1 workspace + 0.5 graphs = 31.5 GiB; outside = 5
  // trainer weights + 3 optimizer + 0.5 context = 8.5 GiB; the KV gives up 8.5: 40 - 8.5 = 31.5.
  PhaseMemory rollout;
  rollout.kind = MemoryPhaseKind::rollout;
  rollout[MemoryComponent::rollout_weights] = 10 * kGiB;
  rollout[MemoryComponent::kv_cache] = 20 * kGiB;
  rollout[MemoryComponent::engine_workspace] = 1 * kGiB;
  rollout[MemoryComponent::cuda_graphs] = 0.5 * kGiB;
  rollout[MemoryComponent::weights] = 5 * kGiB;
  rollout[MemoryComponent::optimizer_states] = 3 * kGiB;
  rollout[MemoryComponent::cuda_context] = 0.5 * kGiB;
  CHECK(rollout_peak_with_device_wide_budget(rollout) / kGiB == test::approx(31.5));
  // A KV cache of 4 GiB can give up only 4: 24 - 4 = 20.
  rollout[MemoryComponent::kv_cache] = 4 * kGiB;
  CHECK(rollout_peak_with_device_wide_budget(rollout) / kGiB == test::approx(20.0));
}

TEST_CASE("a rollout shortfall of the trainer's resident memory is an error only where no admitted vLLM absorbs it") {
  // Qwen2.5-7B, FSDP without offload on 8 A100-40GB, gpu_memory_utilization 0.85: the trainer's
  // states stay on the GPU beside an engine budget of 0.85 x 39.5 GiB.
  const auto lines = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.gpu_memory_utilization=0.85"});
  const auto newest = test::findings_of(test::check_lines(lines, "ppo_trainer", on_a100_40gb("0.9.0")), "memory.phase-oom");
  REQUIRE(newest.size() == 1);
  CHECK(newest[0].severity == Severity::error);
  // verl 0.6.1 admits vLLM 0.8.5 .. 0.11.0: the shortfall depends on the release.
  const auto mixed = test::findings_of(test::check_lines(lines, "ppo_trainer", on_a100_40gb("0.6.1")), "memory.phase-oom");
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0].severity == Severity::warning);
  CHECK(mixed[0].message.find("would OOM in the rollout phase with vLLM 0.9.2 or later; the launch may run "
                              "vllm>=0.8.5,<=0.11.0 (verl 0.6.1's setup.py)") != std::string::npos);
  // verl 0.4.1 admits only vllm<=0.8.5: it fits while the trainer holds what it held at start-up.
  const auto old = test::findings_of(test::check_lines(lines, "ppo_trainer", on_a100_40gb("0.4.1")), "memory.phase-oom");
  REQUIRE(old.size() == 1);
  CHECK(old[0].severity == Severity::warning);
  CHECK(old[0].message.find("the rollout phase fits at 33.6 GiB per GPU of A100-40GB's 39.5 GiB only while the "
                            "trainer holds no more than when the engine started") == 0);
}

}  // namespace meshplan
