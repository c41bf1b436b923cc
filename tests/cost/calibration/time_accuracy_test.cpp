// Which held-out group an estimate's step time is like (cost/calibration/time_accuracy.hpp). The
// groups' figures themselves are recomputed from their rows by held_out_training_test.cpp,
// rl_off_policy_rows_test.cpp and `fit_efficiency --check`.
#include <doctest/doctest.h>

#include <cmath>

#include "cost/calibration/time_accuracy.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {
namespace {

TimeAccuracyMatch match_for(bool moe, const char* gpu_name, Backend backend, WorkloadKind kind, int rollout_gpus,
                            RolloutEngine engine, const char* model_type = "", double host_wait_share = 0.0) {
  ModelSpec model;
  model.model_type = model_type;
  if (moe) model.moe = MoeSpec{};
  const auto gpu = find_gpu(builtin_gpu_catalog(), gpu_name);
  REQUIRE(gpu.ok());
  Strategy strategy;
  strategy.backend = backend;
  Workload workload;
  workload.kind = kind;
  workload.rl.rollout_gpus = rollout_gpus;
  workload.rl.engine = engine;
  return time_accuracy_for(model, *gpu, strategy, workload, host_wait_share);
}

std::string group_for(bool moe, const char* gpu_name, Backend backend, WorkloadKind kind, int rollout_gpus = 0,
                      RolloutEngine engine = RolloutEngine::vllm) {
  const TimeAccuracyMatch match = match_for(moe, gpu_name, backend, kind, rollout_gpus, engine);
  CHECK(match.group.has_value() == match.unchecked.empty());
  return match.group ? std::string(match.group->id) : "unchecked: " + match.unchecked;
}

TEST_CASE("time accuracy: an estimate takes the group of the held-out runs it is like") {
  // Megatron-core training, by GPU generation (the catalog's arch) and dense or MoE.
  CHECK(group_for(false, "H100-80GB", Backend::megatron, WorkloadKind::pretrain) == "dense-training-hopper");
  CHECK(group_for(false, "H200", Backend::megatron, WorkloadKind::sft) == "dense-training-hopper");
  CHECK(group_for(true, "H100-80GB", Backend::megatron, WorkloadKind::pretrain) == "moe-training-hopper");
  CHECK(group_for(false, "GB300", Backend::megatron, WorkloadKind::pretrain) == "dense-training-blackwell");
  CHECK(group_for(true, "B200", Backend::megatron, WorkloadKind::pretrain) == "moe-training-blackwell");
  // RL: colocated, or the engines on GPUs of their own; vLLM only (the rows' engine).
  CHECK(group_for(true, "H100-80GB", Backend::megatron, WorkloadKind::rl) == "rl-colocated");
  CHECK(group_for(false, "GB200", Backend::fsdp, WorkloadKind::rl) == "rl-colocated");
  CHECK(group_for(false, "H100-80GB", Backend::megatron, WorkloadKind::rl, 16) == "rl-off-policy");
  // No held-out run covers these: the time is unchecked, not given another group's figure.
  CHECK(group_for(false, "H100-80GB", Backend::megatron, WorkloadKind::rl, 0, RolloutEngine::sglang) ==
        "unchecked: no held-out RL run was measured with SGLang");
  CHECK(group_for(false, "H100-80GB", Backend::fsdp, WorkloadKind::pretrain) ==
        "unchecked: no held-out training run was measured with FSDP (the held-out rows run Megatron-core)");
  CHECK(group_for(false, "A100-80GB", Backend::megatron, WorkloadKind::pretrain) ==
        "unchecked: no held-out run was measured on Ampere GA100 GPUs");
  CHECK(group_for(false, "MI300X", Backend::megatron, WorkloadKind::rl) ==
        "unchecked: no held-out run was measured on CDNA3 (8 XCD) GPUs");
  CHECK(group_for(true, "MI355X", Backend::megatron, WorkloadKind::pretrain) ==
        "unchecked: no held-out run was measured on CDNA4 (8 XCD) GPUs");
  // AMD's dense Megatron-core runs (MLPerf Training v5.1, Primus): CDNA3 and CDNA4 alike.
  CHECK(group_for(false, "MI325X", Backend::megatron, WorkloadKind::sft) == "dense-training-cdna");
  CHECK(group_for(false, "MI355X", Backend::megatron, WorkloadKind::pretrain) == "dense-training-cdna");
}

TEST_CASE("time accuracy: a model family with runs of its own in the group is quoted beside it") {
  // GPT-OSS on Blackwell: the group's median is 15.5%, GPT-OSS's own 24 runs 64.5%, too fast
  // (docs/accuracy-held-out-training.md "By model family").
  const TimeAccuracyMatch gpt_oss =
      match_for(true, "GB200", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "gpt_oss");
  REQUIRE(gpt_oss.family.has_value());
  CHECK(gpt_oss.family->group_id == gpt_oss.group->id);
  CHECK(gpt_oss.family->runs == 24);
  CHECK(gpt_oss.family->median_time_error < 0);
  // The same family on Hopper has rows of its own too; a family the group has no run of, a dense
  // group (one family: Llama) and RL groups get none.
  CHECK(match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "gpt_oss")
            .family->runs == 4);
  CHECK_FALSE(match_for(true, "B200", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "mixtral")
                  .family.has_value());
  CHECK_FALSE(match_for(false, "B200", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "llama")
                  .family.has_value());
  CHECK_FALSE(
      match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::rl, 0, RolloutEngine::vllm, "qwen3_moe").family.has_value());
}

TEST_CASE("time accuracy: the runs of the estimate's own GPU type are quoted beside the group") {
  // Dense Blackwell: 6.1% median over 62 runs; GB300's own 30 are 4.1% off, GB200's 8.2% and
  // mostly one way, their time too short by a median 7.0% (docs/accuracy-held-out-training.md).
  const TimeAccuracyMatch gb300 = match_for(false, "GB300", Backend::megatron, WorkloadKind::pretrain, 0,
                                            RolloutEngine::vllm, "llama");
  REQUIRE(gb300.gpu_type.has_value());
  CHECK(gb300.gpu_type->group_id == gb300.group->id);
  CHECK(gb300.gpu_type->gpu_id == "GB300-NVL72");
  CHECK(gb300.gpu_type->runs == 30);
  CHECK(gb300.gpu_type->median_abs_error < gb300.group->median_abs_error);
  const TimeAccuracyMatch gb200 = match_for(false, "GB200", Backend::megatron, WorkloadKind::pretrain, 0,
                                            RolloutEngine::vllm, "llama");
  REQUIRE(gb200.gpu_type.has_value());
  CHECK(gb200.gpu_type->median_abs_error > gb200.group->median_abs_error);
  CHECK(gb200.gpu_type->median_time_error < -0.05);
  // A GPU type the group has no run of (H200 in the Hopper group), and groups of one GPU type, get none.
  CHECK_FALSE(match_for(false, "H200", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "llama")
                  .gpu_type.has_value());
  CHECK_FALSE(match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "qwen3_moe")
                  .gpu_type.has_value());
  CHECK(match_for(true, "B300", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "qwen3_moe")
            .gpu_type->runs == 29);
}

TEST_CASE("time accuracy: a host-bound MoE estimate on Blackwell is quoted the host-bound runs' figures") {
  // The held-out Blackwell MoE runs the model has over a fifth of their step waiting on the host's
  // MoE launches are off by about twice the group's median (docs/accuracy-held-out-training.md).
  const auto at = [](const char* gpu, double share) {
    return match_for(true, gpu, Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "qwen3_moe", share);
  };
  const TimeAccuracyMatch host_bound = at("B200", 0.64);
  REQUIRE(host_bound.host_bound.has_value());
  CHECK(host_bound.host_bound->group_id == host_bound.group->id);
  CHECK(host_bound.host_bound->runs < host_bound.group->runs);
  CHECK(host_bound.host_bound->median_abs_error > host_bound.group->median_abs_error);
  CHECK_FALSE(at("B200", 0.2).host_bound.has_value());  // at the threshold: not over it
  CHECK_FALSE(at("B200", 0.0).host_bound.has_value());
  // Every held-out H100 MoE run is host-bound in the model: the group's figures are theirs.
  CHECK_FALSE(at("H100-80GB", 0.64).host_bound.has_value());
  CHECK_FALSE(match_for(false, "B200", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm, "llama", 0.5)
                  .host_bound.has_value());
}

TEST_CASE("time accuracy: every group has a stable id, runs and a median no larger than its max") {
  for (const TimeAccuracy& group : time_accuracy_groups()) {
    CHECK(time_accuracy_group(group.id).has_value());
    CHECK(group.runs > 0);
    CHECK(group.median_abs_error > 0);
    CHECK(group.median_abs_error <= group.max_abs_error);
    CHECK(!group.evidence.empty());
  }
  CHECK_FALSE(time_accuracy_group("no-such-group").has_value());
  for (const TimeAccuracyFamily& family : time_accuracy_families()) {
    const auto group = time_accuracy_group(family.group_id);
    REQUIRE(group.has_value());
    CHECK(family.runs > 0);
    CHECK(family.runs < group->runs);
    CHECK(family.median_abs_error <= family.max_abs_error);
    CHECK(family.max_abs_error <= group->max_abs_error);
  }
}

TEST_CASE("time accuracy: training runs of other sources are quoted beside the group") {
  // Megatron-MoE-ModelZoo's Qwen3-235B-A22B runs on H100 (Megatron-LM launches) and Megatron-Bridge's
  // EP-overlap A/B of Qwen3-30B-A3B are off by as much as Megatron-Bridge's 13 H100 MoE runs, both
  // ways: the host-bound runs predicted too long, the others too short, so the median time error is
  // small beside them (docs/accuracy-held-out-training.md "A second source", and its section
  // "Megatron-Bridge's EP-overlap benchmark on H100"). Megatron-Bridge's verification cards and
  // NVIDIA's DGX Cloud benchmarking recipes are sources of their own (bridge_card_rows_test.cpp,
  // dgxc_rows_test.cpp).
  const TimeAccuracyMatch hopper = match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::pretrain, 0,
                                             RolloutEngine::vllm);
  REQUIRE(hopper.other_sources.size() == 3);
  const TimeAccuracySecondSource& modelzoo = hopper.other_sources.front();
  CHECK(modelzoo.source == "modelzoo");
  CHECK(modelzoo.group_id == hopper.group->id);
  CHECK(modelzoo.runs == 12);
  CHECK(modelzoo.median_abs_error > 0.15);
  CHECK(hopper.group->median_abs_error > 0.15);
  CHECK(std::fabs(modelzoo.median_time_error) < modelzoo.median_abs_error / 2);
  CHECK(hopper.other_sources[1].source == "bridge-cards");
  CHECK(hopper.other_sources.back().source == "dgxc");
  CHECK(hopper.other_sources.back().runs == 2);
  const auto blackwell = match_for(true, "GB300", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm);
  REQUIRE(blackwell.other_sources.size() == 3);
  CHECK(blackwell.other_sources.front().runs == 6);
  // Dense training's other sources are MLPerf Training v5.1's NVIDIA-platform runs
  // (mlperf_rows_test.cpp), on Hopper the cards' Qwen3-8B run, and the DGX Cloud recipes' Llama 3.1
  // and Nemotron-H runs; AMD's group has none.
  const auto dense_hopper = match_for(false, "H100-80GB", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm);
  REQUIRE(dense_hopper.other_sources.size() == 3);
  CHECK(dense_hopper.other_sources.front().source == "mlperf");
  CHECK(dense_hopper.other_sources.front().runs == 7);
  CHECK(dense_hopper.other_sources[1].runs == 1);
  CHECK(dense_hopper.other_sources.back().source == "dgxc");
  CHECK(dense_hopper.other_sources.back().runs == 37);
  const auto dense_blackwell = match_for(false, "GB300", Backend::megatron, WorkloadKind::sft, 0, RolloutEngine::vllm);
  REQUIRE(dense_blackwell.other_sources.size() == 2);
  CHECK(dense_blackwell.other_sources.front().runs == 13);
  CHECK(dense_blackwell.other_sources.back().runs == 6);
  CHECK(match_for(false, "MI300X", Backend::megatron, WorkloadKind::pretrain, 0, RolloutEngine::vllm)
            .other_sources.empty());
}

TEST_CASE("time accuracy: an RL step quotes verl's own runs beside NeMo RL's") {
  // The RL groups' figures come from NeMo RL's runs; verl's own (six colocated, three with engines
  // on GPUs of their own: docs/accuracy.md "verl's own runs") are printed beside them. Colocated,
  // verl's median is below NeMo RL's (6.4% against 12.8% since session 40) but the worst run
  // (DeepSeek-V3 on 96 H20) is further off; off-policy, verl's V1 separate_async runs are predicted
  // too slow (+17% and +40%).
  const TimeAccuracyMatch colocated =
      match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::rl, 0, RolloutEngine::vllm);
  REQUIRE(colocated.other_sources.size() == 1);
  const TimeAccuracySecondSource& verl = colocated.other_sources.front();
  CHECK(verl.group_id == "rl-colocated");
  CHECK(verl.source == "verl");
  CHECK(verl.runs == 6);
  CHECK(verl.median_abs_error < colocated.group->median_abs_error);
  CHECK(verl.max_abs_error > colocated.group->max_abs_error);
  const TimeAccuracyMatch off_policy =
      match_for(true, "H100-80GB", Backend::megatron, WorkloadKind::rl, 8, RolloutEngine::vllm);
  REQUIRE(off_policy.other_sources.size() == 1);
  CHECK(off_policy.other_sources.front().group_id == "rl-off-policy");
  CHECK(off_policy.other_sources.front().runs == 3);
  CHECK(off_policy.other_sources.front().median_time_error > 0);
}

}  // namespace
TEST_CASE("time accuracy: an NVFP4 estimate quotes the NVFP4 runs beside its group") {
  // Dense Blackwell holds 18 NVFP4 runs (Llama 3 70B and 3.1 405B on GB200 and GB300), their GEMM rate
  // one layer shape's measured on B300, GB200's B200's measured NVFP4 matmul: off by a median 6.1%,
  // the group's own median since session 56 (6.6% before), their steps predicted longer than measured
  // (+3.2% median; session 54).
  ModelSpec model;
  model.model_type = "llama";
  const auto gpu = find_gpu(builtin_gpu_catalog(), "GB300");
  REQUIRE(gpu.ok());
  Strategy strategy;
  strategy.compute_dtype = Dtype::fp4;
  Workload workload;
  const TimeAccuracyMatch nvfp4 = time_accuracy_for(model, *gpu, strategy, workload, 0.0);
  REQUIRE(nvfp4.precision.has_value());
  CHECK(nvfp4.precision->compute_dtype == "fp4");
  CHECK(nvfp4.precision->runs == 18);
  CHECK(nvfp4.precision->median_time_error > 0);
  CHECK(nvfp4.precision->median_abs_error <= nvfp4.group->median_abs_error);
  strategy.compute_dtype = Dtype::fp8;
  CHECK_FALSE(time_accuracy_for(model, *gpu, strategy, workload, 0.0).precision.has_value());
}

}  // namespace meshplan
