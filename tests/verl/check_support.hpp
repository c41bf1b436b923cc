#pragma once
// Shared by the verl tests: check a launch given as override lines over a valid baseline.
#include <optional>
#include <string>
#include <vector>

#include "verl/check.hpp"

namespace meshplan::test {

/// A valid FSDP GRPO launch on 1 node x 8 GPUs (hand-checked against verl-rules.md §9:
/// train 64 x n 4 = 256 divisible by N = 8; mini 16 x 4 / dp 8 = 8 divisible by micro 2;
/// rollout TP 2 divides 8).
std::vector<std::string> fsdp_baseline();
/// The same with actor strategy megatron (TP 2: dp 4, minimal batch 4 x micro 2 = 8).
std::vector<std::string> megatron_baseline();

/// The FSDP baseline under verl's one-step-off trainer (config one_step_off_ppo_trainer): the
/// trainer on its 8 GPUs, the engines on a rollout pool of 1 x 8 more, hybrid_engine off.
std::vector<std::string> one_step_off_baseline();

/// CheckOptions with the embedded preset `name` as --model.
CheckOptions with_preset(const std::string& name);

/// Runs check on `lines` (one override per line) with --config-name `config_name`.
CheckReport check_lines(const std::vector<std::string>& lines, const std::string& config_name = "ppo_trainer",
                        const CheckOptions& options = {});

/// The findings of `rule` in the report.
std::vector<Finding> findings_of(const CheckReport& report, const std::string& rule);

/// Baseline + extra lines.
std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& extra);

}  // namespace meshplan::test
