#include "cost/calibration/time_accuracy.hpp"

#include <array>
#include <utility>

namespace meshplan {
namespace {

constexpr std::string_view kHeldOutTraining =
    "Megatron-Bridge performance summaries, NeMo 25.11-26.08; docs/accuracy-held-out-training.md";

// Figures as the tests recompute them (see the header); percentages rounded to 0.1 point.
constexpr std::array<TimeAccuracy, 7> kGroups{{
    {"dense-training-hopper", "dense pre-training with Megatron-core on Hopper (measured on H100)", 7, 0.047, 0.075,
     kHeldOutTraining},
    {"dense-training-blackwell", "dense pre-training with Megatron-core on Blackwell (B200, GB200, GB300; NVFP4 among them)", 62,
     0.061, 0.262, kHeldOutTraining},
    {"moe-training-hopper", "MoE pre-training with Megatron-core on Hopper (measured on H100)", 17, 0.196, 0.520,
     kHeldOutTraining},
    {"moe-training-blackwell", "MoE pre-training with Megatron-core on Blackwell (B200, B300, GB200, GB300)", 147,
     0.207, 0.825, kHeldOutTraining},
    {"dense-training-cdna",
     "dense pre-training and LoRA fine-tuning with Megatron-core on AMD Instinct (MI300X, MI325X, MI355X; one node "
     "to eight)",
     6, 0.086, 0.097,
     "MLPerf Training v5.1 (AMD's Llama 2 70B LoRA and Llama 3.1 8B submissions) and AMD's published Primus "
     "Llama 3.1 8B runs; docs/accuracy-held-out-training.md"},
    {"rl-colocated", "colocated GRPO step, Megatron-core or DTensor training + vLLM rollout (H100, GB200)", 29, 0.075,
     0.302,
     "NeMo RL v0.3 blog, v0.5 and v0.6 performance summaries, each held out of the fit in turn, and 11 rows never "
     "fit (NeMo RL v0.4, v0.5's MoE rows); docs/accuracy.md"},
    {"rl-off-policy",
     "off-policy GRPO step, vLLM engines on GPUs of their own (H100, GB200; NeMo RL's weight broadcast)", 20, 0.140,
     0.502,
     "NeMo RL v0.5 and v0.6 performance summaries; docs/accuracy.md"},
}};

// The training groups' rows by model family (docs/accuracy-held-out-training.md "By model family"):
// every family of a group with more than one, recomputed by held_out_training_test.cpp.
constexpr std::array<TimeAccuracyFamily, 7> kFamilies{{
    {"moe-training-hopper", "gpt_oss", 4, 0.200, 0.201, 0.250},
    {"moe-training-hopper", "nemotron_h", 4, 0.207, 0.217, 0.262},
    {"moe-training-hopper", "qwen3_moe", 9, 0.157, 0.520, 0.186},
    {"moe-training-blackwell", "deepseek_v3", 28, 0.051, 0.359, -0.002},
    {"moe-training-blackwell", "gpt_oss", 24, 0.447, 0.825, -0.306},
    {"moe-training-blackwell", "nemotron_h", 46, 0.375, 0.743, -0.174},
    {"moe-training-blackwell", "qwen3_moe", 49, 0.096, 0.459, -0.022},
}};

// By GPU type, within the groups that hold several (the test recomputes every figure).
constexpr std::array<TimeAccuracyGpu, 7> kGpus{{
    {"dense-training-blackwell", "B200", 2, 0.146, 0.146, -0.124},
    {"dense-training-blackwell", "GB200-NVL72", 30, 0.082, 0.262, -0.070},
    {"dense-training-blackwell", "GB300-NVL72", 30, 0.041, 0.253, 0.040},
    {"moe-training-blackwell", "B200", 22, 0.229, 0.619, 0.001},
    {"moe-training-blackwell", "B300", 29, 0.328, 0.720, -0.108},
    {"moe-training-blackwell", "GB200-NVL72", 47, 0.140, 0.825, -0.111},
    {"moe-training-blackwell", "GB300-NVL72", 49, 0.111, 0.710, -0.095},
}};

std::optional<TimeAccuracyGpu> gpu_of(std::string_view group_id, const std::string& gpu_id) {
  for (const TimeAccuracyGpu& gpu : kGpus) {
    if (gpu.group_id == group_id && gpu.gpu_id == gpu_id) return gpu;
  }
  return std::nullopt;
}

// The held-out Blackwell MoE runs whose predicted step is over a fifth the MoE layers' host wait:
// 33 of 147 (35 before the rows a later commit's preset describes took its settings, session 55;
// 29 of 101 before Nemotron 3 Super's rows); every held-out H100 MoE run is (46-75% of
// its step), so Hopper has no subset of its own.
constexpr std::array<TimeAccuracyHostBound, 1> kHostBound{{
    {"moe-training-blackwell", 0.2, 33, 0.297, 0.459, 0.409},
}};

// The NVFP4 runs of the dense Blackwell group (Llama 3 70B and 3.1 405B on GB200 and GB300): their
// GEMM and cast rates are Transformer Engine's B300 profile of one layer shape (session 47), GB200's
// GEMMs B200's measured NVFP4 matmul over its FP8 one (session 54).
constexpr std::array<TimeAccuracyPrecision, 1> kPrecisions{{
    {"dense-training-blackwell", "fp4", 18, 0.061, 0.262, 0.032},
}};

// The training groups' second source, recomputed by tests/cost/calibration/modelzoo_rows_test.cpp
// from tests/fixtures/published_runs_megatron_moe_modelzoo.json (docs/accuracy-held-out-training.md
// "A second source"); the RL groups', verl's own runs, by verl_runs_accuracy_test.cpp from the
// launches of tests/cost/calibration/verl_runs.cpp (docs/accuracy.md "verl's own runs").
constexpr std::string_view kModelZoo =
    "Megatron-MoE-ModelZoo benchmark tables, Megatron-LM's DeepSeek-V3 GB200 guide and Megatron-Bridge's EP "
    "overlap benchmark; docs/accuracy-held-out-training.md";
constexpr std::string_view kBridgeCards =
    "Megatron-Bridge's model verification cards (examples/model_verification_cards), each run with its recipe "
    "read at the commit it ran; docs/accuracy-held-out-training.md";
constexpr std::string_view kVerlRuns =
    "verl's docs: the one-step-off, fully-async and V1 trainer tables and perf/dpsk.md; docs/accuracy.md";
constexpr std::string_view kDgxc =
    "NVIDIA's DGX Cloud benchmarking recipes (NVIDIA/dgxc-benchmarking v25.04-v25.05.04 READMEs), each run with "
    "the NeMo 2 settings its pinned commit resolves; docs/accuracy-held-out-training.md";
constexpr std::string_view kMlperf =
    "MLPerf Training v5.1, closed division, NVIDIA-platform submissions (mlcommons/training_results_v5.1); "
    "docs/accuracy-held-out-training.md";
constexpr std::array<TimeAccuracySecondSource, 13> kSecondSources{{
    {"dense-training-hopper", "mlperf",
     "Llama 3.1 405B and 8B pre-training and Llama 2 70B LoRA on H100 and H200 in FP8 (NeMo; MLPerf's closed "
     "division, 8-1024 GPUs, TP 1-4, PP 8 x VPP 8, CP 1-2, 8192 tokens)",
     7, 0.0625, 0.610, -0.017, kMlperf},
    {"dense-training-hopper", "bridge-cards", "Qwen3-8B on 16 H100 (BF16, TP 1, DP 16; a functional run on RedPajama-2 text)",
     1, 0.087, 0.087, -0.080, kBridgeCards},
    {"dense-training-blackwell", "mlperf",
     "Llama 3.1 405B and 8B pre-training and Llama 2 70B LoRA on B200, B300, GB200 and GB300 in FP8 (NeMo; "
     "MLPerf's closed division, 8-512 GPUs, TP 1-4, CP 1-8, full-iteration CUDA graphs, 8192 tokens)",
     13, 0.1305, 0.954, -0.1154, kMlperf},
    {"moe-training-hopper", "modelzoo",
     "Qwen3-235B-A22B and Qwen3-30B-A3B on H100 in BF16 (Megatron-LM launches: DeepEP or alltoall, TP 2-4, PP 1-32, "
     "CP 1-8, 4k-128k tokens; Megatron-Bridge's HybridEP recipe, EP overlap off and on)",
     12, 0.202, 0.517, -0.054, kModelZoo},
    {"moe-training-hopper", "bridge-cards",
     "Qwen3-30B-A3B, Moonlight-16B-A3B, GPT-OSS-20B and -120B and DeepSeek-V3 on H100 in BF16 (Megatron-Bridge's "
     "recipes: HybridEP, alltoall, EP 4-64, TP 1-2, PP 1-8; functional runs on real text with natural routing, and "
     "performance runs)",
     6, 0.149, 0.373, 0.048, kBridgeCards},
    {"moe-training-blackwell", "modelzoo",
     "Qwen3-235B-A22B and DeepSeek-V3 on GB200 and GB300 (Megatron-LM launches: HybridEP, BF16 and MXFP8, 4k-128k "
     "tokens)",
     6, 0.159, 0.366, -0.001, kModelZoo},
    {"moe-training-blackwell", "bridge-cards",
     "Qwen3-30B-A3B, Qwen3-235B-A22B, DeepSeek-V3 and GPT-OSS-120B on GB200 and GB300 (Megatron-Bridge's "
     "performance recipes, MXFP8 and BF16, full-iteration CUDA graphs on most; Qwen3-30B-A3B weakly scaled from 8 to "
     "256 GB300, and its functional run with natural routing)",
     12, 0.089, 0.804, -0.080, kBridgeCards},
    {"dense-training-hopper", "dgxc",
     "Llama 3.1 8B, 70B and 405B in BF16 and FP8 and Nemotron-H 56B in FP8 on H100 (NeMo 25.02-25.04, 8-2048 GPUs, "
     "weak scaling)",
     37, 0.0572, 0.122, -0.0125, kDgxc},
    {"dense-training-blackwell", "dgxc", "Llama 3.1 405B in BF16 and FP8 on GB200 (NeMo 25.04, 128-512 GPUs)", 6, 0.235,
     0.241, -0.183, kDgxc},
    {"moe-training-hopper", "dgxc", "DeepSeek-V3 in BF16 on H100 (NeMo 25.04, 512 and 1024 GPUs, alltoall dispatcher)",
     2, 0.140, 0.140, -0.117, kDgxc},
    {"moe-training-blackwell", "dgxc",
     "DeepSeek-V3 in BF16 on GB200 (NeMo 25.04, 128-512 GPUs, alltoall dispatcher, no CUDA graphs)", 3, 1.234,
     1.250, -0.552, kDgxc},
    {"rl-colocated", "verl",
     "Qwen2.5-Math-7B, Qwen3-30B-A3B, Qwen3.5-35B-A3B and DeepSeek-V3 in verl (colocated, Megatron-core or FSDP2 "
     "+ vLLM, on H20 and H100; the 7B and 30B runs at the mean response their log-prob pass implies)",
     6, 0.050, 0.460, 0.036, kVerlRuns},
    {"rl-off-policy", "verl",
     "Qwen2.5-Math-7B and Qwen3.5-35B-A3B in verl (engines on GPUs of their own: one-step-off on H20, the V1 "
     "trainer's separate_async with partial rollout on H100)",
     3, 0.158, 0.395, 0.158, kVerlRuns},
}};

std::vector<TimeAccuracySecondSource> other_sources_of(std::string_view group_id) {
  std::vector<TimeAccuracySecondSource> sources;
  for (const TimeAccuracySecondSource& source : kSecondSources) {
    if (source.group_id == group_id) sources.push_back(source);
  }
  return sources;
}

std::optional<TimeAccuracyFamily> family_of(std::string_view group_id, const std::string& model_type) {
  for (const TimeAccuracyFamily& family : kFamilies) {
    if (family.group_id == group_id && family.model_type == model_type) return family;
  }
  return std::nullopt;
}

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

TimeAccuracyMatch unchecked(std::string why) {
  TimeAccuracyMatch match;
  match.unchecked = std::move(why);
  return match;
}

}  // namespace

std::span<const TimeAccuracy> time_accuracy_groups() { return kGroups; }

std::span<const TimeAccuracyFamily> time_accuracy_families() { return kFamilies; }

std::span<const TimeAccuracyGpu> time_accuracy_gpus() { return kGpus; }

std::span<const TimeAccuracyHostBound> time_accuracy_host_bound() { return kHostBound; }

// 57 of the 73 held-out GB200 / GB300 MoE runs whose layers launch from the host measured within
// 5% of the span between the two estimates; of the 16 others, 11 ran slower than both (Nemotron 3
// Super and GPT-OSS-120B in BF16 on GB300, DeepSeek-V3 in BF16 on GB200), 5 faster than both
// (held_out_training_test.cpp recomputes it).
TimeAccuracyHostCpu time_accuracy_host_cpu() { return {73, 57, 11, 0.05}; }

std::span<const TimeAccuracySecondSource> time_accuracy_second_sources() { return kSecondSources; }

std::optional<TimeAccuracySecondSource> time_accuracy_second_source(std::string_view group_id, std::string_view source) {
  for (const TimeAccuracySecondSource& other : kSecondSources) {
    if (other.group_id == group_id && other.source == source) return other;
  }
  return std::nullopt;
}

std::span<const TimeAccuracyPrecision> time_accuracy_precisions() { return kPrecisions; }

std::optional<TimeAccuracy> time_accuracy_group(std::string_view id) {
  for (const TimeAccuracy& group : kGroups) {
    if (group.id == id) return group;
  }
  return std::nullopt;
}

TimeAccuracyMatch time_accuracy_for(const ModelSpec& model, const GpuSpec& gpu, const Strategy& strategy,
                                    const Workload& workload, double moe_host_wait_share) {
  // The catalog's arch names the generation first ("Hopper GH100", "Blackwell Ultra (2 dies)").
  const bool hopper = starts_with(gpu.arch, "Hopper");
  const bool blackwell = starts_with(gpu.arch, "Blackwell");
  // AMD's CDNA3 and CDNA4 parts: dense Megatron-core training only.
  if (starts_with(gpu.arch, "CDNA") && !model.is_moe() && workload.kind != WorkloadKind::rl &&
      strategy.backend == Backend::megatron) {
    TimeAccuracyMatch match;
    match.group = time_accuracy_group("dense-training-cdna");
    return match;
  }
  if (!hopper && !blackwell) return unchecked("no held-out run was measured on " + gpu.arch + " GPUs");
  if (workload.kind == WorkloadKind::rl) {
    if (workload.rl.engine != RolloutEngine::vllm) return unchecked("no held-out RL run was measured with SGLang");
    const std::string_view id = workload.rl.rollout_gpus > 0 ? "rl-off-policy" : "rl-colocated";
    TimeAccuracyMatch match;
    match.group = time_accuracy_group(id);
    match.other_sources = other_sources_of(id);
    return match;
  }
  if (strategy.backend != Backend::megatron) {
    return unchecked("no held-out training run was measured with FSDP (the held-out rows run Megatron-core)");
  }
  const std::string id = std::string(model.is_moe() ? "moe-training-" : "dense-training-") + (hopper ? "hopper" : "blackwell");
  std::optional<TimeAccuracyHostBound> host_bound;
  for (const TimeAccuracyHostBound& subset : kHostBound) {
    if (subset.group_id == id && moe_host_wait_share > subset.min_share) host_bound = subset;
  }
  TimeAccuracyMatch match;
  match.group = time_accuracy_group(id);
  match.family = family_of(id, model.model_type);
  match.gpu_type = gpu_of(id, gpu.id);
  match.host_bound = host_bound;
  for (const TimeAccuracyPrecision& precision : kPrecisions) {
    if (precision.group_id == id && precision.compute_dtype == compute_dtype_name(strategy.compute_dtype)) {
      match.precision = precision;
    }
  }
  match.other_sources = other_sources_of(id);
  return match;
}

}  // namespace meshplan
