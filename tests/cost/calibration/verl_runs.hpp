#pragma once
// verl's own measured runs, none of them seen by a fit (docs/accuracy.md "verl on H20" and "verl's
// V1 trainer modes"): each run's launch as `meshplan estimate` arguments, and what the model predicts
// for it. verl_h20_phases_test.cpp and verl_v1_modes_test.cpp check each run's phases;
// verl_runs_accuracy_test.cpp gathers their steps into the figures estimate and plan print as the
// RL groups' second source (cost/calibration/time_accuracy.cpp).
#include <string>
#include <vector>

namespace meshplan::test {

struct Phases {
  double gen = 0, old_log_prob = 0, update_actor = 0, step = 0;
};

/// What each run measured, in seconds (0 where its source gives no figure); the one-step-off run's
/// `gen` is its engines' generate_sequences.
inline constexpr Phases kMegatronColocated7bMeasured{207, 119, 344, 699};
inline constexpr Phases kFsdp2Colocated7bMeasured{321, 88, 286, 749};
inline constexpr Phases kOneStepOff7bMeasured{501, 120, 347, 566};
inline constexpr Phases kQwen3MoeH20Measured{348.05, 28.73, 86.27, 497.89};
inline constexpr Phases kDeepSeekV3H20Measured{1050, 0, 0, 1700};
/// The V1 trainer benchmark's steps: hours over steps.
inline constexpr double kV1SyncStepS = 22.79 * 3600 / 150;
inline constexpr double kV1ColocateAsyncStepS = 14.72 * 3600 / 150;
inline constexpr double kV1SeparateAsyncStepS = 14.10 * 3600 / 150;
inline constexpr double kV1SeparateAsyncThreeNodesStepS = 13.15 * 3600 / 100;

/// `meshplan estimate` with `args`, at a mean response of `mean_response_len` tokens.
Phases predicted_at(std::vector<std::string> args, int mean_response_len);

/// The phases at the mean response length whose log-prob pass takes `old_log_prob` seconds
/// (bisected to 8 tokens between 100 and 8192), and that mean.
Phases at_measured_log_prob(const std::vector<std::string>& run, double old_log_prob, int& mean_response_len);

/// The Qwen2.5-Math-7B runs of verl's one-step-off table on 2 x 8 H20: what every launch of them
/// shares, with `layout` added (verl_h20_phases_test.cpp says what each is).
std::vector<std::string> qwen25_7b_run(const std::vector<std::string>& layout);
/// dapo_7b_math_megatron_colocate.sh at verl 7f3d1db81.
std::vector<std::string> megatron_colocated_7b();
/// dapo_7b_math_fsdp2_colocate.sh as the table ran it (responses of up to 20,480 tokens).
std::vector<std::string> fsdp2_colocated_7b();
/// The one-step-off Megatron launch (dapo_7b_math_megatron_4_12.sh).
std::vector<std::string> one_step_off_7b();
/// The fully-async table's colocated Qwen3-30B-A3B run on 128 H20.
std::vector<std::string> qwen3_30b_a3b_h20();
/// verl's DeepSeek-V3 benchmark on 96 H20 (mean response 1,960 tokens, given).
std::vector<std::string> deepseek_v3_h20();

/// verl's V1 trainer benchmark (Qwen3.5-35B-A3B on H100 nodes): the step of one mode.
double v1_trainer_step_s(const std::string& mean_response, const std::vector<std::string>& mode,
                         const std::string& cluster = "4x8xH100", const std::string& ep = "4");

/// One of verl's measured runs: its step predicted and measured, and whether its engines run on GPUs
/// of their own (the off-policy group) or on the trainer's (colocated).
struct VerlRun {
  std::string id;
  bool off_policy = false;
  double predicted_step_s = 0;
  double measured_step_s = 0;
};

/// Every run above with a measured step, predicted.
std::vector<VerlRun> verl_measured_runs();

}  // namespace meshplan::test
