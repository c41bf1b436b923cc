#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cost/calibration/rl_calibration_runs.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

RlCalibrationSet rl_rows() {
  auto set = read_rl_calibration_runs({{test::file_text(test::fixture("rl_runs.json")), "rl_runs.json"},
                                       {test::file_text(test::fixture("rl_runs_public.json")), "rl_runs_public.json"}},
                                      fitted_efficiency_constants());
  REQUIRE(set.ok());
  return std::move(set.value());
}

}  // namespace

TEST_CASE("RL calibration: measured colocated runs, step time per row (docs/accuracy.md RL table)") {
  const RlCalibrationSet set = rl_rows();
  // Seven NeMo RL GB200 rows of rl_runs.json; four NeMo RL v0.3 blog rows and seven v0.5/v0.6
  // on-policy H100 rows of rl_runs_public.json; the other 43 are listed with the reason.
  REQUIRE(set.runs.size() == 18);
  CHECK(set.skipped.size() == 43);
  std::ostringstream table;
  table << "| run | measured s | predicted s | error | gen + weight sync (measured) | log-prob + ref (measured) | update (measured) |\n";
  std::vector<double> errors;
  for (const RlCalibrationRun& run : set.runs) {
    const TimeEstimate estimate = estimate_time(run.model, run.cluster, run.strategy, run.workload, run.options, nullptr);
    const double error = estimate.step_seconds / run.measured_step_s - 1.0;
    errors.push_back(std::fabs(error));
    // The one KV-limited row: 128 sequences per GB200 replica whose budget runs out part-way
    // (docs/accuracy.md, Concurrency): -31.3% with every sequence at the mean context, -27.9%
    // with the budget integrated over the response, -30.2% since the fit also weighs the measured
    // generation phases.
    if (run.id == "nemorl_v05_gb200_qwen3_32b_16gpu_on") CHECK(std::fabs(error) <= 0.31);
    const RlPhaseSeconds phases = rl_phase_seconds(estimate);
    // Predicted seconds, and the measured ones in brackets where the source gives the phase.
    const auto cell = [](double predicted, double measured) {
      std::ostringstream text;
      text << std::round(predicted * 10) / 10;
      if (measured > 0) text << " (" << measured << ")";
      return text.str();
    };
    table << "| " << run.id << " | " << run.measured_step_s << " | " << std::round(estimate.step_seconds * 10) / 10
          << " | " << std::round(error * 1000) / 10 << "% | " << cell(phases.gen, run.measured_gen_s) << " | "
          << cell(phases.log_prob, run.measured_log_prob_s) << " | " << cell(phases.update, run.measured_update_s)
          << " |\n";
  }
  for (const SkippedRun& skipped : set.skipped) table << "  skipped " << skipped.id << ": " << skipped.reason << "\n";
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  table << "median |error| " << median * 100 << "%, max " << errors.back() * 100 << "%, rows " << errors.size();
  MESSAGE(table.str());
  // Today's accuracy on the 18 rows (docs/accuracy.md: median 8.5%, max 23.2% since session 56's
  // measured GB200 host link, 201 GB/s where 450 was assumed; median 8.0%, max 23.4% since session 41,
  // NeMo RL's optimizer states paged through new pageable host tensors at the rate PyTorch measured,
  // held out by source 9.3% / 25.4%; median 13.4%, max 26.0% in session 40, NeMo RL's refits at its
  // measured rate and its paging of the policy's states at the link's rate, held out by source
  // 16.1% / 32.1%; median 10.2%, max 20.4% from session 27;
  // 11.3% and 20.4% after the full refit of session 12; 10.6% and 22.6% with the constants of
  // session 10, which the fit tool no longer reproduced; 9.2% and 30.2% with one decode HBM share
  // for weights and KV), held so that a change that makes it worse is seen. The targets are
  // median 15% and max 35% on unseen runs; held out by source (tools/fit_efficiency.sh) the rows
  // gave 16.7% and 44.4% until session 40 (the v0.6 fold's refit rate, then fit, was fragile).
  CHECK(median <= 0.086);
  CHECK(errors.back() <= 0.24);
}

TEST_CASE("RL calibration rows: what each source states and what its conventions fill in") {
  const RlCalibrationSet set = rl_rows();
  const auto it = std::find_if(set.runs.begin(), set.runs.end(), [](const RlCalibrationRun& run) {
    return run.id == "nemorl_v06_gb200_deepseek_v3_128gpu_on";
  });
  REQUIRE(it != set.runs.end());
  const RlCalibrationRun& dsv3 = *it;
  // 128 GB200 = 2 NVLink domains of 64 used GPUs; training TP 1, PP 8, EP 16 (DP 16).
  REQUIRE(dsv3.cluster.groups.size() == 1);
  CHECK(dsv3.cluster.groups[0].nodes == 2);
  CHECK(dsv3.cluster.groups[0].gpus_per_node == 64);
  CHECK(dsv3.strategy.pp == 8);
  CHECK(dsv3.strategy.ep == 16);
  CHECK(dsv3.strategy.dp == 16);
  // G-Average Seq len 711 is the mean generation; T-Max 1536 is prompt + generation. The prompt
  // comes from the table's own formula: 30.2 tokens/s/GPU x 108 s x 128 GPUs / 512 samples =
  // 815.4 tokens a sample, 815 - 711 = 104 of them prompt.
  CHECK(dsv3.workload.rl.mean_response_len == 711);
  CHECK(dsv3.workload.rl.mean_prompt_len == 104);
  CHECK(dsv3.workload.rl.response_len == 1536 - 104);
  // T-GBS 512 samples with 16 generations per prompt: a mini-batch of 32 prompts.
  CHECK(dsv3.workload.rl.ppo_mini_batch == 32);
  CHECK(dsv3.workload.rl.rollout_tp == 32);
  CHECK(dsv3.measured_step_s == 108);
  // The memory model's KV budget bounds the sequences in flight per replica.
  CHECK(dsv3.options.rollout_concurrent_sequences > 0);
  const auto reason = [&set](const char* id) {
    const auto skipped = std::find_if(set.skipped.begin(), set.skipped.end(),
                                      [id](const SkippedRun& run) { return run.id == id; });
    return skipped == set.skipped.end() ? std::string("(not skipped)") : skipped->reason;
  };
  CHECK(reason("verl_onestepoff_doc_colocate_megatron_7b") == "mean response length not stated");
  // FSDP2 rows get verl's layout (FULL_SHARD over all GPUs, Ulysses SP 4, fsdp_size 2): what stops
  // them now is the missing mean response length, not the layout.
  CHECK(reason("verl_onestepoff_doc_colocate_fsdp2_7b") == "mean response length not stated");
  CHECK(reason("verl_fullyasync_doc_colocate_7b_32gpu") == "rollout TP not stated");
  // Other systems are named for what they are, not as an unknown source.
  CHECK(reason("openrlhf_bench_7b_deepspeedchat_plain") ==
        "rollout engine 'HF/DeepSpeed generate' is not modelled (vLLM and SGLang are)");
  CHECK(reason("openrlhf_bench_7b_openrlhf_vllm") == "not colocated and synchronous");
  CHECK(reason("verl_dpsk_doc_qwen3_30b_a3b_8_h20_mfu") == "step time not measured");
  for (const SkippedRun& skipped : set.skipped) {
    CAPTURE(skipped.id);
    CHECK(skipped.reason.find("unknown source") == std::string::npos);
  }
  // Qwen3-32B (preset qwen3-32b): 16 GB200, training TP 2 (DP 8), generation TP 1.
  const auto qwen32 = std::find_if(set.runs.begin(), set.runs.end(), [](const RlCalibrationRun& run) {
    return run.id == "nemorl_v05_gb200_qwen3_32b_16gpu_on";
  });
  REQUIRE(qwen32 != set.runs.end());
  CHECK(qwen32->model.num_layers == 64);
  CHECK(qwen32->strategy.tp == 2);
  CHECK(qwen32->strategy.dp == 8);
  CHECK(qwen32->workload.rl.rollout_tp == 1);
}

TEST_CASE("RL: update MFU of verl's Qwen2.5-7B GRPO example under FSDP on 8 H100 is 30-50%") {
  // verl examples/grpo_trainer/run_qwen2_5-7b_math.sh: train batch 1024, prompts and responses
  // up to 1024 tokens, mini-batch 256, micro-batch 16 per GPU, gradient checkpointing, rollout
  // TP 2, n 5, gpu_memory_utilization 0.6, FSDP without offload. Real verl FSDP updates of 7B
  // models report perf/mfu/actor 0.33 on H100 (verl issue #965) to 0.5 on one node (#2579).
  const auto config = find_model_preset_config("qwen2.5-7b-instruct");
  REQUIRE(config);
  auto model = parse_model_config(*config, "qwen2.5-7b-instruct");
  REQUIRE(model.ok());
  auto cluster = parse_cluster_spec("1x8xH100-80GB", builtin_gpu_catalog());
  REQUIRE(cluster.ok());
  Strategy strategy;
  strategy.backend = Backend::fsdp;
  strategy.zero = ZeroStage::zero3;
  strategy.dp = 8;
  strategy.recompute = Recompute::full;
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 1024;
  workload.seq_len = 2048;
  RlSettings& rl = workload.rl;
  rl.rollout_tp = 2;
  rl.n = 5;
  rl.prompt_len = rl.response_len = 1024;
  rl.ppo_mini_batch = 256;
  rl.ppo_micro_batch_per_gpu = rl.log_prob_micro_batch_per_gpu = 16;
  rl.gpu_memory_utilization = 0.6;
  const TimeEstimate estimate = estimate_time(*model, *cluster, strategy, workload, TimeOptions{}, nullptr);
  MESSAGE("update MFU " << estimate.actor_update_mfu * 100 << "%, whole-step MFU " << estimate.mfu * 100 << "%");
  CHECK(estimate.actor_update_mfu >= 0.30);
  CHECK(estimate.actor_update_mfu <= 0.50);
  CHECK(estimate.mfu < estimate.actor_update_mfu);  // the rollout runs far below peak
}

}  // namespace meshplan
