#include "rule_cases.hpp"

#include <doctest/doctest.h>

#include "verl/check_support.hpp"

namespace meshplan::test {

CheckOptions with_qwen_7b() { return with_preset("qwen2.5-7b-instruct"); }

void check_rule_case(const RuleCase& c) {
  const std::string rule = c.rule;
  CAPTURE(rule);
  CheckOptions model = with_qwen_7b();
  if (c.verl_version != nullptr) model.read.verl_version = c.verl_version;
  const std::string config = c.fully_async    ? "fully_async_ppo_trainer"
                             : c.one_step_off ? "one_step_off_ppo_trainer"
                             : c.megatron     ? "ppo_megatron_trainer"
                                              : "ppo_trainer";
  const auto base = c.fully_async    ? fully_async_baseline()
                    : c.one_step_off ? one_step_off_baseline()
                    : c.megatron     ? megatron_baseline()
                                     : fsdp_baseline();

  const CheckReport quiet = check_lines(with(base, c.passing), config, model);
  for (const Finding& f : findings_of(quiet, c.rule)) CHECK_MESSAGE(false, "near miss fires: " << f.message);

  const CheckReport report = check_lines(with(base, c.failing), config, model);
  const std::vector<Finding> hits = findings_of(report, c.rule);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == c.severity);
  REQUIRE(!hits[0].keys.empty());
  CHECK(hits[0].keys[0] == std::string(c.key));
  CHECK_MESSAGE(hits[0].message.find(c.message) != std::string::npos, hits[0].message);
  if (std::string(c.fix).empty()) {
    CHECK(hits[0].fix.empty());
    return;
  }
  REQUIRE(!hits[0].fix.empty());
  CHECK(hits[0].fix[0] == c.fix);
  // The fix lines, applied together, are valid overrides of verl's config and remove the finding.
  const CheckReport fixed = check_lines(with(with(base, c.failing), hits[0].fix), config, model);
  for (const Finding& f : fixed.findings) CHECK_MESSAGE(f.rule.rfind("hydra.", 0) != 0, f.message);
  CHECK(findings_of(fixed, c.rule).empty());
}

}  // namespace meshplan::test
