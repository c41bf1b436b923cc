// The versioned verl knowledge (data/verl/verl_versions.json): the version lookup, the config
// tree of each version composed as Hydra does, and the registries, against verl's own sources.
#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"
#include "test_support.hpp"
#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/verl_base.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {
namespace {

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

VerlVersion version(const std::string& text) {
  const auto found = find_verl_version(text);
  REQUIRE_MESSAGE(found, text);
  return *found;
}

}  // namespace

TEST_CASE("verl versions: releases v0.4.0 .. v0.9.0 and two main commits, oldest first") {
  const auto& all = embedded_verl_versions();
  REQUIRE(all.size() == 11);
  CHECK(all.front().id == "0.4.0");
  CHECK(newest_verl_version().id == "main@1dda039b");
  CHECK(newest_verl_version().version_file == "0.10.0.dev");  // verl/version/version at 1dda039b
  CHECK(version("v0.6.1").id == "0.6.1");
  CHECK(version("0.6").id == "0.6.1");                          // the newest of the series
  CHECK(version("0.5.0.post1").id == "0.5.0");                  // not newer than it
  CHECK(version("b178a3cd").id == "main@b178a3cd");             // a commit prefix
  CHECK(version("0.10.0.dev").id == "main@1dda039b");           // a checkout's version file
  CHECK(version("0.7.2").id == "0.7.1");
  CHECK_FALSE(find_verl_version("0.3.0"));
  CHECK_FALSE(find_verl_version("deadbeef1"));
  // Older than the oldest embedded (0.4.0): the version files of research forks of verl.
  CHECK(predates_embedded_verl("0.1"));
  CHECK(predates_embedded_verl("0.3.1.dev"));
  CHECK(predates_embedded_verl("0.4.0.dev"));  // a dev version sorts before its release
  CHECK_FALSE(predates_embedded_verl("0.4.0"));
  CHECK_FALSE(predates_embedded_verl("0.10.0.dev"));
  CHECK_FALSE(predates_embedded_verl("deadbeef1"));
}

TEST_CASE("a verl pin in a script: the last install wins") {
  const auto pin = verl_version_pin("pip install vllm==0.8.5\npip install \"verl[vllm]==0.5.0\"\nuv pip install verl==0.6.1\n");
  REQUIRE(pin);
  CHECK(pin->version == "0.6.1");
  CHECK(pin->line == 3);
  CHECK_FALSE(verl_version_pin("pip install myverl==1.0\nexport VERL_HOME=/x\n"));
}

// verl's Python registries by version (verl/trainer/ppo/core_algos.py, reward_manager/, engine/):
// gdpo and dppo_tv arrived in v0.7.1, policy-loss registration in v0.4.1 (v0.4.0 has no loss_mode),
// fsdp_turbo in main after v0.9.0, veomni in v0.7.0.
TEST_CASE("registries: the names each verl version accepts") {
  CHECK_FALSE(has(verl_registry_names(version("0.7.0"), "adv_estimator"), "gdpo"));
  CHECK(has(verl_registry_names(version("0.7.1"), "adv_estimator"), "gdpo"));
  CHECK(has(verl_registry_names(version("main@1dda039b"), "policy_loss"), "dppo_tv"));
  CHECK_FALSE(has(verl_registry_names(version("main@b178a3cd"), "policy_loss"), "dppo_tv"));
  CHECK(verl_registry_names(version("0.4.0"), "policy_loss").empty());
  CHECK(has(verl_registry_names(version("0.5.0"), "policy_loss"), "vanilla"));  // dp_actor branches on it
  CHECK(has(verl_registry_names(version("main@1dda039b"), "strategy"), "fsdp_turbo"));
  CHECK_FALSE(has(verl_registry_names(version("0.9.0"), "strategy"), "fsdp_turbo"));
  CHECK(verl_registry_range("adv_estimator", "gdpo") == "0.7.1..main@1dda039b");
  CHECK(has(verl_registry_names(version("0.4.0"), "reward_manager"), "dapo"));
}

TEST_CASE("every embedded version composes ppo_trainer and ppo_megatron_trainer") {
  for (const VerlVersion& v : embedded_verl_versions()) {
    CAPTURE(v.id);
    for (const char* name : {"ppo_trainer", "ppo_megatron_trainer"}) {
      auto base = embedded_verl_base(v, name, {});
      REQUIRE_MESSAGE(base.ok(), (base.ok() ? std::string() : base.error().message));
      CHECK(find_path(*base, "actor_rollout_ref.actor.ppo_mini_batch_size") != nullptr);
      CHECK(find_path(*base, "trainer.n_gpus_per_node") != nullptr);
    }
  }
  auto megatron = embedded_verl_base(version("main@b178a3cd"), "ppo_megatron_trainer", {});
  REQUIRE(megatron.ok());
  CHECK(find_path(*megatron, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size")->integer == 1);
  auto fsdp = embedded_verl_base(version("main@b178a3cd"), "ppo_trainer", {});
  REQUIRE(fsdp.ok());
  CHECK(find_path(*fsdp, "actor_rollout_ref.actor.strategy")->text == "fsdp");
  CHECK(find_path(*fsdp, "actor_rollout_ref.rollout.name")->kind == NodeKind::missing);  // `???`
  CHECK(find_path(*fsdp, "actor_rollout_ref.actor.optim.lr")->floating == test::approx(1e-6));
  // newer verl switches the actor to Megatron with a config-group choice
  auto chosen = embedded_verl_base(newest_verl_version(), "ppo_trainer", {{"model_engine", "megatron"}});
  REQUIRE(chosen.ok());
  CHECK(find_path(*chosen, "actor_rollout_ref.actor.strategy")->text == "megatron");
}

// The independent reference: verl's own fully composed snapshot of b178a3cd
// (verl/trainer/config/_generated_ppo_trainer.yaml, the team's copy in ../shared/verl/config).
TEST_CASE("composing b178a3cd's config tree gives verl's own _generated_ppo_trainer.yaml") {
  for (const char* name : {"ppo_trainer", "ppo_megatron_trainer"}) {
    const auto path = test::shared_file(std::string("verl/config/_generated_") + name + ".yaml");
    if (!path) return;
    auto expected = config_from_yaml(test::file_text(*path), path->string());
    REQUIRE(expected.ok());
    auto composed = embedded_verl_base(version("main@b178a3cd"), name, {});
    REQUIRE(composed.ok());
    const auto keys = leaf_keys(*expected);
    CHECK(keys.size() > 400);
    CHECK(leaf_keys(*composed) == keys);
    for (const std::string& key : keys) {
      CAPTURE(key);
      CHECK(find_path(*composed, key)->to_text() == find_path(*expected, key)->to_text());
    }
  }
}

}  // namespace meshplan
