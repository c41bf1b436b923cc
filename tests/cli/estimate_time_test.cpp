// The time section of `meshplan estimate`: text, JSON under "time", --explain, --measured.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kRl = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100-80GB",
                                      "--workload", "rl", "--fsdp", "--zero", "3", "--rollout-tp", "2",
                                      "--rollout-n", "5", "--global-batch", "256", "--mini-batch", "64",
                                      "--prompt-len", "512", "--response-len", "1024", "--micro-batch", "4"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_CASE("estimate prints the step time with verl's phase names") {
  const auto run = test::run(kRl);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("Step time (predicted)") != std::string::npos);
  CHECK(run.out.find("timing_s/gen") != std::string::npos);
  CHECK(run.out.find("timing_s/update_actor") != std::string::npos);
  CHECK(run.out.find("Actor update MFU") != std::string::npos);
}

TEST_CASE("estimate --json has the time section, its parts sum to the step") {
  const auto run = test::run(with(kRl, {"--json"}));
  REQUIRE(run.exit_code == 0);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  const nlohmann::json& time = json["time"];
  REQUIRE(time.is_object());
  double phases = 0;
  for (const auto& phase : time["phases"]) phases += phase["seconds"].get<double>();
  CHECK(phases == test::approx(time["step_seconds"].get<double>()));
  double parts = 0;
  for (const auto& [name, seconds] : time["breakdown"].items()) parts += seconds.get<double>();
  CHECK(parts == test::approx(time["step_seconds"].get<double>()));
  CHECK(time["mfu"].get<double>() > 0.0);
  CHECK(time["mfu"].get<double>() < 1.0);
}

TEST_CASE("estimate --explain lists the time terms with their formulas") {
  const auto run = test::run(with(kRl, {"--explain"}));
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("time/gen/decode") != std::string::npos);
  CHECK(run.out.find("time/dp_comm_exposed") != std::string::npos);
  const auto json = test::run(with(kRl, {"--explain", "--json"}));
  CHECK(json.out.find("\"time/gen/prefill\"") != std::string::npos);
}

TEST_CASE("estimate --measured prints predicted next to measured, bad logs exit 2") {
  const std::string log = test::fixture("verl/console_metrics.log").string();
  const auto run = test::run(with(kRl, {"--measured", log}));
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("Predicted vs measured (mean of 2 of 3 logged steps") != std::string::npos);
  CHECK(run.out.find("perf/max_memory_allocated_gb") != std::string::npos);
  const auto missing = test::run(with(kRl, {"--measured", "/nonexistent/verl.log"}));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/nonexistent/verl.log") != std::string::npos);
  const auto not_a_log = test::run(with(kRl, {"--measured", test::fixture("nccl/bad_time.txt").string()}));
  CHECK(not_a_log.exit_code == 2);
  CHECK(not_a_log.err.find("no verl metric lines") != std::string::npos);
}

TEST_CASE("pretraining estimate: TP overlap flag hides TP communication") {
  const std::vector<std::string> base = {"estimate", "--model", "llama-3.1-70b", "--cluster", "8x8xH100-80GB",
                                         "--tp", "8", "--pp", "4", "--global-batch", "256", "--seq-len", "8192",
                                         "--sequence-parallel", "--recompute", "selective", "--json"};
  const auto plain = test::run(base);
  const auto overlapped = test::run(with(base, {"--tp-comm-overlap"}));
  REQUIRE(plain.exit_code == 0);
  REQUIRE(overlapped.exit_code == 0);
  const double tp = nlohmann::json::parse(plain.out)["time"]["breakdown"]["tp_comm"].get<double>();
  const double hidden = nlohmann::json::parse(overlapped.out)["time"]["breakdown"]["tp_comm"].get<double>();
  CHECK(tp > 0.0);
  CHECK(hidden < tp);
}

TEST_CASE("estimate accepts GB200 NVL72 layouts: expert parallelism across a 64-GPU NVLink domain") {
  // NeMo RL v0.6 performance summary, DeepSeek-V3 GRPO on 128 GB200 (2 racks of 64 used GPUs):
  // training TP 1, PP 8 (61 layers: 7 on the first stage, 6 on the last), EP 16; generation TP 32
  // (rl_runs.json nemorl_v06_gb200_deepseek_v3_128gpu_on). Exit 0 or 1 (fits or not), never 2.
  const std::vector<std::string> args = {
      "estimate", "--model", "deepseek-v3", "--cluster", "2x64xGB200-NVL72", "--workload", "rl", "--pp", "8",
      "--first-stage-layers", "7", "--last-stage-layers", "6", "--ep", "16", "--rollout-tp", "32", "--rollout-n", "16", "--global-batch", "32", "--mini-batch", "32",
      "--prompt-len", "256", "--response-len", "1280", "--mean-response-len", "455", "--json"};
  const auto run = test::run(args);
  REQUIRE(run.exit_code != 2);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  CHECK(json["cluster"]["gpu"] == "GB200-NVL72");
  CHECK(json["cluster"]["gpus"] == 128);
  // EP 16 stays inside the 64-GPU NVLink domain: the all-to-all runs at NVLink speed.
  CHECK(json["time"]["step_seconds"].get<double>() > 0.0);
  // A 73-GPU NVLink domain does not exist.
  const auto too_big = test::run({"estimate", "--model", "deepseek-v3", "--cluster", "1x73xGB200-NVL72"});
  CHECK(too_big.exit_code == 2);
}

TEST_CASE("estimate --account-for-embedding/loss-in-pipeline-split: Megatron-Bridge's Llama 3.1 405B split") {
  // Megatron-Bridge's GB200 405B recipe (TP 4, PP 16 x VPP 8; nemo_recipe_settings.json 26.04):
  // 126 layers + the embedding + the loss = 128, one a model chunk, 7 decoder layers on the first
  // and the last PP rank and 8 on the others (Megatron-core get_num_layers_to_build). Without the
  // flags PP 16 x VPP 8 does not divide 126 layers.
  std::vector<std::string> args = {"estimate", "--model", test::fixture("models/llama-3.1-405b-mlperf").string(),
                                   "--cluster", "64x4xGB200", "--workload", "pretrain", "--tp", "4", "--pp", "16",
                                   "--vpp", "8", "--sequence-parallel", "--global-batch", "1536", "--seq-len", "8192",
                                   "--dtype", "fp8"};
  const auto refused = test::run(args);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("[pp.divides-layers]") != std::string::npos);
  args.insert(args.end(), {"--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"});
  const auto split = test::run(args);
  REQUIRE(split.exit_code != 2);
  CHECK(split.out.find("embedding and loss counted as pipeline layers (decoder layers first/middle/last PP rank: "
                       "7/8/7)") != std::string::npos);
}

TEST_CASE("estimate accepts GB300 NVL72, B300 and MI355X layouts, EP all-to-all follows each platform's links") {
  // DeepSeek-V3, EP 32, PP 4 (61 layers: 16 + 15 + 15 + 15) on 128 GPUs. On GB300 NVL72 (2 racks
  // of 64) the EP group stays in one NVLink domain; on HGX B300 (8 per node) it spans 4 nodes
  // through 800 Gb/s ConnectX-8 NICs; on MI355X (8 per node, 400 Gb/s assumed) the NIC share is
  // twice as slow again.
  const auto ep_comm = [](const std::string& cluster) {
    const auto run = test::run({"estimate", "--model", "deepseek-v3", "--cluster", cluster, "--pp", "4",
                                "--first-stage-layers", "16", "--last-stage-layers", "15", "--ep", "32",
                                "--global-batch", "256", "--seq-len", "4096", "--recompute", "full", "--json"});
    REQUIRE(run.exit_code != 2);
    const nlohmann::json json = nlohmann::json::parse(run.out);
    CHECK(json["cluster"]["gpus"] == 128);
    return json["time"]["breakdown"]["ep_comm"].get<double>();
  };
  const double nvl72 = ep_comm("2x64xGB300-NVL72");
  const double hgx = ep_comm("16x8xB300");
  const double amd = ep_comm("16x8xMI355X");
  CHECK(nvl72 > 0.0);
  CHECK(nvl72 < hgx / 2.0);
  CHECK(hgx < amd);
  // 72 GPUs per NVLink domain at most, as for GB200.
  CHECK(test::run({"estimate", "--model", "deepseek-v3", "--cluster", "1x73xGB300-NVL72"}).exit_code == 2);
}

TEST_CASE("estimate says how sure its step time is: the held-out group it is like, or unchecked") {
  // verl's quickstart-like colocated RL step on H100: the NeMo RL rows held out by source.
  const auto rl = test::run(kRl);
  CHECK(rl.out.find("Accuracy of the step time: off by a median 7.5% (at most 30.2%) on 29 measured runs") !=
        std::string::npos);
  const auto json = nlohmann::json::parse(test::run(with(kRl, {"--json"})).out);
  CHECK(json["time"]["accuracy"]["group"] == "rl-colocated");
  CHECK(json["time"]["accuracy"]["runs"] == 29);
  CHECK(json["time"]["accuracy"]["max_abs_error"].get<double>() == test::approx(0.302));
  // SGLang rollout: no held-out run was measured with it.
  const auto sglang = test::run(with(kRl, {"--rollout-engine", "sglang"}));
  CHECK(sglang.out.find("Accuracy of the step time: unchecked: no held-out RL run was measured with SGLang") !=
        std::string::npos);
  const auto sglang_json = nlohmann::json::parse(test::run(with(kRl, {"--rollout-engine", "sglang", "--json"})).out);
  CHECK(sglang_json["time"]["accuracy"]["group"].is_null());
  CHECK(sglang_json["time"]["accuracy"]["unchecked"] == "no held-out RL run was measured with SGLang");
  CHECK(json["time"]["accuracy"]["family"].is_null());
}

TEST_CASE("estimate quotes the runs of the model's own family where its group has them: GPT-OSS on GB200") {
  // The Blackwell MoE group's median is 20.7%; its 24 GPT-OSS-120B runs alone are 44.7%, every one
  // predicted faster than measured (docs/accuracy-held-out-training.md "By model family").
  const std::vector<std::string> gpt_oss = {"estimate", "--model", "gpt-oss-120b", "--cluster", "16x4xGB200",
                                            "--workload", "pretrain", "--ep", "64", "--micro-batch", "4",
                                            "--global-batch", "1280", "--seq-len", "4096"};
  const auto text = test::run(gpt_oss);
  CHECK(text.out.find("24 of them are of this model's family (gpt_oss): off by a median 44.7% (at most 82.5%), the "
                      "predicted time shorter than measured by a median 30.6%") != std::string::npos);
  const auto json = nlohmann::json::parse(test::run(with(gpt_oss, {"--json"})).out);
  CHECK(json["time"]["accuracy"]["group"] == "moe-training-blackwell");
  CHECK(json["time"]["accuracy"]["family"]["model_type"] == "gpt_oss");
  CHECK(json["time"]["accuracy"]["family"]["runs"] == 24);
  CHECK(json["time"]["accuracy"]["family"]["median_time_error"].get<double>() == test::approx(-0.306));
  // The other sources' Blackwell runs (Megatron-MoE-ModelZoo and Megatron-LM's DeepSeek-V3 guide;
  // Megatron-Bridge's verification cards).
  CHECK(text.out.find("  measured by another source, 6 runs of Qwen3-235B-A22B and DeepSeek-V3 on GB200 and GB300") !=
        std::string::npos);
  const nlohmann::json& others = json["time"]["accuracy"]["other_sources"];
  REQUIRE(others.size() == 3);
  CHECK(others[0]["source"] == "modelzoo");
  CHECK(others[0]["runs"] == 6);
  CHECK(others[0]["max_abs_error"].get<double>() == test::approx(0.366));
  CHECK(others[1]["source"] == "bridge-cards");
  // NVIDIA's DGX Cloud recipes' DeepSeek-V3 runs on GB200 (NeMo 25.04, no CUDA graphs), predicted
  // twice as fast as measured.
  CHECK(others[2]["source"] == "dgxc");
  CHECK(others[2]["median_time_error"].get<double>() == test::approx(-0.552));
}

TEST_CASE("estimate --moe-dropless-imbalance: each MoE layer waits for its most loaded EP rank") {
  // Qwen3-30B-A3B on 8 H100, EP 8 (16 experts a rank): 1 + 1.067 x sqrt(2 ln 8 / 16) = 1.54 times
  // the mean routed tokens on the slowest rank (docs/accuracy-held-out-training.md, "A second
  // source"). The routed experts' time and the all-to-alls grow by that factor, nothing else.
  const std::vector<std::string> base = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100",
                                         "--workload", "pretrain", "--ep", "8", "--micro-batch", "2",
                                         "--global-batch", "256", "--seq-len", "4096", "--json", "--explain"};
  const auto term = [](const nlohmann::json& json, const std::string& name) {
    for (const auto& t : json["explain"]) {
      if (t["name"] == name) return t["value"].get<double>();
    }
    return -1.0;
  };
  const auto balanced = nlohmann::json::parse(test::run(base).out);
  const auto dropless = nlohmann::json::parse(test::run(with(base, {"--moe-dropless-imbalance"})).out);
  CHECK(term(dropless, "time/compute/routed_experts") ==
        test::approx(1.544 * term(balanced, "time/compute/routed_experts")).epsilon(0.001));
  CHECK(term(dropless, "time/ep_comm") == test::approx(1.544 * term(balanced, "time/ep_comm")).epsilon(0.001));
  CHECK(term(dropless, "time/compute/dense_gemm") == test::approx(term(balanced, "time/compute/dense_gemm")));
  CHECK(dropless["time"]["step_seconds"].get<double>() > balanced["time"]["step_seconds"].get<double>());
  // The assumption is printed either way, with the factor, for a MoE model with EP > 1: a config
  // does not say how balanced its router keeps the tokens.
  const auto text = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--workload", "pretrain",
                               "--ep", "8", "--micro-batch", "2", "--global-batch", "256", "--seq-len", "4096"});
  CHECK(text.out.find("MoE routing: every EP rank given the mean routed tokens, as force-balanced benchmarks run; "
                      "dropless with a router as uneven as Qwen3's the most loaded rank carries about 1.54x (EP 8, 16 experts a "
                      "rank), which --moe-dropless-imbalance costs") != std::string::npos);
  CHECK(balanced["time"]["moe_routing"]["dropless_imbalance"] == false);
  CHECK(dropless["time"]["moe_routing"]["dropless_imbalance"] == true);
  CHECK(dropless["time"]["moe_routing"]["most_loaded_rank_factor"].get<double>() == test::approx(1.544).epsilon(0.001));
  const auto no_ep = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--workload", "pretrain",
                                "--micro-batch", "1", "--global-batch", "256", "--seq-len", "4096", "--json"});
  CHECK(nlohmann::json::parse(no_ep.out)["time"]["moe_routing"].is_null());  // EP 1: no rank to wait for
  // plan takes the flag too: every candidate is costed with it.
  const auto plan = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--workload", "pretrain",
                               "--global-batch", "256", "--top", "1", "--moe-dropless-imbalance"});
  CHECK_MESSAGE(plan.exit_code == 0, plan.err);
  // and says, under the table, what its winner's time assumes: here EP 4 (32 experts a rank),
  // 1 + 1.067 x sqrt(2 ln 4 / 32) = 1.31.
  CHECK(plan.out.find("MoE routing: dropless with a trained router's imbalance: each MoE layer waits for its most "
                      "loaded EP rank, 1.31x the mean routed tokens (EP 4, 32 experts a rank") != std::string::npos);
  const auto planned = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x8xGB200", "--workload", "pretrain",
                                  "--global-batch", "512", "--top", "1"});
  CHECK(planned.out.find("MoE routing: every EP rank given the mean routed tokens, as force-balanced benchmarks run; "
                         "dropless with a router as uneven as Qwen3's the most loaded rank carries about 1.54x (EP 8, 16 experts a "
                         "rank)") != std::string::npos);
}

}  // namespace
TEST_CASE("estimate --explain names attention's kernel and head dim: cuDNN under Megatron-core, FlashAttention-2 under FSDP on Hopper") {
  // The FlashAttention-3 paper's H100 bars: cuDNN 0.388 of the peak at 4k causal keys,
  // FlashAttention-2 0.244 (tests/cost/time/attention_kernels_test.cpp works both by hand).
  const std::vector<std::string> base = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100",
                                         "--workload", "pretrain", "--seq-len", "4096", "--micro-batch", "1",
                                         "--global-batch", "64", "--explain"};
  const auto megatron = test::run(base);
  CHECK(megatron.out.find("kernel=cudnn, head_dim=128, kernel_share=0.388") != std::string::npos);
  const auto fsdp = test::run(with(base, {"--backend", "fsdp"}));
  CHECK(fsdp.out.find("kernel=flash_attention_2, head_dim=128, kernel_share=0.244") != std::string::npos);
  // On Ampere the flash-attn package's kernels are that generation's own: cuDNN's share is taken.
  std::vector<std::string> a100 = with(base, {"--backend", "fsdp"});
  a100[4] = "1x8xA100-80GB";
  CHECK(test::run(a100).out.find("kernel=cudnn, head_dim=128, kernel_share=0.388") != std::string::npos);
  // gpt-oss on GB200: cuDNN's bars measured there; head dim 64 (0.364 at 4k causal keys: GB200's head
  // dim 128 bar scaled by H100's 64 / 128 ratio) and its 18 sliding-window layers at the 128-key
  // window cuDNN measured on GB200, 0.067 (attention_kernels_test.cpp works both by hand).
  const auto gpt_oss = test::run({"estimate", "--model", "gpt-oss-120b", "--cluster", "16x4xGB200", "--workload",
                                  "pretrain", "--ep", "64", "--micro-batch", "4", "--global-batch", "1280",
                                  "--seq-len", "4096", "--explain"});
  CHECK(gpt_oss.out.find("kernel=cudnn (GB200 bars), head_dim=64, kernel_share=0.364, window=128 keys on 18 layers "
                         "at kernel_share=0.067") != std::string::npos);
}

TEST_CASE("estimate says gpt-oss's sink attention is costed fused, which needs a recent cuDNN") {
  // Transformer Engine runs learnable-softmax sinks fused only with a recent cuDNN
  // (NVIDIA-NeMo/RL#1685: fused with 9.13.1, unfused with 9.10.2); the estimate names the condition.
  const std::vector<std::string> gpt_oss = {"estimate", "--model", "gpt-oss-120b", "--cluster", "16x4xGB200",
                                            "--workload", "pretrain", "--ep", "64", "--micro-batch", "4",
                                            "--global-batch", "1280", "--seq-len", "4096"};
  const std::string line = "Attention: the sinks (learnable softmax offsets) costed on a fused kernel; Transformer "
                           "Engine runs them fused only with a recent cuDNN (9.13.1 did, 9.10.2 fell back to unfused "
                           "attention: NVIDIA-NeMo/RL#1685;";
  CHECK(test::run(gpt_oss).out.find(line) != std::string::npos);
  const auto json = nlohmann::json::parse(test::run(with(gpt_oss, {"--json"})).out);
  REQUIRE(json["time"]["attention_caveat"].is_string());
  CHECK(json["time"]["attention_caveat"].get<std::string>().rfind(line, 0) == 0);
  // A model without sinks carries no caveat.
  const auto qwen = nlohmann::json::parse(
      test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--workload", "pretrain",
                 "--seq-len", "4096", "--micro-batch", "1", "--global-batch", "64", "--json"})
          .out);
  CHECK(qwen["time"]["attention_caveat"].is_null());
  CHECK(test::run({"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--workload", "pretrain",
                   "--seq-len", "4096", "--micro-batch", "1", "--global-batch", "64"})
            .out.find("Attention: ") == std::string::npos);
}


TEST_CASE("estimate says what a MoE step launched from Grace would take at Grace's measured per-op host time") {
  // Qwen3-30B-A3B on one GB200 tray of 8, EP 8, no graphs: the MoE layers wait on the host
  // (6.34 s of 7.49 s); at Grace's 2.75x (the catalog's host_op_time_ratio, TransformerEngine #2053)
  // 12.50 s more (host_cpu_sensitivity_test.cpp works it by hand).
  const std::vector<std::string> args = {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "1x8xGB200-NVL72",
                                         "--workload", "pretrain", "--seq-len", "4096", "--global-batch", "64",
                                         "--ep", "8"};
  const auto text = test::run(args);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("Host CPU: GB200-NVL72 launches from a host whose per-op time is 2.75x the x86 hosts' the MoE "
                      "host time was fit on (the catalog's host_op_time_ratio); at that ratio moe_host_wait would be "
                      "18.84 s and the step 19.99 s (+166.8%). Of 73 held-out GB200 / GB300 MoE runs launched from "
                      "the host, 57 measured between the two estimates, 11 slower than both") != std::string::npos);
  const auto json = nlohmann::json::parse(test::run(with(args, {"--json"})).out);
  REQUIRE(json["time"]["host_cpu"].is_object());
  CHECK(json["time"]["host_cpu"]["host_op_time_ratio"] == 2.75);
  CHECK(json["time"]["host_cpu"]["step_seconds"].get<double>() - json["time"]["step_seconds"].get<double>() ==
        test::approx(1.75 * 6.2e-3 * 48 * 3 * 8));
  CHECK(json["time"]["host_cpu"]["between"] == 57);
  // Graphed whole (full_iteration), or on an x86 host: nothing to say.
  const auto graphed = nlohmann::json::parse(test::run(with(args, {"--cuda-graph-impl", "full_iteration", "--json"})).out);
  CHECK(graphed["time"]["host_cpu"].is_null());
  std::vector<std::string> h100 = args;
  h100[4] = "1x8xH100-80GB";
  const auto x86 = test::run(h100);
  REQUIRE_MESSAGE(x86.exit_code <= 1, x86.err);  // 1: the layout does not fit 80 GB
  CHECK(x86.out.find("Host CPU:") == std::string::npos);
}

}  // namespace meshplan
