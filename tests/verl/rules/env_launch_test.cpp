// Exported variables judged in a whole launch: the device the launch names, the vLLM releases its
// verl admits, and the script's own knobs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "verl/check_support.hpp"
#include "verl/check.hpp"

namespace meshplan {
namespace {

// The FSDP baseline launched after `exports`, with `extra` overrides.
CheckReport check_with(const std::string& exports, const std::vector<std::string>& extra = {},
                       const std::string& verl_version = "") {
  std::string text = exports + "python3 -m verl.trainer.main_ppo \\\n";
  for (const std::string& line : test::with(test::fsdp_baseline(), extra)) text += "    " + line + " \\\n";
  text += "    trainer.total_epochs=1\n";
  CheckOptions options;
  if (!verl_version.empty()) options.read.verl_version = verl_version;
  auto report = check_launch({InputText{"run.sh", text}}, options);
  REQUIRE(report.ok());
  return report.value();
}

std::vector<std::string> unknown_names(const CheckReport& report) {
  std::vector<std::string> names;
  for (const Finding& f : test::findings_of(report, "env.unknown")) names.push_back(f.keys.at(0));
  return names;
}

}  // namespace

TEST_CASE("vllm-ascend's VLLM_* variables count where the launch runs on NPUs or does not say") {
  const std::string mc2 = "export VLLM_ENABLE_MC2=1\n";  // vllm_ascend/envs.py v0.9.0rc1, rc2
  CHECK(unknown_names(check_with(mc2, {"trainer.device=npu"})).empty());
  // verl's default trainer.device is cuda, but verl/utils/device.py detects the platform: unsaid.
  CHECK(unknown_names(check_with(mc2)).empty());
  CHECK(unknown_names(check_with(mc2, {"trainer.device=cuda"})) == std::vector<std::string>{"VLLM_ENABLE_MC2"});
}

TEST_CASE("a VLLM_* knob the script reads itself is not 'no effect', one nobody reads is") {
  const CheckReport report = check_with(
      "export VLLM_REGROUP=${VLLM_REGROUP:-1}\nexport VLLM_UNUSED=1\n"
      "if [ \"$VLLM_REGROUP\" = 1 ]; then SAMPLER=length; else SAMPLER=none; fi\n");
  CHECK(unknown_names(report) == std::vector<std::string>{"VLLM_UNUSED"});
}

TEST_CASE("VLLM_ATTENTION_BACKEND: no effect with verl 0.9's vLLM (>= 0.18), read by verl 0.8's (<= 0.12)") {
  const std::string exports = "export VLLM_ATTENTION_BACKEND=FLASH_ATTN\n";
  const auto newer = test::findings_of(check_with(exports, {}, "0.9.0"), "env.unknown");
  REQUIRE(newer.size() == 1);
  CHECK(newer[0].severity == Severity::warning);
  CHECK(newer[0].message.find("verl 0.9.0 admits (vllm>=0.18.0)") != std::string::npos);
  CHECK(test::findings_of(check_with(exports, {}, "0.8.0"), "env.unknown").empty());
  // No verl named: the newest is assumed, and the message names the releases that read it.
  const auto assumed = test::findings_of(check_with(exports), "env.unknown");
  REQUIRE(assumed.size() == 1);
  CHECK(assumed[0].message.find("the launch names no verl and main@1dda039b, the newest, is assumed: verl 0.4.0 .. "
                                "0.8.0 (9 versions) admit a vllm that reads it (give --verl-version)") !=
        std::string::npos);
}

}  // namespace meshplan
