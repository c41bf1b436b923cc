#include "check_support.hpp"

#include <doctest/doctest.h>

#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan::test {

std::vector<std::string> fsdp_baseline() {
  return {"actor_rollout_ref.rollout.name=vllm",
          "data.train_batch_size=64",
          "data.max_prompt_length=512",
          "data.max_response_length=512",
          "actor_rollout_ref.actor.ppo_mini_batch_size=16",
          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
          "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4",
          "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4",
          "actor_rollout_ref.rollout.n=4",
          "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
          "algorithm.adv_estimator=grpo",
          "trainer.n_gpus_per_node=8",
          "trainer.nnodes=1"};
}

std::vector<std::string> megatron_baseline() {
  return with(fsdp_baseline(), {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"});
}

CheckOptions with_preset(const std::string& name) {
  CheckOptions options;
  auto model = parse_model_config(*find_model_preset_config(name), name);
  REQUIRE_MESSAGE(model.ok(), name);
  options.model = model.value();
  return options;
}

std::vector<std::string> one_step_off_baseline() {
  return with(fsdp_baseline(), {"actor_rollout_ref.hybrid_engine=False", "rollout.nnodes=1", "rollout.n_gpus_per_node=8"});
}

std::vector<std::string> fully_async_baseline() {
  // calculate_log_probs: rollout.yaml's default is False before v0.8.0 and the overlay sets it only
  // from then on (the rollouter asserts it), so verl's scripts of that time pass it.
  return with(one_step_off_baseline(), {"data.train_batch_size=0", "actor_rollout_ref.rollout.calculate_log_probs=True"});
}

VerlLaunch read_entry_point(const std::string& entry, const std::string& verl, const std::string& args,
                            bool composed) {
  VerlReadOptions options;
  options.verl_version = verl;
  const std::string launcher = entry.ends_with(".py") ? "python3 " : "python3 -m ";
  auto launch = read_verl_launch(launcher + entry + args, "run.sh", options);
  REQUIRE(launch.ok());
  CHECK(launch->has_verl_launch == composed);
  if (!composed) {
    REQUIRE(!launch->findings.empty());
    CHECK(launch->findings.back().message.find("which verl " + verl + " does not have") != std::string::npos);
  }
  return std::move(launch.value());
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

CheckReport check_lines(const std::vector<std::string>& lines, const std::string& config_name,
                        const CheckOptions& options) {
  std::string text;
  for (const std::string& line : lines) text += "'" + line + "'\n";
  CheckOptions with_name = options;
  with_name.read.config_name = config_name;
  // The rule cases were written against verl b178a3cd's config.
  if (!with_name.read.verl_version) with_name.read.verl_version = "main@b178a3cd";
  auto report = check_launch({InputText{"overrides.txt", text}}, with_name);
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().to_string()));
  return report.value();
}

std::vector<Finding> findings_of(const CheckReport& report, const std::string& rule) {
  std::vector<Finding> out;
  for (const Finding& finding : report.findings) {
    if (finding.rule == rule) out.push_back(finding);
  }
  return out;
}

}  // namespace meshplan::test
