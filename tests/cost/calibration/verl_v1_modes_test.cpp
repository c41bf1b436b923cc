// verl's own benchmark of its V1 trainer modes, unseen by every fit: docs/advance/v1_async_trainer.md
// "Benchmark / V1 trainer all modes" (verl main@1dda039b9, 08/20/2026). Qwen3.5-35B-A3B, Megatron
// training at TP 2 PP 2 CP 2 EP 4, vLLM rollout at TP 4, train_batch_size 64, ppo_mini_batch_size
// 16, DAPO-Math-17k with max_prompt_length 2048 and max_response_length 32768, four nodes:
//   sync            4 hybrid                 150 steps in 22.79 h -> 546.96 s a step, mean response 12,720
//   colocate_async  4 hybrid                 150 steps in 14.72 h -> 353.28 s,        mean response 12,854
//   separate_async  2 hybrid + 2 standalone  150 steps in 14.10 h -> 338.40 s,        mean response 12,288
// and of separate_async on three nodes ("Separate_async switching", EP 8, decoupled PPO off):
//   no-switch       2 hybrid + 1 standalone  100 steps in 13.15 h -> 473.40 s,        mean response 13,343
// What the table leaves out, and what is taken here:
// - the GPUs: the same page's switching benchmark runs on H100 nodes and this one on "the same
//   four-node budget": 8 H100 a node;
// - rollout.n: the table's aggregate tokens/s x the step is 8 samples a prompt: sync 12,053 x
//   546.96 / 64 = 103,006 tokens a prompt, 12,876 a sample at n = 8 (12,720 of them response);
//   the same reading gives a mean prompt of 156, 154 and 157 tokens over the three rows: 156;
// - the model: Qwen3.5-35B-A3B has the shape of the Qwen3.6-35B-A3B fixture (40 layers, hidden
//   2048, 256 experts top-8 of 512, Gated DeltaNet every 3 of 4 layers: THUDM/slime
//   scripts/models/qwen3.5-35B-A3B.sh lists the same sizes);
// - what verl's own launch for this model sets (examples/grpo_trainer/run_qwen3_5_35b_megatron.sh
//   at 1dda039b9): full recomputation of every layer (uniform, 1 layer a group), expert TP 1,
//   parameters, gradients and optimizer offloaded; no reference model (DAPO runs without a KL
//   term) and use_dynamic_bsz;
// - separate_async syncs once a step (parameter_sync_step 4 = 64 / 16) over the nccl checkpoint
//   engine, the page's example backend.
// The test bounds each row's error and colocate_async's gain over sync.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "verl_runs.hpp"

namespace meshplan {

using test::v1_trainer_step_s;

TEST_CASE("verl's V1 trainer modes on four H100 nodes: sync, colocate_async and separate_async steps") {
  const double sync_s = v1_trainer_step_s("12720", {});
  const double colocated_s = v1_trainer_step_s("12854", {"--partial-rollout"});
  const double separate_s =
      v1_trainer_step_s("12288", {"--rollout-gpus", "16", "--off-policy-steps", "1", "--partial-rollout"});
  const double measured_sync_s = test::kV1SyncStepS;
  const double measured_colocated_s = test::kV1ColocateAsyncStepS;
  const double measured_separate_s = test::kV1SeparateAsyncStepS;
  const double sync_error = sync_s / measured_sync_s - 1;
  const double colocated_error = colocated_s / measured_colocated_s - 1;
  const double separate_error = separate_s / measured_separate_s - 1;
  MESSAGE("sync " << sync_s << " s (" << sync_error * 100 << "%), colocate_async " << colocated_s << " s ("
                  << colocated_error * 100 << "%), separate_async " << separate_s << " s (" << separate_error * 100
                  << "%)");
  // docs/accuracy.md "verl's V1 trainer modes": +7.2%, +10.2% and +47.0% when written; +6.2%, +8.8%
  // and +39.5% with verl's offload paged once per phase (session 18). verl at
  // main@1dda039b installs vLLM >= 0.18.0 with the mp executor, so the engines run async
  // scheduling (the default; without it sync is +42.1%).
  CHECK(std::fabs(sync_error) <= 0.15);
  CHECK(std::fabs(colocated_error) <= 0.15);
  // separate_async is trainer-bound in the model (a 472 s step: log-probs and update on 16 GPUs, against
  // a 338 s step measured): the update of this small-expert MoE is overestimated (its MoE host
  // terms, docs/accuracy.md). The bound is the figure, not a target.
  CHECK(std::fabs(separate_error) <= 0.42);
  // Three nodes, one of them generating: generation-bound in the model (two TP-4 replicas, 40 ms
  // decode steps, mostly KV reads). +32.1% when written.
  const double three_nodes_s = v1_trainer_step_s(
      "13343", {"--rollout-gpus", "8", "--off-policy-steps", "1", "--partial-rollout"}, "3x8xH100", "8");
  const double three_nodes_error = three_nodes_s / test::kV1SeparateAsyncThreeNodesStepS - 1;
  MESSAGE("separate_async on 3 nodes " << three_nodes_s << " s (" << three_nodes_error * 100 << "%)");
  CHECK(std::fabs(three_nodes_error) <= 0.35);
  // What partial rollout is for: measured, colocate_async takes 35.4% less than sync; predicted
  // within 12 points. Without partial rollout colocate_async would be sync's step (no gain).
  const double colocated_gain = 1 - colocated_s / sync_s;
  CHECK(std::fabs(colocated_gain - (1 - measured_colocated_s / measured_sync_s)) <= 0.12);
}

}  // namespace meshplan
