// Fixes of a memory finding are re-estimated with the fix applied: each one, applied to the
// launch, clears the shortfall (when it says "fits") or lowers the peak (when it says "still
// short"), which also proves it is not the value the launch already has.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "verl/check_support.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "verl/check.hpp"

namespace meshplan {
namespace {

struct ListedFix {
  std::vector<std::string> overrides;
  bool fits = false;
};

// "...; re-estimated fixes, cheapest first: a=1 b=2 -> peak 30.1 GiB in update_actor (fits), ...; c=3 -> ..."
std::vector<ListedFix> listed_fixes(const std::string& message) {
  std::vector<ListedFix> out;
  const std::string marker = "re-estimated fixes, cheapest first: ";
  std::size_t at = message.find(marker);
  if (at == std::string::npos) return out;
  at += marker.size();
  while (at < message.size()) {
    const std::size_t end = message.find("; ", at);
    const std::string item = message.substr(at, end == std::string::npos ? std::string::npos : end - at);
    ListedFix fix;
    const std::string lines = item.substr(0, item.find(" -> "));
    std::size_t start = 0;
    while (start < lines.size()) {
      const std::size_t space = lines.find(' ', start);
      fix.overrides.push_back(lines.substr(start, space == std::string::npos ? std::string::npos : space - start));
      if (space == std::string::npos) break;
      start = space + 1;
    }
    fix.fits = item.find("(fits)") != std::string::npos;
    out.push_back(fix);
    if (end == std::string::npos) break;
    at = end + 2;
  }
  return out;
}

double gib_of(const std::string& value) { return std::stod(value.substr(0, value.find(' '))); }

CheckOptions on(const std::string& model, const std::string& gpu) {
  CheckOptions options;
  options.model = *parse_model_config(*find_model_preset_config(model), model);
  options.gpu = *find_gpu(builtin_gpu_catalog(), gpu);
  return options;
}

void check_fixes(const std::vector<std::string>& launch, const CheckOptions& options, const std::string& rule) {
  const CheckReport report = test::check_lines(launch, "ppo_trainer", options);
  const std::vector<Finding> found = test::findings_of(report, rule);
  REQUIRE(found.size() == 1);
  const std::vector<ListedFix> fixes = listed_fixes(found[0].message);
  REQUIRE_MESSAGE(!fixes.empty(), found[0].message);
  for (const ListedFix& fix : fixes) {
    for (const std::string& line : fix.overrides) {
      CHECK_MESSAGE(std::find(launch.begin(), launch.end(), line) == launch.end(), line << " is already set");
    }
    const CheckReport applied = test::check_lines(test::with(launch, fix.overrides), "ppo_trainer", options);
    const std::vector<Finding> after = test::findings_of(applied, rule);
    const std::string what = fix.overrides.front();
    if (fix.fits) {
      CHECK_MESSAGE(after.empty(), what << " was said to fit");
    } else if (!after.empty()) {
      CHECK_MESSAGE(gib_of(after[0].value) < gib_of(found[0].value), what << " was said to lower the peak");
    }
  }
}

TEST_CASE("every suggested memory fix, applied, fits or lowers the peak, none is already set") {
  // Qwen2.5-7B GRPO with FSDP on 2 x A100-40GB, 4 sequences per micro-batch: does not fit.
  const std::vector<std::string> launch = {
      "algorithm.adv_estimator=grpo", "data.train_batch_size=64", "data.max_prompt_length=512",
      "data.max_response_length=1024", "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct",
      "actor_rollout_ref.actor.ppo_mini_batch_size=16", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16",
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16", "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.n=4", "trainer.n_gpus_per_node=2", "trainer.nnodes=1"};
  check_fixes(launch, on("qwen2.5-7b-instruct", "A100-40GB"), "memory.phase-oom");
}

TEST_CASE("under use_dynamic_bsz the fixes are token budgets, never micro-batch sizes") {
  const std::vector<std::string> launch = {
      "algorithm.adv_estimator=grpo", "data.train_batch_size=64", "data.max_prompt_length=1024",
      "data.max_response_length=4096", "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct",
      "actor_rollout_ref.actor.ppo_mini_batch_size=16", "actor_rollout_ref.actor.use_dynamic_bsz=True",
      "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=65536", "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.n=4", "trainer.n_gpus_per_node=2", "trainer.nnodes=1"};
  const CheckOptions options = on("qwen2.5-7b-instruct", "A100-40GB");
  const CheckReport report = test::check_lines(launch, "ppo_trainer", options);
  const std::vector<Finding> found = test::findings_of(report, "memory.phase-oom");
  REQUIRE(found.size() == 1);
  for (const std::string& line : found[0].fix) CHECK(line.find("micro_batch_size") == std::string::npos);
  check_fixes(launch, options, "memory.phase-oom");
}

TEST_CASE("check: the KV cache below one max_model_len sequence is an error with a gpu_memory_utilization that works") {
  const std::vector<std::string> launch = {
      "algorithm.adv_estimator=grpo", "data.train_batch_size=64", "data.max_prompt_length=1024",
      "data.max_response_length=8192", "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct",
      "actor_rollout_ref.actor.ppo_mini_batch_size=16", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1", "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.tensor_model_parallel_size=1", "actor_rollout_ref.rollout.gpu_memory_utilization=0.2",
      "actor_rollout_ref.rollout.n=4", "trainer.n_gpus_per_node=8", "trainer.nnodes=1"};
  const CheckOptions options = on("qwen2.5-7b-instruct", "H100-80GB");
  const CheckReport report = test::check_lines(launch, "ppo_trainer", options);
  const std::vector<Finding> found = test::findings_of(report, "memory.kv-below-max-model-len");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].message.find("vLLM refuses to start") != std::string::npos);
  check_fixes(launch, options, "memory.kv-below-max-model-len");
}


TEST_CASE("a MoE whose rollout replicas hold the whole model: the fixes include data-parallel engines with EP") {
  // Qwen3-30B-A3B (57 GiB of bf16 engine weights) at rollout TP 1 on 16 H100 with
  // gpu_memory_utilization 0.7: no room for a KV cache. Two engines a replica halve the expert
  // weights per GPU (verl's own EP example runs TP 1 x DP 4 with expert_parallel_size 4,
  // examples/gspo_trainer/test_gspo_qwen30b_a3b_ep.sh); every listed fix is re-checked by
  // check_fixes, and the DP one sets expert_parallel_size = TP x DP.
  const std::vector<std::string> launch = {
      "algorithm.adv_estimator=grpo", "data.train_batch_size=64", "data.max_prompt_length=1024",
      "data.max_response_length=4096", "actor_rollout_ref.model.path=Qwen/Qwen3-30B-A3B",
      "actor_rollout_ref.actor.ppo_mini_batch_size=16", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1", "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.tensor_model_parallel_size=1", "actor_rollout_ref.rollout.gpu_memory_utilization=0.7",
      "actor_rollout_ref.actor.fsdp_config.param_offload=True", "actor_rollout_ref.actor.fsdp_config.optimizer_offload=True",
      "actor_rollout_ref.rollout.n=4", "trainer.n_gpus_per_node=8", "trainer.nnodes=2"};
  const CheckOptions options = on("qwen3-30b-a3b", "H100-80GB");
  const CheckReport report = test::check_lines(launch, "ppo_trainer", options);
  const std::vector<Finding> found = test::findings_of(report, "memory.no-kv-cache");
  REQUIRE(found.size() == 1);
  const std::vector<ListedFix> fixes = listed_fixes(found[0].message);
  const auto with_dp = std::find_if(fixes.begin(), fixes.end(), [](const ListedFix& fix) {
    return std::find(fix.overrides.begin(), fix.overrides.end(), "actor_rollout_ref.rollout.data_parallel_size=2") !=
           fix.overrides.end();
  });
  REQUIRE_MESSAGE(with_dp != fixes.end(), found[0].message);
  CHECK(std::find(with_dp->overrides.begin(), with_dp->overrides.end(),
                  "actor_rollout_ref.rollout.expert_parallel_size=2") != with_dp->overrides.end());
  CHECK(with_dp->fits);
  check_fixes(launch, options, "memory.no-kv-cache");
}

}  // namespace
}  // namespace meshplan
