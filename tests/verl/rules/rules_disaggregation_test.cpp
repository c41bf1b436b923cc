// The rollout's prefill / decode disaggregation rules (verl_rules_disaggregation.cpp) over the FSDP
// baseline of check_support.hpp (8 GPUs a node, rollout TP 2, vLLM) at verl 0.9.0, where vLLM and
// SGLang both have a PD replica (0.8.0: SGLang only).
#include <doctest/doctest.h>

#include "rule_cases.hpp"
#include "verl/check_support.hpp"

namespace meshplan::test {

namespace {
constexpr const char* kOn = "actor_rollout_ref.rollout.disaggregation.enabled=True";
constexpr const char* kVerl = "0.9.0";
}  // namespace

// clang-format off
const std::vector<RuleCase>& disaggregation_rule_cases() {
  static const std::vector<RuleCase> cases = {
      {"rollout.disaggregation-config", false,
       {kOn, "actor_rollout_ref.rollout.disaggregation.transfer_backend=mooncake"},
       {kOn, "actor_rollout_ref.rollout.disaggregation.transfer_backend=mooncaek"}, Severity::error,
       "actor_rollout_ref.rollout.disaggregation.enabled",
       "disaggregation.transfer_backend 'mooncaek' is not one of {nixl, mooncake, ascend, mori, fake}",
       "actor_rollout_ref.rollout.disaggregation.transfer_backend=mooncake", false, false, kVerl},
      // Prefill TP 2 + 4 decode replicas of TP 2 = 10 GPUs on a node of 8.
      {"rollout.disaggregation-replica", false, {kOn, "actor_rollout_ref.rollout.disaggregation.decode_replicas=3"},
       {kOn, "actor_rollout_ref.rollout.disaggregation.decode_replicas=4"}, Severity::error,
       "actor_rollout_ref.rollout.disaggregation.prefill_replicas",
       "PD replica needs 10 GPUs but gpus_per_node=8", "", false, false, kVerl},
  };
  return cases;
}
// clang-format on

TEST_CASE("disaggregation rules: the engines, the transfer backend, one node a PD replica") {
  for (const RuleCase& c : disaggregation_rule_cases()) check_rule_case(c);
}

TEST_CASE("disaggregation rules follow the release: vLLM from 0.9.0, one prefill replica, no engine DP") {
  const auto findings = [](const std::vector<std::string>& extra, const char* version, const char* rule) {
    CheckOptions options;
    options.read.verl_version = version;
    return findings_of(check_lines(with(fsdp_baseline(), extra), "ppo_trainer", options), rule);
  };
  const auto vllm_080 = findings({kOn}, "0.8.0", "rollout.disaggregation-config");
  REQUIRE(vllm_080.size() == 1);
  CHECK(vllm_080[0].message.find("is currently only supported with rollout.name='sglang'; got 'vllm'") !=
        std::string::npos);
  CHECK(findings({kOn}, "0.8.0", "rollout.disaggregation-replica").empty());  // refused at start-up first
  CHECK(findings({kOn, "actor_rollout_ref.rollout.name=sglang"}, "0.8.0", "rollout.disaggregation-config").empty());
  CHECK(findings({kOn, "actor_rollout_ref.rollout.name=trtllm"}, kVerl, "rollout.disaggregation-config").size() == 1);
  CHECK(findings({kOn, "actor_rollout_ref.rollout.disaggregation.prefill_replicas=2"}, kVerl,
                 "rollout.disaggregation-replica").size() == 1);
  CHECK(findings({kOn, "actor_rollout_ref.rollout.disaggregation.transfer_backend=mori"}, kVerl,
                 "rollout.disaggregation-replica").size() == 1);  // vLLM's PD replica: nixl or mooncake
  CHECK(findings({"actor_rollout_ref.rollout.disaggregation.prefill_replicas=2"}, kVerl,
                 "rollout.disaggregation-replica").empty());  // not enabled
}

}  // namespace meshplan::test
