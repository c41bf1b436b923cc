#pragma once
// A verl rule's test case: a near-miss config that must stay quiet and a failing config whose
// exact finding (severity, first key, message fragment, first fix line) is asserted; the fix line
// must be a valid override that removes the finding. Used by the rules_*_test.cpp files.
#include <string>
#include <vector>

#include "verl/check.hpp"

namespace meshplan::test {

/// Override lines several rule cases share.
inline constexpr const char* kDynamicBsz = "actor_rollout_ref.actor.use_dynamic_bsz=True";

struct RuleCase {
  const char* rule;
  bool megatron;                     ///< megatron_baseline() instead of fsdp_baseline()
  std::vector<std::string> passing;  ///< lines added to the baseline that keep the rule quiet
  std::vector<std::string> failing;  ///< lines added to the baseline that trip the rule
  Severity severity;
  const char* key;      ///< the finding's first key
  const char* message;  ///< a fragment of the exact message
  const char* fix;      ///< the first fix line ("" when the rule suggests none)
  bool one_step_off = false;  ///< one_step_off_baseline() and its config instead (megatron unused)
  bool fully_async = false;   ///< fully_async_baseline() and its config instead (megatron unused)
  const char* verl_version = nullptr;  ///< the verl checked against (default: check_lines' main@b178a3cd)
};

/// Runs both configs of `c` (with the Qwen2.5-7B preset as model) and asserts the finding.
void check_rule_case(const RuleCase& c);

/// The Qwen2.5-7B preset as --model, so model-shape rules run.
CheckOptions with_qwen_7b();

const std::vector<RuleCase>& role_rule_cases();
const std::vector<RuleCase>& megatron_rule_cases();
const std::vector<RuleCase>& dispatch_rule_cases();
const std::vector<RuleCase>& feature_rule_cases();
const std::vector<RuleCase>& one_step_off_rule_cases();
const std::vector<RuleCase>& fully_async_rule_cases();
const std::vector<RuleCase>& v1_rule_cases();
const std::vector<RuleCase>& distillation_rule_cases();
const std::vector<RuleCase>& disaggregation_rule_cases();

}  // namespace meshplan::test
