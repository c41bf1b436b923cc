// A verl run on H20, which no constant was fit on (docs/accuracy.md "verl on H20, unseen"): the
// colocated synchronous Megatron + vLLM row of verl's one-step-off table (recipe/one_step_off_policy/
// README.md, added at verl 7f3d1db81, 2025-07-10; now docs/advance/one_step_off.md; run means over a
// 100-step DAPO run, wandb hou-zg-meituan/one-step-off-policy):
//   step 699 s = gen 207 + old_log_prob 119 + update_actor 344 (+ reward and advantages)
// Its launch at that commit (dapo_7b_math_megatron_colocate.sh): Qwen2.5-Math-7B (Qwen2.5-7B's
// shape) on 2 x 8 H20, TP 2, PP 2, rollout TP 2, 512 prompts x 16 responses, mini-batch 32,
// micro-batch 2, log-prob micro-batch 4, params, grads and optimizer offloaded between phases,
// gpu_memory_utilization 0.8, max_num_batched_tokens 2048 + 8192, no reference model (no KL loss,
// no KL in the reward); the verl of July 2025 ran a vLLM without async scheduling. DAPO-Math-17k's
// prompts in verl's template are ~150 tokens. The table gives no mean response length, so the step
// cannot be checked alone; the split can: old_log_prob, one forward pass over the step's tokens, is
// the most direct measure of them. At the mean response length that gives the measured
// old_log_prob, the generation, the update and the step must be what was measured.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

struct Phases {
  double gen = 0, old_log_prob = 0, update_actor = 0, step = 0;
};

Phases predicted_at(const std::vector<std::string>& layout, int mean_response_len) {
  std::vector<std::string> args = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xH20", "--workload",
                                   "rl", "--rollout-n", "16", "--global-batch", "512", "--mini-batch", "32",
                                   "--prompt-len", "2048", "--mean-prompt-len", "150", "--gpu-memory-utilization", "0.8",
                                   "--no-reference", "--no-async-scheduling", "--json", "--mean-response-len",
                                   std::to_string(mean_response_len)};
  args.insert(args.end(), layout.begin(), layout.end());
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);
  const nlohmann::json time = nlohmann::json::parse(run.out)["time"];
  Phases phases;
  phases.step = time["step_seconds"].get<double>();
  for (const auto& phase : time["phases"]) {
    const double seconds = phase["seconds"].get<double>();
    if (phase["name"] == "timing_s/gen") phases.gen = seconds;
    if (phase["name"] == "timing_s/old_log_prob") phases.old_log_prob = seconds;
    if (phase["name"] == "timing_s/update_actor") phases.update_actor = seconds;
  }
  return phases;
}

// The phases at the mean response length whose log-prob pass takes `old_log_prob` seconds
// (bisected to 8 tokens).
Phases at_measured_log_prob(const std::vector<std::string>& layout, double old_log_prob, int& mean_response_len) {
  int low = 100, high = 8192;
  REQUIRE(predicted_at(layout, low).old_log_prob < old_log_prob);
  REQUIRE(predicted_at(layout, high).old_log_prob > old_log_prob);
  while (high - low > 8) {
    const int mid = (low + high) / 2;
    (predicted_at(layout, mid).old_log_prob < old_log_prob ? low : high) = mid;
  }
  mean_response_len = high;
  const Phases at = predicted_at(layout, high);
  MESSAGE("mean response " << high << " tokens: gen " << at.gen << " s, old_log_prob " << at.old_log_prob
                           << " s, update_actor " << at.update_actor << " s, step " << at.step << " s");
  return at;
}

// dapo_7b_math_megatron_colocate.sh at 7f3d1db81 (above).
std::vector<std::string> megatron_colocated() {
  return {"--tp", "2", "--pp", "2", "--rollout-tp", "2", "--response-len", "8192", "--ppo-micro-batch", "2",
          "--log-prob-micro-batch", "4", "--offload", "params,grads,optimizer", "--max-num-batched-tokens", "10240"};
}

TEST_CASE("verl's colocated Megatron + vLLM run on 16 H20: one mean response length gives every phase") {
  constexpr double kGen = 207, kOldLogProb = 119, kUpdate = 344, kStep = 699;
  int mean = 0;
  const Phases at = at_measured_log_prob(megatron_colocated(), kOldLogProb, mean);
  // Session 27: 1,197 tokens; gen 228 s (+10%), update 361 s (+5%), step 708 s (+1%). The
  // generation, longest-sequence bound with responses of up to 8,192 tokens, moves least with the
  // mean; the update, three passes over the same tokens at the update's micro-batch, most.
  CHECK(std::abs(at.gen / kGen - 1) < 0.15);
  CHECK(std::abs(at.update_actor / kUpdate - 1) < 0.10);
  CHECK(std::abs(at.step / kStep - 1) < 0.05);
}

// The table's one-step-off Megatron row, on the same 16 H20 (dapo_7b_math_megatron_4_12.sh at
// 7f3d1db81: 4 GPUs generate, 2 of each node's 8, rollout TP 2, while the trainer's 12 run TP 2,
// PP 2 on the previous step's batch; 512 prompts x 12): step 566 s, generate_sequences 501 (on the
// engines' 4 GPUs), wait_prev_gen 59, old_log_prob 120, update_actor 347 (and ~40 s of reward
// and advantages). Its responses are taken at the mean the colocated row's log-prob pass gives
// (same model, data and maximum): nothing of this row is fit.
TEST_CASE("verl's one-step-off Megatron run on 16 H20 at the colocated run's mean response length") {
  constexpr double kGenerate = 501, kOldLogProb = 120, kUpdate = 347, kStep = 566;
  int mean = 0;
  at_measured_log_prob(megatron_colocated(), 119, mean);
  const std::vector<std::string> args = {
      "estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xH20", "--workload", "rl", "--tp", "2", "--pp",
      "2", "--rollout-tp", "2", "--rollout-n", "12", "--global-batch", "512", "--mini-batch", "32",
      "--ppo-micro-batch", "2", "--log-prob-micro-batch", "4", "--prompt-len", "2048", "--response-len", "8192",
      "--mean-prompt-len", "150", "--mean-response-len", std::to_string(mean), "--gpu-memory-utilization", "0.8",
      "--max-num-batched-tokens", "10240", "--no-reference", "--no-async-scheduling", "--rollout-gpus", "4",
      "--off-policy-steps", "1", "--json", "--explain"};
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);
  const nlohmann::json out = nlohmann::json::parse(run.out);
  double generate = 0, old_log_prob = 0, update = 0;
  for (const auto& term : out["explain"]) {
    if (term["name"] == "time/gen/prefill" || term["name"] == "time/gen/decode") generate += term["value"].get<double>();
  }
  for (const auto& phase : out["time"]["phases"]) {
    if (phase["name"] == "timing_s/old_log_prob") old_log_prob = phase["seconds"].get<double>();
    if (phase["name"] == "timing_s/update_actor") update = phase["seconds"].get<double>();
  }
  const double step = out["time"]["step_seconds"].get<double>();
  MESSAGE("generate " << generate << " s, old_log_prob " << old_log_prob << " s, update_actor " << update
                      << " s, step " << step << " s");
  // Session 27: generate 517 s (+3%), old_log_prob 119 s (-1%), update 360 s (+4%), step 520 s
  // (-8%: the step waits on the generation; the run's ~40 s of reward and advantages are not costed).
  CHECK(std::abs(generate / kGenerate - 1) < 0.10);
  CHECK(std::abs(old_log_prob / kOldLogProb - 1) < 0.05);
  CHECK(std::abs(update / kUpdate - 1) < 0.10);
  CHECK(std::abs(step / kStep - 1) < 0.15);
}

// The same table's FSDP2 row: step 749 s = gen 321 + old_log_prob 88 + update_actor 286. Its launch
// is dapo_7b_math_fsdp2_colocate.sh as the table ran it, before 7f3d1db81 cut its maximum response
// to 8k (the table says 20,480): FSDP2 with hybrid shards of 2, Ulysses 4, gradient checkpointing,
// params and optimizer offloaded, dynamic batches of (2048 + 20480) x 2 tokens for the update and
// x 3 for the log-prob pass, rollout TP 4, max_num_batched_tokens 2048 + 20480.
TEST_CASE("verl's colocated FSDP2 + vLLM run on 16 H20: the phases at the mean that gives its log-prob pass") {
  constexpr double kGen = 321, kOldLogProb = 88, kUpdate = 286, kStep = 749;
  const std::vector<std::string> layout = {
      "--fsdp", "--ulysses", "4", "--fsdp-shard-size", "2", "--recompute", "full", "--rollout-tp", "4",
      "--response-len", "20480", "--dynamic-bsz", "--ppo-max-token-len", "45056", "--log-prob-max-token-len",
      "67584", "--offload", "params,optimizer", "--max-num-batched-tokens", "22528"};
  int mean = 0;
  const Phases at = at_measured_log_prob(layout, kOldLogProb, mean);
  // Session 27: 921 tokens; gen 381 s (+19%), update 347 s (+21%), step 816 s (+9%): both long.
  // The update is 3.9 log-prob passes in the model (a recomputed forward, a backward of two), 3.25
  // measured; the generation assumes a response that runs to the 20,480-token maximum. Before session
  // 27 the update was charged for whole micro-batches of 45,056 tokens a GPU where a rank had 32
  // sequences, +59%.
  CHECK(std::abs(at.gen / kGen - 1) < 0.25);
  CHECK(std::abs(at.update_actor / kUpdate - 1) < 0.25);
  CHECK(std::abs(at.step / kStep - 1) < 0.12);
}

}  // namespace
}  // namespace meshplan
