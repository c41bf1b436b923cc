// FP8 recipes and FP8 attention (Megatron-LM --fp8-recipe, --fp8-dot-product-attention): estimate
// costs attention at cuDNN's FP8 or MXFP8 bars where they were measured, at BF16's elsewhere, and
// refuses what Transformer Engine cannot run (MXFP8, and FP8 attention over gpt-oss's sinks, before
// Blackwell).

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

std::vector<std::string> gpt_oss(const std::string& cluster, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"estimate",     "--model", "gpt-oss-120b",   "--cluster", cluster,
                                   "--workload",   "pretrain", "--ep",          "64",        "--micro-batch",
                                   "4",            "--global-batch", "1280",    "--seq-len", "4096",
                                   "--dtype",      "fp8",      "--json",        "--explain"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

double attention_seconds(const test::CliRun& run) {
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);  // 1: it does not fit; the time is still estimated
  const nlohmann::json parsed = nlohmann::json::parse(run.out);
  for (const auto& term : parsed["explain"]) {
    if (term["name"] == "time/compute/attention_scores") return term["value"].get<double>();
  }
  return 0.0;
}

TEST_CASE("estimate --fp8-dot-product-attention: gpt-oss's window backward runs four times as long in MXFP8") {
  const test::CliRun bf16 = test::run(gpt_oss("16x4xGB200", {"--fp8-recipe", "mxfp8"}));
  const test::CliRun mxfp8 = test::run(gpt_oss("16x4xGB200", {"--fp8-recipe", "mxfp8", "--fp8-dot-product-attention"}));
  // cuDNN on GB200 (cudnn-frontend results at 3929da2): the 128-key window's share falls from 0.0668
  // to 0.0198 and the 4k causal layers' from 0.364 to about 0.36 (head dim 64 scaled from 128's):
  // attention takes longer, by the window layers mostly.
  CHECK(attention_seconds(mxfp8) > 1.5 * attention_seconds(bf16));
  const nlohmann::json strategy = nlohmann::json::parse(mxfp8.out)["strategy"];
  CHECK(strategy["fp8_recipe"] == "mxfp8");
  CHECK(strategy["fp8_dot_product_attention"] == true);
  std::vector<std::string> text = gpt_oss("16x4xGB200", {"--fp8-recipe", "mxfp8", "--fp8-dot-product-attention"});
  text.erase(std::find(text.begin(), text.end(), "--json"));
  const test::CliRun explained = test::run(text);
  CHECK(explained.out.find("fp8 recipe mxfp8, attention in fp8") != std::string::npos);
  CHECK(explained.out.find("attention in fp8 at mxfp8 bars") != std::string::npos);
}

TEST_CASE("estimate refuses MXFP8 before Blackwell, and FP8 attention on Hopper off head dim 128 keeps BF16 bars") {
  const test::CliRun mxfp8 = test::run(gpt_oss("8x8xH100", {"--fp8-recipe", "mxfp8"}));
  CHECK(mxfp8.exit_code == 2);
  CHECK(mxfp8.err.find("[fp8.mxfp8-blackwell]: Device compute capability 10.0 or higher required for MXFP8 execution") !=
        std::string::npos);
  // gpt-oss's attention sinks in FP8 on Hopper: no Transformer Engine backend (nvfp4_test.cpp).
  CHECK(test::run(gpt_oss("8x8xH100", {"--fp8-dot-product-attention"})).exit_code == 2);
  // Head dim 64 on Hopper (Qwen2.5-0.5B): cuDNN 9.19 refused FP8 there (NVIDIA's benchmark on H200);
  // a newer cuDNN may not, so the estimate runs, at BF16's bars, and its trace says so.
  const std::vector<std::string> qwen = {"estimate", "--model", "qwen2.5-0.5b", "--cluster", "1x8xH100", "--dtype",
                                         "fp8", "--seq-len", "4096", "--global-batch", "64", "--json", "--explain"};
  std::vector<std::string> fp8_attention = qwen;
  fp8_attention.push_back("--fp8-dot-product-attention");
  const test::CliRun head64 = test::run(fp8_attention);
  CHECK(attention_seconds(head64) == test::approx(attention_seconds(test::run(qwen))));
  CHECK(head64.out.find("attention in fp8 at bf16 (no FP8 bars measured for this GPU and head dim)") !=
        std::string::npos);
  // Head dim 128 on Hopper runs, at H200's FP8 / BF16 speed-up (cuDNN 9.19), which at 8k causal keys
  // is a slow-down: the FP8 backward reaches 430 TFLOP/s where BF16's reaches 541:
  // (1/964 + 2.5/430) / (1/644 + 2.5/541) = 1.10973 times BF16's attention time.
  const std::vector<std::string> llama = {"estimate", "--model",  "llama-3.1-8b", "--cluster", "1x8xH100",
                                          "--dtype",  "fp8",      "--seq-len",     "8192",      "--global-batch",
                                          "64",       "--json",       "--explain"};
  std::vector<std::string> fp8 = llama;
  fp8.push_back("--fp8-dot-product-attention");
  CHECK(attention_seconds(test::run(fp8)) == test::approx(1.10973 * attention_seconds(test::run(llama))).epsilon(1e-4));
}

}  // namespace
}  // namespace meshplan
