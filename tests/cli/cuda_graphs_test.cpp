// Megatron-core CUDA graphs of the training step (TransformerConfig.cuda_graph_impl and
// cuda_graph_modules; Megatron-LM --cuda-graph-impl, --cuda-graph-modules): estimate and plan take
// them, the MoE layer's host floor drops what they capture, emit writes them, and check refuses
// what Megatron-LM refuses (arguments.py and transformer_config.py at d98e8a64dd).
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"
#include "verl/check_support.hpp"

namespace meshplan {
namespace {

// Qwen3-30B-A3B (48 MoE layers, 128 experts, top 8) pretraining in FP8 on 8 GB200 of one NVLink
// domain, EP 8 (16 local experts), micro-batch 4 of 4096 tokens: Megatron-Bridge 26.06's GB200
// layout (docs/accuracy-held-out-training.md).
const std::vector<std::string> kEstimate = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xGB200",
                                            "--workload", "pretrain", "--ep", "8", "--micro-batch", "4",
                                            "--global-batch", "512", "--seq-len", "4096", "--dtype", "fp8",
                                            "--json", "--explain"};

struct Estimate {
  double step_seconds = 0;
  double host_wait_seconds = 0;    ///< the trace's forward wait of one micro-batch
  double breakdown_host_wait = 0;  ///< time.breakdown.moe_host_wait: the whole step's
  double breakdown_total = 0;      ///< the sum of time.breakdown
};

Estimate estimate(const std::vector<std::string>& extra) {
  std::vector<std::string> args = kEstimate;
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto json = nlohmann::json::parse(run.out);
  Estimate out;
  out.step_seconds = json["time"]["step_seconds"].get<double>();
  out.breakdown_host_wait = json["time"]["breakdown"]["moe_host_wait"].get<double>();
  for (const auto& [name, seconds] : json["time"]["breakdown"].items()) out.breakdown_total += seconds.get<double>();
  for (const auto& term : json["explain"]) {
    if (term["name"] == "time/compute/moe_host_wait") out.host_wait_seconds = term["value"].get<double>();
  }
  return out;
}

std::vector<Finding> graph_findings(const std::string& flags) {
  const std::string script = "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers 48 " + flags + "\n";
  auto report = check_launch({InputText{"pretrain.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  return test::findings_of(*report, "megatron.cuda-graph");
}

}  // namespace

TEST_CASE("estimate: what a CUDA graph captures leaves the MoE layer's host floor") {
  // Worked from the fitted constants (docs/accuracy.md): the layer's GPU forward is 2.32 ms
  // (dense 13.4 + experts 30.8 + attention 25.4, at cuDNN's rate measured on GB200 + memory-bound
  // 31.2 + fp8 casts 10.5 = 111.3 ms over 48 layers; the memory-bound part holds the alltoall dispatcher's two sorts by local
  // expert, 4 x 8 x 2048 x 2 B a token and layer: 16384 tokens x 48 layers / 8 TB/s = 12.9 ms).
  // Eager, the host launches 3 ms + 0.2 ms x 16 local experts = 6.2 ms a layer: 48 x 3.88 ms =
  // 0.186 s of waiting per forward. Graphed router and preprocessing leave the experts' 3.2 ms:
  // 48 x 0.88 ms = 0.0423 s. A full-iteration graph leaves nothing.
  const Estimate eager = estimate({});
  const Estimate router = estimate({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules",
                                    "attn,moe_router,moe_preprocess"});
  const Estimate attention = estimate({"--cuda-graph-impl", "local", "--cuda-graph-modules", "attn"});
  const Estimate full = estimate({"--cuda-graph-impl", "full_iteration"});
  CHECK(eager.host_wait_seconds == test::approx(0.186).epsilon(0.01));
  CHECK(router.host_wait_seconds == test::approx(0.0423).epsilon(0.02));
  CHECK(attention.host_wait_seconds == test::approx(eager.host_wait_seconds));  // the experts' launches are not captured
  CHECK(full.host_wait_seconds == 0);
  // Each micro-batch waits forward + 2 x backward: 16 micro-batches x 3 x (0.186 - 0.0423) s = 6.9 s.
  CHECK(eager.step_seconds - router.step_seconds == test::approx(16 * 3 * (0.186 - 0.0423)).epsilon(0.02));
  CHECK(router.step_seconds - full.step_seconds == test::approx(16 * 3 * 0.0423).epsilon(0.02));
}

TEST_CASE("estimate: the MoE layers' host wait is a part of the step's breakdown of its own") {
  // The trace's wait is one micro-batch's forward; the step holds 16 micro-batches (512 sequences
  // over DP 8 at micro-batch 4), each waiting forward + 2 x backward: 16 x 3 x 0.184 s = 8.86 s
  // eager, 16 x 3 x 0.0404 s = 1.94 s with the router and preprocessing graphed.
  const Estimate eager = estimate({});
  const Estimate router = estimate({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules",
                                    "attn,moe_router,moe_preprocess"});
  const Estimate full = estimate({"--cuda-graph-impl", "full_iteration"});
  CHECK(eager.breakdown_host_wait == test::approx(16 * 3 * eager.host_wait_seconds).epsilon(1e-9));
  CHECK(eager.breakdown_host_wait == test::approx(8.86).epsilon(0.01));
  CHECK(router.breakdown_host_wait == test::approx(16 * 3 * router.host_wait_seconds).epsilon(1e-9));
  CHECK(full.breakdown_host_wait == 0);
  // Split out of compute, not added: the parts still sum to the step.
  for (const Estimate* e : {&eager, &router, &full}) CHECK(e->breakdown_total == test::approx(e->step_seconds));
  // Full recomputation repeats each layer's forward, and its wait, once more.
  const Estimate recomputed = estimate({"--recompute", "full"});
  CHECK(recomputed.breakdown_host_wait == test::approx(16 * 4 * recomputed.host_wait_seconds).epsilon(1e-9));
  // So does Megatron-core's selective recomputation of the MoE layer (recompute_modules moe).
  const Estimate moe_recomputed = estimate({"--recompute", "selective", "--recompute-modules", "moe"});
  CHECK(moe_recomputed.breakdown_host_wait == test::approx(16 * 4 * moe_recomputed.host_wait_seconds).epsilon(1e-9));
  CHECK(moe_recomputed.breakdown_total == test::approx(moe_recomputed.step_seconds));
  // The text names the term and what shortens it only where there is one.
  std::vector<std::string> text_args = kEstimate;
  text_args.erase(std::find(text_args.begin(), text_args.end(), "--json"));
  text_args.erase(std::find(text_args.begin(), text_args.end(), "--explain"));  // its trace names the term too
  const auto text = test::run(text_args);
  CHECK(text.out.find("moe_host_wait: the GPU idles while the host launches MoE layers") != std::string::npos);
  text_args.insert(text_args.end(), {"--cuda-graph-impl", "full_iteration"});
  CHECK(test::run(text_args).out.find("moe_host_wait") == std::string::npos);
}

TEST_CASE("estimate: CUDA graph flags Megatron-core refuses are exit 2 naming the flag or rule") {
  const auto modules = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--ep", "8",
                                  "--cuda-graph-impl", "full_iteration", "--cuda-graph-modules", "attn"});
  CHECK(modules.exit_code == 2);
  CHECK(modules.err.find("--cuda-graph-modules") != std::string::npos);
  const auto unknown = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--ep", "8",
                                  "--cuda-graph-impl", "local", "--cuda-graph-modules", "attention"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown module 'attention'") != std::string::npos);
  const auto recompute = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--ep", "8",
                                    "--cuda-graph-impl", "local", "--recompute", "full"});
  CHECK(recompute.exit_code == 2);
  CHECK(recompute.err.find("[graph.full-recompute]") != std::string::npos);
  const auto fsdp = test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--fsdp",
                               "--cuda-graph-impl", "full_iteration"});
  CHECK(fsdp.exit_code == 2);
  CHECK(fsdp.err.find("[graph.megatron]") != std::string::npos);
}

TEST_CASE("plan runs every Megatron candidate under the given CUDA graphs and emits them") {
  const std::vector<std::string> plan = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x8xGB200", "--workload",
                                         "pretrain", "--seq-len", "4096", "--global-batch", "512", "--json"};
  const auto eager = test::run(plan);
  REQUIRE_MESSAGE(eager.exit_code == 0, eager.err);
  std::vector<std::string> graphed = plan;
  graphed.insert(graphed.end(), {"--cuda-graph-impl", "full_iteration"});
  const auto full = test::run(graphed);
  REQUIRE_MESSAGE(full.exit_code == 0, full.err);
  const auto best = nlohmann::json::parse(full.out)["candidates"][0];
  CHECK(best["strategy"]["cuda_graph_impl"] == "full_iteration");
  CHECK(best["step_seconds"].get<double>() <
        nlohmann::json::parse(eager.out)["candidates"][0]["step_seconds"].get<double>());

  // The emitted launch carries the graphs and the flag full_iteration needs, and checks clean.
  std::vector<std::string> base = plan;
  base.pop_back();  // --json
  const auto emitted = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> args = base;
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--emit", "megatron"});
    return test::run(args);
  };
  const auto te = emitted({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules", "attn,moe_router,moe_preprocess"});
  REQUIRE_MESSAGE(te.exit_code == 0, te.err);
  CHECK(te.out.find("--cuda-graph-impl transformer_engine") != std::string::npos);
  CHECK(te.out.find("--cuda-graph-modules attn moe_router moe_preprocess") != std::string::npos);
  const auto whole = emitted({"--cuda-graph-impl", "full_iteration"});
  REQUIRE_MESSAGE(whole.exit_code == 0, whole.err);
  CHECK(whole.out.find("--cuda-graph-impl full_iteration") != std::string::npos);
  CHECK(whole.out.find("--no-check-for-nan-in-loss-and-grad") != std::string::npos);
  auto report = check_launch({InputText{"pretrain.sh", whole.out}}, CheckOptions{});
  REQUIRE(report.ok());
  CHECK(test::findings_of(*report, "megatron.cuda-graph").empty());

  // verl's Megatron workers build no training-step graphs.
  const auto rl = test::run({"plan", "--model", "qwen3-8b", "--cluster", "1x8xH100", "--workload", "rl",
                             "--cuda-graph-impl", "local"});
  CHECK(rl.exit_code == 2);
  CHECK(rl.err.find("verl's Megatron workers build no CUDA graphs") != std::string::npos);
}

TEST_CASE("Megatron-LM: CUDA graph flags that stop validate_args or TransformerConfig") {
  CHECK(graph_findings("--cuda-graph-impl transformer_engine --cuda-graph-modules attn moe_router moe_preprocess").empty());
  CHECK(graph_findings("--cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad").empty());
  CHECK(graph_findings("--cuda-graph-impl $GRAPHS --recompute-granularity full").empty());  // the shell's value is not judged
  CHECK(graph_findings("--cuda-graph-impl none --recompute-granularity full").empty());

  // arguments.py: the whole-iteration graph needs the NaN check off (since e7c55de99e, 2025-08-01).
  const auto nan = graph_findings("--cuda-graph-impl full_iteration");
  REQUIRE(nan.size() == 1);
  CHECK(nan[0].severity == Severity::error);
  CHECK(nan[0].message.find("--no-check-for-nan-in-loss-and-grad should be set") != std::string::npos);
  const auto modules = graph_findings("--cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad "
                                      "--cuda-graph-modules attn");
  REQUIRE(modules.size() == 1);
  CHECK(modules[0].message.find("must be empty when --cuda-graph-impl=full_iteration") != std::string::npos);
  const auto both = graph_findings("--enable-cuda-graph --cuda-graph-impl local");
  REQUIRE(both.size() == 1);
  CHECK(both[0].message.find("Do not use --enable-cuda-graph") != std::string::npos);
  const auto offload = graph_findings("--cuda-graph-impl local --cpu-offloading-num-layers 4");
  REQUIRE(offload.size() == 1);
  CHECK(offload[0].severity == Severity::error);
  CHECK(offload[0].message.find("CUDA graphs not supported with CPU offloading.") != std::string::npos);

  // Refused from Megatron-core 2b343d739f (2025-12-31) on, run before it: warnings naming it.
  const auto recompute = graph_findings("--external-cuda-graph --recompute-granularity full");
  REQUIRE(recompute.size() == 1);
  CHECK(recompute[0].severity == Severity::warning);
  CHECK(recompute[0].message.find("2b343d739f") != std::string::npos);
  const auto preprocess = graph_findings("--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_preprocess");
  REQUIRE(preprocess.size() == 1);
  CHECK(preprocess[0].severity == Severity::warning);
  CHECK(preprocess[0].message.find("moe_preprocess cuda graph is only supported with moe_router") != std::string::npos);
  // The local impl adds moe_router itself.
  CHECK(graph_findings("--cuda-graph-impl local --cuda-graph-modules moe_preprocess").empty());
}

}  // namespace meshplan
