// NVFP4 training (Megatron-LM --fp4-format e2m1 --fp4-recipe nvfp4, estimate --dtype fp4): the
// GEMMs at the NVFP4 peak times what Transformer Engine's B300 GEMM profile measures of it, the
// casts at that profile's quantization cost, attention and the output layer in bf16; refused where
// the GPU has no NVFP4 tensor cores (Transformer Engine check_nvfp4_support). And the output layer
// in MXFP8 under Megatron-core's fp8_output_proj.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"
#include "verl/check_support.hpp"

namespace meshplan {
namespace {

// Llama 3.1 70B on 64 GB300 at Megatron-Bridge's NVFP4 layout (TP 1, PP 4 x VPP 5, micro-batch 1,
// 8192 tokens, global batch 256).
std::vector<std::string> llama70b(const std::string& cluster, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"estimate", "--model", "llama-3.1-70b", "--cluster", cluster, "--workload",
                                   "pretrain", "--pp", "4", "--vpp", "5", "--global-batch", "256", "--seq-len",
                                   "8192", "--no-grad-reduce-in-fp32", "--json", "--explain"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

struct Terms {
  std::map<std::string, double> seconds;  ///< time/... terms by name
  std::map<std::string, std::string> inputs;
  nlohmann::json strategy;
};

Terms terms_of(const std::vector<std::string>& args) {
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);  // 1: it does not fit (bf16 here); the time is still estimated
  const nlohmann::json parsed = nlohmann::json::parse(run.out);
  Terms terms;
  terms.strategy = parsed["strategy"];
  for (const auto& term : parsed["explain"]) {
    const std::string name = term["name"].get<std::string>();
    terms.seconds[name] = term["value"].get<double>();
    terms.inputs[name] = term.value("inputs", "");
  }
  return terms;
}

TEST_CASE("estimate --dtype fp4: NVFP4 GEMMs at what Transformer Engine measured of the NVFP4 peak") {
  const Terms mxfp8 = terms_of(llama70b("16x4xGB300", {"--dtype", "fp8", "--fp8-recipe", "mxfp8"}));
  const Terms nvfp4 = terms_of(llama70b("16x4xGB300", {"--dtype", "fp4"}));
  CHECK(nvfp4.strategy["compute_dtype"] == "fp4");
  // The dense GEMMs, of one size in both: GB300's FP8 peak 5 PF at the fp8 fraction, against its
  // NVFP4 peak 15 PF at that fraction x 0.5708 (7.161 / 3.764 x 4.5 / 15): 15 x 0.5708 / 5 = 1.7125
  // times as fast.
  CHECK(mxfp8.seconds.at("time/compute/dense_gemm") / nvfp4.seconds.at("time/compute/dense_gemm") ==
        test::approx(1.7125).epsilon(1e-3));
  // The casts: (6.453 - 3.764) / (8.984 - 7.161) = 1.475 times MXFP8's bytes.
  CHECK(nvfp4.seconds.at("time/compute/fp8_cast") / mxfp8.seconds.at("time/compute/fp8_cast") ==
        test::approx(1.475).epsilon(1e-3));
  // Attention (NVFP4BlockScaling has no fp4 attention) and the output layer (Megatron-core's
  // ColumnParallelLinear, outside the autocast) stay in bf16 under either recipe.
  CHECK(nvfp4.seconds.at("time/compute/attention_scores") == test::approx(mxfp8.seconds.at("time/compute/attention_scores")));
  CHECK(nvfp4.seconds.at("time/compute/lm_head") == test::approx(mxfp8.seconds.at("time/compute/lm_head")));
  CHECK(nvfp4.inputs.at("time/compute/lm_head") == "head dtype=bf16");
  const Terms bf16 = terms_of(llama70b("16x4xGB300", {}));
  CHECK(bf16.seconds.at("time/compute/lm_head") == test::approx(mxfp8.seconds.at("time/compute/lm_head")));
}

TEST_CASE("estimate --fp8-output-proj: the output layer's GEMM in MXFP8, as Megatron-core runs it under fp8_output_proj") {
  const Terms bf16_head = terms_of(llama70b("16x4xGB300", {"--dtype", "fp8", "--fp8-recipe", "mxfp8"}));
  const Terms fp8_head = terms_of(llama70b("16x4xGB300", {"--dtype", "fp8", "--fp8-recipe", "mxfp8", "--fp8-output-proj"}));
  CHECK(fp8_head.strategy["fp8_output_proj"] == true);
  CHECK(fp8_head.inputs.at("time/compute/lm_head") == "head dtype=fp8");
  // The cross-entropy is the same memory-bound pass: 16 B x 8192 tokens x 128,256 logits / 8 TB/s.
  // The GEMMs (3 passes) go from GB300's bf16 peak 2.5 PF at 0.7364 to its fp8 peak 5 PF at 0.5993
  // (efficiency_test.cpp), the size term alike: 2.5 x 0.7364 / (5 x 0.5993) = 0.6144 of the time.
  const double cross_entropy = 16.0 * 8192 * 128256 / 8e12;
  CHECK((fp8_head.seconds.at("time/compute/lm_head") - cross_entropy) /
            (bf16_head.seconds.at("time/compute/lm_head") - cross_entropy) ==
        test::approx(2.5 * 0.7364 / (5.0 * 0.5993)).epsilon(2e-3));
  // Megatron-core refuses it under another recipe.
  const test::CliRun delayed = test::run(llama70b("16x4xGB300", {"--dtype", "fp8", "--fp8-output-proj"}));
  CHECK(delayed.exit_code == 2);
  CHECK(delayed.err.find("fp8_output_proj requires fp8_recipe='mxfp8', got 'delayed'.") != std::string::npos);
}

TEST_CASE("estimate --dtype fp4 says how sure its time is: the held-out NVFP4 runs beside the group") {
  std::vector<std::string> args = llama70b("16x4xGB300", {"--dtype", "fp4"});
  const test::CliRun json_run = test::run(args);
  REQUIRE_MESSAGE(json_run.exit_code == 0, json_run.err);
  const nlohmann::json accuracy = nlohmann::json::parse(json_run.out)["time"]["accuracy"];
  CHECK(accuracy["group"] == "dense-training-blackwell");
  CHECK(accuracy["precision"]["compute_dtype"] == "fp4");
  CHECK(accuracy["precision"]["runs"] == 18);
  args.erase(std::find(args.begin(), args.end(), "--json"));
  const test::CliRun text = test::run(args);
  CHECK(text.out.find("  18 of them trained in NVFP4 (--dtype fp4), as this estimate does: off by a median 6.1% (at "
                      "most 26.2%)") != std::string::npos);
}

TEST_CASE("estimate --fp4-param-gather: the distributed optimizer gathers NVFP4 weights, 0.5625 bytes each") {
  const Terms gathered = terms_of(llama70b("16x4xGB300", {"--dtype", "fp4", "--fp4-param-gather"}));
  CHECK(gathered.strategy["fp4_param_gather"] == true);
  CHECK(gathered.inputs.at("time/dp_comm_exposed").find("param_gather_bytes=0.5625") != std::string::npos);
  const Terms plain = terms_of(llama70b("16x4xGB300", {"--dtype", "fp4"}));
  CHECK(plain.inputs.at("time/dp_comm_exposed").find("param_gather_bytes=2") != std::string::npos);
}

TEST_CASE("estimate --dtype fp4 on Hopper: Transformer Engine's refusal, exit 2") {
  const test::CliRun run = test::run(llama70b("8x8xH100", {"--dtype", "fp4"}));
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("Device compute capability 10.0 or higher required for NVFP4 execution (H100-80GB)") !=
        std::string::npos);
}

TEST_CASE("check: a verl launch's FP8 recipe refused where the GPU or Megatron-core cannot run it") {
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  const auto launch = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> lines = {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"};
    lines.insert(lines.end(), extra.begin(), extra.end());
    return test::with(test::megatron_baseline(), lines);
  };
  CheckOptions options = test::with_preset("qwen2.5-7b-instruct");
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H100");
  // MXFP8 on H100: Transformer Engine's check_mxfp8_support, with --gpu only.
  const auto mxfp8 = launch({t + "fp8=e4m3", t + "fp8_recipe=mxfp8"});
  const auto hits = test::findings_of(test::check_lines(mxfp8, "ppo_megatron_trainer", options), "gpu.fp8.mxfp8-blackwell");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::error);  // the hardware refuses on every version
  CHECK(hits[0].message.find("Device compute capability 10.0 or higher required for MXFP8 execution (H100-80GB);") == 0);
  options.gpu = *find_gpu(builtin_gpu_catalog(), "B200");
  CHECK(test::findings_of(test::check_lines(mxfp8, "ppo_megatron_trainer", options), "gpu.fp8.mxfp8-blackwell").empty());
  // fp8_output_proj under blockwise: Megatron-core's own refusal, whatever the GPU.
  const auto head = launch({t + "fp8=e4m3", t + "fp8_recipe=blockwise", t + "fp8_output_proj=True"});
  const auto refused = test::findings_of(test::check_lines(head, "ppo_megatron_trainer", options), "model.fp8.output-proj-mxfp8");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].severity == Severity::warning);  // a Megatron-core before 0.18.2 has no such field
  CHECK(refused[0].message.find("fp8_output_proj requires fp8_recipe='mxfp8', got 'blockwise'.") == 0);
}

TEST_CASE("FP8 attention over gpt-oss's attention sinks: no Transformer Engine backend before Blackwell") {
  // get_attention_backend: up to v2.14 every backend refuses softmax_type learnable in FP8; from v2.15
  // FusedAttention takes it on sm >= 100 only. estimate refuses it on H100 (exit 2), check with --gpu.
  const std::vector<std::string> gpt_oss = {"estimate", "--model", "gpt-oss-120b", "--cluster", "8x8xH100",
                                            "--workload", "pretrain", "--ep", "8", "--global-batch", "64",
                                            "--dtype", "fp8", "--fp8-dot-product-attention"};
  const test::CliRun refused = test::run(gpt_oss);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("No dot product attention backend is available for the provided inputs (gpt-oss-120b, "
                         "H100-80GB: Transformer Engine disables FusedAttention for softmax_type = learnable in FP8") !=
        std::string::npos);
  std::vector<std::string> blackwell = gpt_oss;
  blackwell[4] = "8x8xB200";
  CHECK(test::run(blackwell).exit_code == 0);
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  const auto launch = test::with(test::megatron_baseline(),
                                 {"actor_rollout_ref.actor.megatron.expert_model_parallel_size=8", t + "fp8=e4m3",
                                  t + "fp8_recipe=tensorwise", t + "fp8_dot_product_attention=True"});
  CheckOptions options = test::with_preset("gpt-oss-120b");
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H100");
  const auto hits = test::findings_of(test::check_lines(launch, "ppo_megatron_trainer", options),
                                      "gpu.fp8.attention-sinks-blackwell");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::error);  // no Transformer Engine version has a backend on Hopper
  CHECK(hits[0].message.find("No dot product attention backend is available") == 0);
  options.gpu = *find_gpu(builtin_gpu_catalog(), "B200");
  CHECK(test::findings_of(test::check_lines(launch, "ppo_megatron_trainer", options), "gpu.fp8.attention-sinks-blackwell")
            .empty());
  // A script exporting NVTE_DPA_FP8_RECIPE=F16 runs attention in bf16 whatever fp8_dpa says
  // (dot_product_attention.py): nothing to refuse.
  std::string command = "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer";
  for (const std::string& line : launch) command += " \\\n  '" + line + "'";
  options.gpu = *find_gpu(builtin_gpu_catalog(), "H100");
  options.read.verl_version = "main@b178a3cd";
  const auto sinks_findings = [&](const std::string& script) {
    const auto report = check_launch({InputText{"run.sh", script + "\n"}}, options);
    REQUIRE(report.ok());
    return test::findings_of(report.value(), "gpu.fp8.attention-sinks-blackwell").size();
  };
  CHECK(sinks_findings(command) == 1);
  CHECK(sinks_findings("export NVTE_DPA_FP8_RECIPE=F16\n" + command) == 0);
}

}  // namespace
}  // namespace meshplan
