#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/model_states.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/parallel_comm.hpp"
#include "cost/time/step_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "model/config_reader.hpp"
#include "model/flops.hpp"
#include "model/model_presets.hpp"

namespace meshplan {
namespace {

TEST_CASE("a single-GPU step is m micro-batches of compute plus the optimizer, no communication") {
  const ModelSpec model = test::tiny_gpt();
  const Cluster cluster = test::a100_cluster();
  Strategy strategy;
  Workload workload;
  workload.seq_len = 1024;
  workload.global_batch = 4;
  Trace trace;
  const TimeEstimate estimate = estimate_time(model, cluster, strategy, workload, test::simple_options(), &trace);
  // 4 micro-batches x (3 x 3.93323e-4 layers + 4.8365e-5 LM head) + 30 B x params / HBM.
  const double optimizer = 30.0 * static_cast<double>(model.total_params) / 2.039e12;
  CHECK(estimate.step_seconds == test::approx(4 * (3 * 3.93323e-4 + 4.8365e-5) + optimizer).epsilon(1e-3));
  CHECK(estimate.breakdown.communication() == 0.0);
  REQUIRE(estimate.num_phases == 1);
  CHECK(std::string(estimate.phases[0].name) == "train");
  CHECK(estimate.tokens_per_second_per_gpu == test::approx(4096 / estimate.step_seconds));
  CHECK(estimate.mfu == test::approx(estimate.model_tflops_per_gpu * 1e12 / 312e12));
  CHECK(!trace.empty());
}

TEST_CASE("breakdown sums to the step, and recomputation raises hardware but not model FLOP/s") {
  const ModelSpec model = test::gpt_24x2048();
  const Cluster cluster = test::a100_cluster(4);
  Strategy strategy;
  strategy.tp = 4;
  strategy.pp = 2;
  strategy.dp = 4;
  strategy.sequence_parallel = true;
  strategy.recompute = Recompute::full;
  Workload workload;
  workload.seq_len = 2048;
  workload.global_batch = 64;
  const TimeEstimate estimate = estimate_time(model, cluster, strategy, workload, TimeOptions{}, nullptr);
  const TimeBreakdown& b = estimate.breakdown;
  CHECK(b.total() == test::approx(estimate.step_seconds));
  CHECK(b.tp_comm > 0.0);
  CHECK(b.pp_bubble > 0.0);
  CHECK(b.dp_comm_exposed > 0.0);
  CHECK(estimate.hardware_tflops_per_gpu > estimate.model_tflops_per_gpu);
  CHECK(estimate.comm_fraction == test::approx(b.communication() / estimate.step_seconds));
  // Without recomputation the same work runs faster.
  strategy.recompute = Recompute::none;
  CHECK(estimate_time(model, cluster, strategy, workload, TimeOptions{}, nullptr).step_seconds < estimate.step_seconds);
}

TEST_CASE("a forward-only pass (verl's log-prob) pays the forward's share of CP exchanges and pipeline sends") {
  // GPT 24 x 2048, PP 2 x CP 2 x DP 2 on one A100 node, 8 micro-batches of one 2048-token
  // sequence. Ring attention exchanges K and V once in the forward and twice in the backward
  // (K, V and their gradients): the forward pass pays 1 of the step's 3. The pipeline sends
  // activations forward and their gradients back: the forward pass pays 1 of 2. NVLink at a tenth
  // of its rate, so that the exchanges outlast the attention they hide behind.
  const ModelSpec model = test::gpt_24x2048();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.pp = 2;
  strategy.cp = 2;
  strategy.dp = 2;
  TimeOptions options = test::simple_options();
  options.constants.nvlink_efficiency = 0.1;
  const TimeBreakdown step = training_step_breakdown(model, node, strategy, 2048, 16, 1, StepOffload::in_step, options, nullptr);
  const TimeBreakdown forward = forward_pass_breakdown(model, node, strategy, 2048, 16, 1, options, nullptr);
  REQUIRE(step.cp_comm > 0.0);
  REQUIRE(step.pp_comm > 0.0);
  CHECK(forward.cp_comm == test::approx(step.cp_comm / 3));
  CHECK(forward.pp_comm == test::approx(step.pp_comm / 2));
  // The bubble is (p - 1) slots of the slowest stage's micro-batch (Narayanan et al. 2021 §2.2),
  // which carries the forward's CP share too: halving NVLink again grows the forward's CP time by
  // d over its m = 16 / DP 2 = 8 micro-batches, each slot by d / 8, the bubble (1 slot) by d / 8.
  options.constants.nvlink_efficiency = 0.05;
  const TimeBreakdown slower = forward_pass_breakdown(model, node, strategy, 2048, 16, 1, options, nullptr);
  const double grown_cp = slower.cp_comm - forward.cp_comm;
  REQUIRE(grown_cp > 0.0);
  CHECK(slower.pp_bubble - forward.pp_bubble == test::approx(grown_cp / 8).epsilon(1e-6));
}

TEST_CASE("a rank computes the sequences it has, not whole micro-batches: 24 sequences over DP 4 at 4 a micro-batch") {
  // Tiny GPT on 4 A100s (DP 4), micro-batches of 4 sequences of 1024 tokens: 24 sequences a step
  // are 6 a rank, 2 micro-batches of which the second holds 2 (verl's dynamic batches would pack the
  // 6 into two balanced ones of 3). The rank computes 6 sequences: 1.5 micro-batches' worth, 3/4 of
  // the 32 sequences that fill both; the forward-only pass alike.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.dp = 4;
  const TimeOptions options = test::simple_options();
  auto step = [&](std::int64_t sequences) {
    return training_step_breakdown(model, node, strategy, 1024, sequences, 4, StepOffload::in_step, options, nullptr);
  };
  const TimeBreakdown partial = step(24), full = step(32), none = step(0);
  // compute = filled x per micro-batch + the optimizer step (the same in all three)
  CHECK(partial.compute - none.compute == test::approx(0.75 * (full.compute - none.compute)).epsilon(1e-9));
  const TimeBreakdown forward_partial = forward_pass_breakdown(model, node, strategy, 1024, 24, 4, options, nullptr);
  const TimeBreakdown forward_full = forward_pass_breakdown(model, node, strategy, 1024, 32, 4, options, nullptr);
  CHECK(forward_partial.compute == test::approx(0.75 * forward_full.compute).epsilon(1e-9));
}

TEST_CASE("an empty cluster gives an empty estimate rather than dividing by zero") {
  const TimeEstimate estimate = estimate_time(test::tiny_gpt(), Cluster{}, Strategy{}, Workload{}, TimeOptions{}, nullptr);
  CHECK(estimate.step_seconds == 0.0);
  CHECK(estimate.num_phases == 0);
}

}  // namespace
}  // namespace meshplan

namespace meshplan {
namespace {

TEST_CASE("a VL model's images add the vision tower's forward and backward to the compute") {
  auto config = find_model_preset_config("qwen2.5-vl-3b-instruct");
  REQUIRE(config.has_value());
  auto model = parse_model_config(*config, "qwen2.5-vl-3b-instruct");
  REQUIRE(model.ok());
  REQUIRE(model->vision.has_value());
  const Cluster cluster = test::a100_cluster();
  Workload workload;
  workload.seq_len = 2048;
  workload.global_batch = 8;
  const TimeEstimate text_only = estimate_time(*model, cluster, Strategy{}, workload, test::simple_options(), nullptr);
  workload.images_per_sample = 2;
  workload.image_pixels = 448 * 448;
  Trace trace;
  const TimeEstimate with_images = estimate_time(*model, cluster, Strategy{}, workload, test::simple_options(), &trace);
  // 448x448 at patch 14: 1024 patches, 256 merged tokens per image (merge 2x2); 8 x 2 images.
  // 3 passes x flops.vision per merged token x 4096 merged tokens / (312e12 x 0.5).
  const double vision = 3.0 * forward_flops_per_token(*model, 1).vision * 4096 / (312e12 * 0.5);
  CHECK(with_images.breakdown.compute - text_only.breakdown.compute == test::approx(vision).epsilon(1e-6));
}

TEST_CASE("EP overlap: the passes with no partner run alone, their all-to-alls exposed (first forward and last backward, or the warm-up and cool-down)") {
  // Megatron-core combined_1f1b_schedule_for_no_pipelining pairs micro-batch i's backward with
  // i+1's forward; the step exposes, once, what the overlap hides of one micro-batch's all-to-alls
  // (Qwen3-30B-A3B, EP 8 in one A100 node, 4096 tokens a micro-batch: parallel_comm_test.cpp).
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  strategy.moe_a2a_overlap = true;
  const TimeOptions options = test::simple_options();
  const StageCompute stage = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const MicroBatchComm comm = micro_batch_comm(model, node, strategy, 4096, 1, stage, options, nullptr);
  // Each all-to-all sends 4096 x 8 x 2048 x 2 B, 7/8 of it at 240 GB/s, 7 steps of 3 us; dispatch
  // and combine, forward and backward, 48 layers; all of it under the layers' compute, so hidden.
  const double a2a = 7.0 / 8.0 * 4096.0 * 8 * 2048 * 2 / 240e9 + 7 * 3e-6;
  REQUIRE(stage.layers_total() > 4 * 48 * a2a);
  CHECK(comm.ep_hidden_s == test::approx(4 * 48 * a2a));
  // 64 sequences at micro-batch 1 and DP 1: 64 micro-batches, each with its exposed all-to-all
  // (here none: the layers' compute hides it all), and once what the overlap hides of one.
  const TimeBreakdown step = training_step_breakdown(model, node, strategy, 4096, 64, 1, StepOffload::in_step, options, nullptr);
  CHECK(step.ep_comm == test::approx(64 * comm.ep_s + comm.ep_hidden_s));
  // Interleaved (PP 2, VPP 2): the first stage's warm-up runs 2(p-1) + (v-1)p + 1 = 5 model chunks
  // forward alone and its cool-down as many backward, 5/2 micro-batches' worth.
  Strategy pipelined = strategy;
  pipelined.pp = 2;
  pipelined.vpp = 2;
  const StageCompute stage2 = stage_compute(model, node, pipelined, 4096, 1, options, nullptr);
  const MicroBatchComm comm2 = micro_batch_comm(model, node, pipelined, 4096, 1, stage2, options, nullptr);
  const TimeBreakdown step2 = training_step_breakdown(model, node, pipelined, 4096, 64, 1, StepOffload::in_step, options, nullptr);
  CHECK(step2.ep_comm == test::approx(64 * comm2.ep_s + 2.5 * comm2.ep_hidden_s));
}

}  // namespace
}  // namespace meshplan

namespace meshplan {
namespace {

TEST_CASE("the last pipeline rank sets the pace unless its layout makes room for the output layer") {
  // 24 layers on 4 ranks of 1 GPU, 8 micro-batches of one sequence. Evenly split, the last rank
  // runs its 6 layers and the output layer: every slot waits for it, so the bubble is 3 slots of
  // that rank (Narayanan et al. 2021 §2.2) and, in each of the 8 micro-batches, the head's 3/4
  // the average rank does not run.
  const ModelSpec model = test::gpt_24x2048();
  const NodeGroup node = test::a100_node(4);
  const TimeOptions options = test::simple_options();
  Strategy strategy;
  strategy.pp = 4;
  const auto bubble = [&](const Strategy& s) {
    return training_step_breakdown(model, node, s, 2048, 8, 1, StepOffload::in_step, options, nullptr).pp_bubble;
  };
  const StageCompute even = stage_compute(model, node, strategy, 2048, 1, options, nullptr);
  const double head = even.lm_head_s;
  CHECK(bubble(strategy) == test::approx(3 * (even.layers_total() + head) + 8 * 0.75 * head));
  // Megatron-LM's layout "Et*7|(t*7|)*2t*3L": 7 layers on each rank but the last, which keeps 3
  // and the head. The 7-layer ranks set the pace while 3 layers and the head take less (here the
  // head is under 4 layers' time): the bubble is 3 slots of a 7-layer rank, and the compute term
  // is 8 of those slots, not 8 of an average rank's 7 layers and a quarter of the head. Every
  // part of the step stays 0 or more; the step is 11 slots of the slowest rank either way.
  strategy.pipeline_layout = "Et*7|(t*7|)*2t*3L";
  const StageCompute uneven = stage_compute(model, node, strategy, 2048, 1, options, nullptr);
  const double seven = uneven.layers_total();
  REQUIRE(seven == test::approx(even.layers_total() * 7.0 / 6.0));
  REQUIRE(seven * 3.0 / 7.0 + head < seven);
  CHECK(bubble(strategy) == test::approx(3 * seven));
  const TimeBreakdown step = training_step_breakdown(model, node, strategy, 2048, 8, 1, StepOffload::in_step, options, nullptr);
  const double optimizer = optimizer_step_seconds(optimizer_params_per_rank(rank_params(model, strategy), strategy), node, nullptr);
  CHECK(step.compute == test::approx(8 * seven + optimizer));
}

}  // namespace
}  // namespace meshplan
