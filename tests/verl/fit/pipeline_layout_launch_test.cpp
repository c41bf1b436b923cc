// A verl Megatron launch with Megatron-core's custom pipeline layout
// (actor.megatron.override_transformer_config.pipeline_model_parallel_layout, as verl's
// examples/grpo_trainer/run_deepseek_v4_flash_megatron.sh passes it): check composes it into the
// strategy instead of refusing the uneven PP, reports a layout Megatron-core would refuse, and
// the emitted launch carries it back.
#include <doctest/doctest.h>

#include "verl/check_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {
namespace {

// DeepSeek-V3 (61 layers, 1 MTP layer) on PP 16: 61 % 16 != 0, the layout's 15 x 4 + 1 holds them.
std::vector<std::string> dsv3_pp16(const std::string& layout) {
  return test::with(test::megatron_baseline(),
                    {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                     "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=16",
                     "actor_rollout_ref.actor.megatron.expert_model_parallel_size=8", "trainer.nnodes=16",
                     "data.train_batch_size=512", "actor_rollout_ref.actor.ppo_mini_batch_size=128",
                     "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
                     "actor_rollout_ref.rollout.tensor_model_parallel_size=16",
                     "++actor_rollout_ref.actor.megatron.override_transformer_config.pipeline_model_parallel_layout=" +
                         layout});
}

CheckOptions with_dsv3() { return test::with_preset("deepseek-v3"); }

TEST_CASE("verl + Megatron: a custom pipeline layout replaces the even split") {
  const CheckReport even = test::check_lines(dsv3_pp16("null"), "ppo_megatron_trainer", with_dsv3());
  CHECK(test::findings_of(even, "model.pp.divides-layers").size() == 1);  // 61 layers on PP 16, no layout
  const CheckReport layout = test::check_lines(dsv3_pp16("\"Et*4|(t*4|)*14tmL\""), "ppo_megatron_trainer", with_dsv3());
  CHECK(test::findings_of(layout, "model.pp.divides-layers").empty());
  CHECK(test::findings_of(layout, "model.pp.layout").empty());
  // One decoder layer short: Megatron-core's validate_layer_layout refuses it.
  const CheckReport short_by_one = test::check_lines(dsv3_pp16("\"Et*4|(t*4|)*14mL\""), "ppo_megatron_trainer", with_dsv3());
  const auto hits = test::findings_of(short_by_one, "model.pp.layout");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("Number of decoder layers 60 must match num_layers 61") != std::string::npos);
}

TEST_CASE("the layout reaches the strategy (string and list forms) and sets VPP") {
  std::string text;
  for (const std::string& line : dsv3_pp16("\"Et*4|(t*4|)*14tmL\"")) text += "'" + line + "'\n";
  VerlReadOptions options;
  options.config_name = "ppo_megatron_trainer";
  options.set_overrides = {"actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=8"};
  const auto launch = read_verl_launch(text, "overrides.txt", options);
  REQUIRE(launch.ok());
  const VerlJob job = verl_to_strategy(launch->config);
  CHECK(job.strategy.pipeline_layout == "Et*4|(t*4|)*14tmL");
  CHECK(job.strategy.vpp == 2);  // 16 stages on PP 8
  // Megatron-Bridge's list form.
  options.set_overrides.push_back(
      "++actor_rollout_ref.actor.megatron.override_transformer_config.pipeline_model_parallel_layout="
      "[[embedding,decoder],[decoder,loss]]");
  const auto listed = read_verl_launch(text, "overrides.txt", options);
  REQUIRE(listed.ok());
  CHECK(verl_to_strategy(listed->config).strategy.pipeline_layout == "Et|tL");
}

}  // namespace
}  // namespace meshplan
