#include "verl_runs.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan::test {

Phases predicted_at(std::vector<std::string> args, int mean_response_len) {
  args.insert(args.end(), {"--json", "--mean-response-len", std::to_string(mean_response_len)});
  const CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);
  const nlohmann::json time = nlohmann::json::parse(run.out)["time"];
  Phases phases;
  phases.step = time["step_seconds"].get<double>();
  for (const auto& phase : time["phases"]) {
    const double seconds = phase["seconds"].get<double>();
    if (phase["name"] == "timing_s/gen") phases.gen = seconds;
    if (phase["name"] == "timing_s/old_log_prob") phases.old_log_prob = seconds;
    if (phase["name"] == "timing_s/update_actor") phases.update_actor = seconds;
  }
  return phases;
}

Phases at_measured_log_prob(const std::vector<std::string>& run, double old_log_prob, int& mean_response_len) {
  int low = 100, high = 8192;
  REQUIRE(predicted_at(run, low).old_log_prob < old_log_prob);
  REQUIRE(predicted_at(run, high).old_log_prob > old_log_prob);
  while (high - low > 8) {
    const int mid = (low + high) / 2;
    (predicted_at(run, mid).old_log_prob < old_log_prob ? low : high) = mid;
  }
  mean_response_len = high;
  const Phases at = predicted_at(run, high);
  MESSAGE("mean response " << high << " tokens: gen " << at.gen << " s, old_log_prob " << at.old_log_prob
                           << " s, update_actor " << at.update_actor << " s, step " << at.step << " s");
  return at;
}

std::vector<std::string> qwen25_7b_run(const std::vector<std::string>& layout) {
  std::vector<std::string> args = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xH20", "--workload",
                                   "rl", "--rollout-n", "16", "--global-batch", "512", "--mini-batch", "32",
                                   "--prompt-len", "2048", "--mean-prompt-len", "150", "--gpu-memory-utilization", "0.8",
                                   "--no-reference", "--no-async-scheduling", "--enforce-eager"};
  args.insert(args.end(), layout.begin(), layout.end());
  return args;
}

std::vector<std::string> megatron_colocated_7b() {
  return qwen25_7b_run({"--tp", "2", "--pp", "2", "--rollout-tp", "2", "--response-len", "8192", "--ppo-micro-batch",
                        "2", "--log-prob-micro-batch", "4", "--offload", "params,grads,optimizer",
                        "--max-num-batched-tokens", "10240"});
}

std::vector<std::string> fsdp2_colocated_7b() {
  return qwen25_7b_run({"--fsdp", "--ulysses", "4", "--fsdp-shard-size", "2", "--recompute", "full", "--rollout-tp",
                        "4", "--response-len", "20480", "--dynamic-bsz", "--ppo-max-token-len", "45056",
                        "--log-prob-max-token-len", "67584", "--offload", "params,optimizer",
                        "--max-num-batched-tokens", "22528"});
}

std::vector<std::string> one_step_off_7b() {
  return {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "2x8xH20", "--workload", "rl", "--tp", "2",
          "--pp", "2", "--rollout-tp", "2", "--rollout-n", "12", "--global-batch", "512", "--mini-batch", "32",
          "--ppo-micro-batch", "2", "--log-prob-micro-batch", "4", "--prompt-len", "2048", "--response-len", "8192",
          "--mean-prompt-len", "150", "--gpu-memory-utilization", "0.8", "--max-num-batched-tokens", "10240", "--no-reference",
          "--no-async-scheduling", "--enforce-eager", "--rollout-gpus", "4", "--off-policy-steps", "1"};
}

std::vector<std::string> qwen3_30b_a3b_h20() {
  return {"estimate", "--model", "qwen3-30b-a3b", "--cluster", "16x8xH20", "--workload", "rl", "--tp", "2", "--cp",
          "2", "--ep", "8", "--etp", "1", "--rollout-tp", "4", "--rollout-n", "16", "--global-batch", "512",
          "--mini-batch", "128", "--prompt-len", "2048", "--response-len", "8192", "--mean-prompt-len", "150",
          "--gpu-memory-utilization", "0.7", "--enforce-eager", "--dynamic-bsz", "--ppo-max-token-len", "10240",
          "--log-prob-max-token-len", "10240", "--max-num-batched-tokens", "10240", "--offload",
          "params,grads,optimizer", "--optimizer-cpu-offload", "--optimizer-offload-fraction", "1", "--ref-offload", "--no-async-scheduling"};
}

std::vector<std::string> deepseek_v3_h20() {
  return {"estimate", "--model", "deepseek-v3", "--cluster", "12x8xH20-96GB", "--workload", "rl", "--tp", "8",
          "--etp", "1", "--pp", "12", "--ep", "8", "--sequence-parallel", "--recompute", "full",
          "--recompute-num-layers", "1", "--rollout-tp", "32", "--rollout-n", "8", "--global-batch", "96",
          "--mini-batch", "32", "--prompt-len", "2048", "--response-len", "9632", "--mean-prompt-len", "256",
          "--gpu-memory-utilization", "0.6", "--enforce-eager", "--dynamic-bsz", "--ppo-max-token-len", "11680",
          "--log-prob-max-token-len", "11680", "--offload", "params,grads,optimizer", "--optimizer-cpu-offload", "--optimizer-offload-fraction",
          "1", "--last-stage-layers", "6", "--ref-offload", "--no-async-scheduling"};
}

double v1_trainer_step_s(const std::string& mean_response, const std::vector<std::string>& mode,
                         const std::string& cluster, const std::string& ep) {
  std::vector<std::string> args = {"estimate", "--model", fixture("models/qwen3.6-35b-a3b/config.json").string(),
                                   "--cluster", cluster, "--workload", "rl", "--tp", "2", "--pp", "2", "--cp", "2",
                                   "--ep", ep, "--etp", "1", "--sequence-parallel", "--recompute", "full",
                                   "--recompute-method", "uniform", "--recompute-num-layers", "1", "--offload",
                                   "params,grads,optimizer", "--global-batch", "64", "--mini-batch", "16",
                                   "--rollout-n", "8", "--rollout-tp", "4", "--prompt-len", "2048", "--response-len",
                                   "32768", "--mean-prompt-len", "156", "--mean-response-len", mean_response,
                                   "--dynamic-bsz", "--no-reference", "--json"};
  args.insert(args.end(), mode.begin(), mode.end());
  const CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out)["time"]["step_seconds"].get<double>();
}

std::vector<VerlRun> verl_measured_runs() {
  // The 7B runs at the mean response their colocated Megatron run's log-prob pass gives (119 s);
  // the FSDP2 run at its own (88 s); the 30B run at its own (28.73 s).
  int megatron_mean = 0, fsdp2_mean = 0, moe_mean = 0;
  const Phases megatron =
      at_measured_log_prob(megatron_colocated_7b(), kMegatronColocated7bMeasured.old_log_prob, megatron_mean);
  const Phases fsdp2 = at_measured_log_prob(fsdp2_colocated_7b(), kFsdp2Colocated7bMeasured.old_log_prob, fsdp2_mean);
  const Phases moe = at_measured_log_prob(qwen3_30b_a3b_h20(), kQwen3MoeH20Measured.old_log_prob, moe_mean);
  const Phases one_step_off = predicted_at(one_step_off_7b(), megatron_mean);
  const std::vector<std::string> separate = {"--rollout-gpus", "16", "--off-policy-steps", "1", "--partial-rollout"};
  const std::vector<std::string> separate_three_nodes = {"--rollout-gpus", "8", "--off-policy-steps", "1",
                                                         "--partial-rollout"};
  return {
      {"verl one-step-off table, colocated Megatron, Qwen2.5-Math-7B, 16 H20", false, megatron.step,
       kMegatronColocated7bMeasured.step},
      {"verl one-step-off table, colocated FSDP2, Qwen2.5-Math-7B, 16 H20", false, fsdp2.step,
       kFsdp2Colocated7bMeasured.step},
      {"verl fully-async table, colocated Megatron, Qwen3-30B-A3B-Base, 128 H20", false, moe.step,
       kQwen3MoeH20Measured.step},
      {"verl perf/dpsk.md, DeepSeek-V3, 96 H20", false, predicted_at(deepseek_v3_h20(), 1960).step,
       kDeepSeekV3H20Measured.step},
      {"verl V1 trainer sync, Qwen3.5-35B-A3B, 32 H100", false, v1_trainer_step_s("12720", {}), kV1SyncStepS},
      {"verl V1 trainer colocate_async, Qwen3.5-35B-A3B, 32 H100", false,
       v1_trainer_step_s("12854", {"--partial-rollout"}), kV1ColocateAsyncStepS},
      {"verl one-step-off table, one-step-off Megatron, Qwen2.5-Math-7B, 16 H20", true, one_step_off.step,
       kOneStepOff7bMeasured.step},
      {"verl V1 trainer separate_async, Qwen3.5-35B-A3B, 32 H100", true, v1_trainer_step_s("12288", separate),
       kV1SeparateAsyncStepS},
      {"verl V1 trainer separate_async, Qwen3.5-35B-A3B, 24 H100", true,
       v1_trainer_step_s("13343", separate_three_nodes, "3x8xH100", "8"), kV1SeparateAsyncThreeNodesStepS},
  };
}

}  // namespace meshplan::test
