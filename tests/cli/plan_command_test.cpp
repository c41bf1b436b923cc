#include <doctest/doctest.h>

#include <cmath>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

std::vector<std::string> plan_args(std::vector<std::string> extra) {
  std::vector<std::string> args = {"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                                   "--workload", "rl", "--global-batch", "64", "--mini-batch", "16",
                                   "--rollout-n", "4", "--prompt-len", "512", "--response-len", "1024"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::filesystem::path scratch_file(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("meshplan_plan_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("plan: bad input names the flag and exits 2") {
  for (const auto& [extra, key] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--fix", "tq=2"}, "--fix"},
           {{"--fix", "tp=two"}, "--fix"},
           {{"--objective", "speed"}, "--objective"},
           {{"--headroom", "1.5"}, "--headroom"},
           {{"--emit", "docker"}, "--emit"},
           {{"--gpu-memory-utilization", "1.2"}, "--gpu-memory-utilization"},
           {{"--rollout-engine", "trt"}, "--rollout-engine"},
           {{"--mini-batch", "100"}, "--mini-batch"}}) {
    const test::CliRun run = test::run(plan_args(extra));
    CHECK_MESSAGE(run.exit_code == 2, key);
    CHECK_MESSAGE(run.err.find(key) != std::string::npos, run.err);
  }
  const test::CliRun pretrain_verl =
      test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--emit", "verl"});
  CHECK(pretrain_verl.exit_code == 2);
  CHECK(test::run({"plan", "--model", "no-such-model", "--cluster", "1x8xA100-80GB"}).exit_code == 2);
  CHECK(test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xNOPE"}).exit_code == 2);
}

TEST_CASE("plan --json: counts add up, top K with estimates, Pareto, explanation") {
  const test::CliRun run = test::run(plan_args({"--json", "--top", "3"}));
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json out = json::parse(run.out);
  CHECK(out["schema_version"] == 1);
  std::int64_t rejected = 0;
  for (const auto& [rule, count] : out["rejected"].items()) rejected += count.get<std::int64_t>();
  CHECK(out["feasible"].get<std::int64_t>() + rejected == out["searched"].get<std::int64_t>());
  REQUIRE(out["candidates"].size() == 3);
  const json& best = out["candidates"][0];
  CHECK(best["rank"] == 1);
  CHECK(best["gpus"] == 8);
  CHECK(best["tokens_per_second"].get<double>() > 0);
  CHECK(best["estimate"]["memory"]["phases"].size() > 0);
  CHECK(best["estimate"]["time"]["step_seconds"].get<double>() > 0);
  CHECK(best["peak_bytes"].get<double>() <= out["usable_bytes"].get<double>());
  // Ranked by throughput.
  CHECK(best["tokens_per_second"].get<double>() >= out["candidates"][1]["tokens_per_second"].get<double>());
  // The Pareto frontier ascends in memory and throughput.
  const json& pareto = out["pareto"];
  REQUIRE(pareto.size() > 0);
  for (std::size_t i = 1; i < pareto.size(); ++i) {
    CHECK(pareto[i]["peak_bytes"].get<double>() > pareto[i - 1]["peak_bytes"].get<double>());
    CHECK(pareto[i]["tokens_per_second"].get<double>() > pareto[i - 1]["tokens_per_second"].get<double>());
  }
  CHECK(out["explanation"]["rule_of_thumb"].get<std::string>().find("7.6B") != std::string::npos);
  // A100: no held-out measured run covers the generation, the times are unchecked.
  CHECK(best["estimate"]["time"]["accuracy"]["group"].is_null());
  CHECK(best["estimate"]["time"]["accuracy"]["unchecked"] == "no held-out run was measured on Ampere GA100 GPUs");
}

TEST_CASE("plan --json: each candidate's estimate is the one it was ranked by, under the plan's MoE routing") {
  // Before: the JSON re-estimated every candidate with default options, so with
  // --moe-dropless-imbalance its estimate.time.step_seconds was the force-balanced one, not its
  // step_seconds.
  const test::CliRun run = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x8xH100", "--workload",
                                      "pretrain", "--seq-len", "4096", "--global-batch", "256", "--fix", "ep=8",
                                      "--top", "2", "--moe-dropless-imbalance", "--json"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json out = json::parse(run.out);
  REQUIRE(out["candidates"].size() == 2);
  for (const json& candidate : out["candidates"]) {
    CHECK(candidate["estimate"]["time"]["step_seconds"].get<double>() ==
          test::approx(candidate["step_seconds"].get<double>()));
  }
}

TEST_CASE("plan says the winner's sink attention is costed fused, which needs a recent cuDNN (gpt-oss)") {
  const test::CliRun gpt_oss = test::run({"plan", "--model", "gpt-oss-20b", "--cluster", "1x8xH100", "--workload",
                                          "pretrain", "--global-batch", "64", "--seq-len", "4096", "--top", "1"});
  REQUIRE_MESSAGE(gpt_oss.exit_code == 0, gpt_oss.err);
  CHECK(gpt_oss.out.find("\nAttention: the sinks (learnable softmax offsets) costed on a fused kernel; Transformer "
                         "Engine runs them fused only with a recent cuDNN") != std::string::npos);
  const test::CliRun qwen = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100", "--workload",
                                       "pretrain", "--global-batch", "64", "--seq-len", "4096", "--top", "1"});
  REQUIRE_MESSAGE(qwen.exit_code == 0, qwen.err);
  CHECK(qwen.out.find("\nAttention: ") == std::string::npos);
}

TEST_CASE("plan says what the winner's MoE step would take launched from Grace at its measured per-op host time") {
  const std::vector<std::string> args = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x4xGB200-NVL72",
                                         "--workload", "pretrain", "--global-batch", "256", "--seq-len", "4096"};
  const test::CliRun text = test::run(args);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("\nHost CPU: GB200-NVL72 launches from a host whose per-op time is 2.75x") != std::string::npos);
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const json out = json::parse(test::run(json_args).out);
  REQUIRE(!out["candidates"].empty());
  for (const json& candidate : out["candidates"]) {
    const json& host = candidate["estimate"]["time"]["host_cpu"];
    REQUIRE(host.is_object());
    CHECK(host["host_op_time_ratio"] == 2.75);
    CHECK(host["step_seconds"].get<double>() >= candidate["estimate"]["time"]["step_seconds"].get<double>());
  }
  // On H100 (an x86 host, as the fit's) the line is absent and the field null.
  std::vector<std::string> h100 = args;
  h100[4] = "2x8xH100-80GB";
  const test::CliRun x86 = test::run(h100);
  REQUIRE_MESSAGE(x86.exit_code == 0, x86.err);
  CHECK(x86.out.find("Host CPU:") == std::string::npos);
}

TEST_CASE("plan says how sure its step times are: the winner's held-out group, in the text and each candidate") {
  const std::vector<std::string> args = {"plan", "--model", "qwen3-30b-a3b", "--cluster", "2x8xH100-80GB",
                                         "--workload", "pretrain", "--global-batch", "256", "--seq-len", "4096"};
  const test::CliRun text = test::run(args);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("Accuracy of the step time: off by a median 19.6% (at most 52.0%) on 17 measured runs") !=
        std::string::npos);
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const json out = json::parse(test::run(json_args).out);
  for (const json& candidate : out["candidates"]) {
    const json& accuracy = candidate["estimate"]["time"]["accuracy"];
    // Megatron-core candidates are like the held-out H100 MoE runs; FSDP ones are unchecked.
    if (candidate["strategy"]["backend"] == "megatron") {
      CHECK(accuracy["group"] == "moe-training-hopper");
    } else {
      CHECK(accuracy["group"].is_null());
    }
  }
}

TEST_CASE("plan --fix pins dimensions, --objective memory ranks by peak") {
  const json fixed = json::parse(test::run(plan_args({"--json", "--fix", "tp=2,backend=megatron", "--rollout-tp", "4"})).out);
  REQUIRE(fixed["candidates"].size() > 0);
  for (const json& candidate : fixed["candidates"]) {
    CHECK(candidate["strategy"]["tp"] == 2);
    CHECK(candidate["strategy"]["rl"]["rollout_tp"] == 4);
  }
  const json memory = json::parse(test::run(plan_args({"--json", "--objective", "memory"})).out);
  REQUIRE(memory["candidates"].size() > 1);
  CHECK(memory["candidates"][0]["peak_bytes"].get<double>() <= memory["candidates"][1]["peak_bytes"].get<double>());
}

TEST_CASE("plan --rollout-engine trtllm --rollout-quantization fp8: planned with both, emitted with both") {
  const test::CliRun emitted = test::run(plan_args({"--top", "1", "--rollout-engine", "trtllm", "--rollout-quantization",
                                                     "fp8", "--emit", "verl"}));
  CHECK(emitted.exit_code == 0);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.name=trtllm") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.rollout.quantization=fp8") != std::string::npos);
  // Qwen2.5-7B's vLLM engine at rollout TP 1 and a pinned utilization: its weights in fp8 hold
  // 6,525,417,472 linear weights at a byte (the embedding, LM head and norms, 1,090,199,040, at
  // two), so the KV cache gets 15,231,233,024 - 8,705,815,552 = 6,525,417,472 bytes more.
  const auto kv_bytes = [](const std::string& quantization) {
    const json planned = json::parse(test::run(plan_args({"--json", "--top", "1", "--fix", "rollout_tp=1",
                                                          "--gpu-memory-utilization", "0.4", "--rollout-quantization",
                                                          quantization}))
                                         .out);
    REQUIRE(planned["candidates"].size() == 1);
    return planned["candidates"][0]["estimate"]["memory"]["rollout"]["kv_cache_bytes"].get<double>();
  };
  CHECK(kv_bytes("fp8") - kv_bytes("none") == test::approx(6525417472.0).epsilon(1e-9));
}

TEST_CASE("plan: nothing fits -> exit 1 with the closest miss and what would make it fit") {
  // Llama-3.1-70B pretraining on one 24 GB A10: 70B parameters need ~1.1 TB of states.
  const test::CliRun run = test::run({"plan", "--model", "llama-3.1-70b", "--cluster", "1x1xA10"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("nothing fits") != std::string::npos);
  CHECK(run.out.find("Closest miss") != std::string::npos);
  CHECK(run.out.find("what would make it fit") != std::string::npos);
  CHECK(run.out.find("nothing tried lowers the peak") != std::string::npos);
  const test::CliRun with_json = test::run({"plan", "--model", "llama-3.1-70b", "--cluster", "1x1xA10", "--json"});
  CHECK(with_json.exit_code == 1);
  const json out = json::parse(with_json.out);
  CHECK(out["feasible"] == 0);
  CHECK(out["candidates"].empty());
  CHECK(out.contains("closest_miss"));
  // Offloading or more GPUs do not lower this peak (its optimizer states are already offloaded):
  // no remedy is offered rather than one that does not help (issue 17).
  CHECK(out["remedies"].empty());
}

TEST_CASE("plan --min-gpus: the smallest count of the GPU type that fits") {
  // Qwen2.5-7B pretraining (seq 4096, batch 256): the full cluster fits, and so does the count
  // found; one GPU fewer than it (a power of two below a node, or a node fewer) does not.
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xA100-80GB",
                                      "--min-gpus", "--json", "--top", "1"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json out = json::parse(run.out);
  REQUIRE(out.contains("min_gpus"));
  CHECK(out["min_gpus"].get<int>() >= 1);
  CHECK(out["min_gpus"].get<int>() <= 16);
}

TEST_CASE("plan --html writes the report, --emit prints only the launch") {
  const std::filesystem::path html = scratch_file("plan.html");
  const test::CliRun run = test::run(plan_args({"--html", html.string()}));
  REQUIRE(run.exit_code == 0);
  std::ifstream in(html);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find("<svg id=\"pareto-chart\"") != std::string::npos);
  CHECK(text.str().find("<p id=\"accuracy\">Accuracy of the step time: unchecked: no held-out run was measured on "
                        "Ampere GA100 GPUs") != std::string::npos);
  const test::CliRun emitted = test::run(plan_args({"--emit", "verl", "--model-path", "Qwen/Qwen2.5-7B-Instruct"}));
  REQUIRE(emitted.exit_code == 0);
  CHECK(emitted.out.rfind("#!/usr/bin/env bash\n", 0) == 0);
  CHECK(emitted.out.find("MODEL_PATH=${MODEL_PATH:-Qwen/Qwen2.5-7B-Instruct}\n") != std::string::npos);
  CHECK(emitted.out.find("actor_rollout_ref.model.path=\"$MODEL_PATH\"") != std::string::npos);
  CHECK(emitted.out.find("trainer.n_gpus_per_node=8") != std::string::npos);
  CHECK(emitted.err.find("emitted the winner") != std::string::npos);
}

TEST_CASE("plan: a heterogeneous cluster runs fp16 everywhere when a group lacks bf16") {
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster",
                                      "1x8xA100-80GB+1x8xV100-32GB", "--json", "--top", "1"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json out = json::parse(run.out);
  CHECK(out["heterogeneous"]["compute_dtype"] == "fp16");
  CHECK(out["candidates"][0]["strategy"]["compute_dtype"] == "fp16");
  CHECK(out["heterogeneous"]["explanation"].size() >= 3);
}

TEST_CASE("plan --emit megatron: the pipeline across two GPU groups, one stage per group by NODE_RANK") {
  // 2x8 A100-80GB (fp16 dense 312 TFLOP/s x 16 = 4992) + 2x8 V100-32GB (125 x 16 = 2000): the 28
  // layers of Qwen2.5-7B split 20 : 8 (20/4992 = 8/2000 = 0.0040 s per TFLOP/s), so stage 0 (the
  // A100 nodes, NODE_RANK 0-1) takes 20 layers and stage 1 (V100, NODE_RANK 2-3) 8, in fp16.
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster",
                                      "2x8xA100-80GB+2x8xV100-32GB", "--emit", "megatron"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  for (const char* line : {"--pipeline-model-parallel-size 2", "--decoder-first-pipeline-num-layers 20",
                           "--decoder-last-pipeline-num-layers 8", "#   stage 0: NODE_RANK 0-1 on the A100-80GB nodes",
                           "#   stage 1: NODE_RANK 2-3 on the V100-32GB nodes", "--fp16", "--nnodes 4"}) {
    CHECK_MESSAGE(run.out.find(line) != std::string::npos, line);
  }
  CHECK(run.err.find("emitted the pipeline across the groups") != std::string::npos);
}

TEST_CASE("plan --emit verl on mixed GPUs says the heterogeneous choice is not in the launch") {
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-7b-instruct", "--cluster",
                                      "2x8xA100-80GB+2x8xV100-32GB", "--workload", "rl", "--emit", "verl"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(run.out.find("trainer.nnodes=2") != std::string::npos);  // the A100 group alone
  CHECK(run.err.find("is not in this launch: use --emit megatron") != std::string::npos);
}

TEST_CASE("plan: a vision-language model gets a data-loader worker count") {
  const test::CliRun run = test::run({"plan", "--model", "qwen2.5-vl-7b-instruct", "--cluster", "1x8xA100-80GB",
                                      "--workload", "rl", "--global-batch", "64", "--mini-batch", "16",
                                      "--rollout-n", "4", "--json", "--top", "1"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json out = json::parse(run.out);
  CHECK(out["data_loader"]["images_per_step"] == 64);
  // 64 images of 448 x 448 at 0.4 s per megapixel: 64 x 0.0803 s = 5.14 CPU-seconds per step.
  CHECK(out["data_loader"]["cpu_seconds_per_step"].get<double>() == test::approx(64 * 0.0802816));
  CHECK(out["data_loader"]["dataloader_num_workers"].get<int>() >= 1);

  // A measured 2 s per image (large images, slow processor): 128 CPU-seconds per step need
  // ceil(128 / step seconds) workers.
  const test::CliRun slow = test::run({"plan", "--model", "qwen2.5-vl-7b-instruct", "--cluster", "1x8xA100-80GB",
                                       "--workload", "rl", "--global-batch", "64", "--mini-batch", "16",
                                       "--rollout-n", "4", "--cpu-ms-per-image", "2000", "--json", "--top", "1"});
  REQUIRE_MESSAGE(slow.exit_code == 0, slow.err);
  const json slow_out = json::parse(slow.out);
  const double step = slow_out["candidates"][0]["step_seconds"].get<double>();
  CHECK(slow_out["data_loader"]["dataloader_num_workers"].get<int>() == static_cast<int>(std::ceil(128.0 / step)));
}

TEST_CASE("plan --mtp: every candidate trains the MTP layers, and the emitted launch builds them") {
  const std::vector<std::string> base = {"plan", "--model", "glm-4.5-air", "--cluster", "4x8xH100",
                                         "--global-batch", "256", "--emit", "megatron"};
  const test::CliRun plain = test::run(base);
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  CHECK(plain.out.find("--mtp-num-layers") == std::string::npos);
  std::vector<std::string> with_mtp = base;
  with_mtp.push_back("--mtp");
  const test::CliRun mtp = test::run(with_mtp);
  REQUIRE_MESSAGE(mtp.exit_code == 0, mtp.err);
  CHECK(mtp.out.find("--mtp-num-layers 1 \\") != std::string::npos);
  const test::CliRun none = test::run({"plan", "--model", "qwen3-8b", "--cluster", "1x8xH100", "--mtp"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("--mtp") != std::string::npos);
}

}  // namespace meshplan
