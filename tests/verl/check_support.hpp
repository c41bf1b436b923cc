#pragma once
// Shared by the verl tests: check a launch given as override lines over a valid baseline.
#include <optional>
#include <string>
#include <vector>

#include "verl/check.hpp"
#include "verl/hydra/verl_launch.hpp"

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

/// The FSDP baseline under verl's fully-async trainer (config fully_async_ppo_trainer): the trainer
/// on 1 x 8 GPUs, a rollout pool of 1 x 8 more, hybrid_engine off, data.train_batch_size 0 (a step
/// is ppo_mini_batch_size 16 x require_batches 1 prompts).
std::vector<std::string> fully_async_baseline();

/// CheckOptions with the embedded preset `name` as --model.
CheckOptions with_preset(const std::string& name);

/// Runs check on `lines` (one override per line) with --config-name `config_name`.
CheckReport check_lines(const std::vector<std::string>& lines, const std::string& config_name = "ppo_trainer",
                        const CheckOptions& options = {});

/// The findings of `rule` in the report.
std::vector<Finding> findings_of(const CheckReport& report, const std::string& rule);

/// `python3 -m <entry> <args>` (`python3 <entry> <args>` for a path ending in .py) read against
/// verl `verl`: whether it composed (a verl without the trainer passes it over with a note saying
/// so, never an error), and the launch.
VerlLaunch read_entry_point(const std::string& entry, const std::string& verl, const std::string& args,
                            bool composed);

/// Baseline + extra lines.
std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& extra);

}  // namespace meshplan::test
