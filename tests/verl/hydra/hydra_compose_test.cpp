// Hydra defaults-list composition on a hand-made config tree shaped like verl's
// (verl/trainer/config of releases after b178a3cd: model_engine chooses the actor config).
#include <doctest/doctest.h>

#include "verl/check.hpp"
#include "verl/hydra/hydra_compose.hpp"
#include "verl/hydra/verl_base.hpp"
#include "verl/check_support.hpp"

namespace meshplan {
namespace {

const std::map<std::string, std::string>& tree() {
  static const std::map<std::string, std::string> texts = {
      {"trainer", "defaults:\n  - engine: dp\n  - actor@a.actor: ${engine}_actor\n  - extra\n  - _self_\ntop: 1\n"},
      {"engine/dp", "# @package _global_\nengine: dp\n"},
      {"engine/mg", "# @package _global_\nengine: mg\n"},
      {"actor/base", "lr: 1\nname: base\n"},
      {"actor/dp_actor", "defaults:\n  - ../optim@optim: adam\n  - base\n  - _self_\nname: dp\n"},
      {"actor/mg_actor", "defaults:\n  - ../optim@optim: adam\n  - base\n  - _self_\nname: mg\nmegatron:\n  tp: 1\n"},
      {"optim/adam", "beta: 0.9\n"},
      {"extra", "x: 2\ntop: 0\n"},
      {"mg_trainer", "defaults:\n  - trainer\n  - override engine: mg\n  - _self_\n"},
      {"loop", "defaults:\n  - loop\n"},
  };
  return texts;
}

std::string text_at(const ConfigNode& root, const std::string& path) {
  const ConfigNode* node = find_path(root, path);
  return node == nullptr ? "<none>" : node->to_text();
}

}  // namespace

TEST_CASE("Hydra composition: packages, relative groups, same-group configs, _self_ last") {
  // trainer: engine dp (global package) -> a.actor = actor/dp_actor, which pulls optim/adam at
  // a.actor.optim and actor/base at a.actor, then its own name; extra at the root; then trainer's
  // own top: 1 wins over extra's top: 0.
  auto composed = compose_hydra_config(tree(), "trainer", {});
  REQUIRE(composed.ok());
  CHECK(text_at(*composed, "engine") == "dp");
  CHECK(text_at(*composed, "a.actor.name") == "dp");
  CHECK(text_at(*composed, "a.actor.lr") == "1");
  CHECK(text_at(*composed, "a.actor.optim.beta") == "0.9");
  CHECK(text_at(*composed, "a.actor.megatron.tp") == "<none>");
  CHECK(text_at(*composed, "x") == "2");
  CHECK(text_at(*composed, "top") == "1");
}

TEST_CASE("Hydra composition: a group choice from the command line or an override entry") {
  auto chosen = compose_hydra_config(tree(), "trainer", {{"engine", "mg"}});
  REQUIRE(chosen.ok());
  CHECK(text_at(*chosen, "engine") == "mg");
  CHECK(text_at(*chosen, "a.actor.name") == "mg");
  CHECK(text_at(*chosen, "a.actor.megatron.tp") == "1");
  auto overridden = compose_hydra_config(tree(), "mg_trainer", {});
  REQUIRE(overridden.ok());
  CHECK(text_at(*overridden, "a.actor.name") == "mg");
}

TEST_CASE("Hydra composition: a list of options merges each config of the group in order at the package") {
  // verl 0.8.0's actor/mindspeed_actor.yaml: `../engine@mindspeed: [megatron, mindspeed]` puts
  // engine/megatron.yaml then engine/mindspeed.yaml at actor.mindspeed (the later wins).
  std::map<std::string, std::string> texts;
  texts["trainer"] = "defaults:\n  - actor@a.actor: ms_actor\n  - _self_\n";
  texts["actor/ms_actor"] = "defaults:\n  - ../eng@ms:\n      - mg\n      - ms\n  - _self_\nname: ms\n";
  texts["eng/mg"] = "tp: 1\nstrategy: megatron\n";
  texts["eng/ms"] = "strategy: mindspeed\nextra: 2\n";
  const auto composed = compose_hydra_config(texts, "trainer", {});
  REQUIRE(composed.ok());
  CHECK(text_at(*composed, "a.actor.ms.tp") == "1");
  CHECK(text_at(*composed, "a.actor.ms.strategy") == "mindspeed");
  CHECK(text_at(*composed, "a.actor.ms.extra") == "2");
  CHECK(text_at(*composed, "a.actor.name") == "ms");
  // A command-line choice for that package replaces the list.
  const auto chosen = compose_hydra_config(texts, "trainer", {{"eng@a.actor.ms", "mg"}});
  REQUIRE(chosen.ok());
  CHECK(text_at(*chosen, "a.actor.ms.strategy") == "megatron");
  CHECK(text_at(*chosen, "a.actor.ms.extra") == "<none>");
  // An empty list or a list holding a map is still refused with the file and line.
  texts["actor/ms_actor"] = "defaults:\n  - ../eng@ms: []\n";
  const auto empty = compose_hydra_config(texts, "trainer", {});
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().line == 2);
}

TEST_CASE("Hydra composition: a missing option or a cycle is an error, not a crash") {
  auto missing = compose_hydra_config(tree(), "trainer", {{"engine", "tpu"}});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "config 'engine/tpu' is not in the directory");
  // Named by a defaults list (zhangmaosen/Agent0's `data@data: legacy_data`): the error is at the
  // entry that names it, in the config that lists it.
  auto listed = tree();
  listed["trainer"] = "defaults:\n  - _self_\n  - data@data: legacy_data\n";
  auto unlisted = compose_hydra_config(listed, "trainer", {});
  REQUIRE_FALSE(unlisted.ok());
  CHECK(unlisted.error().file == "trainer.yaml");
  CHECK(unlisted.error().line == 3);
  CHECK(unlisted.error().message == "names config 'data/legacy_data', which is not in the directory");
  auto cycle = compose_hydra_config(tree(), "loop", {});
  REQUIRE_FALSE(cycle.ok());
  CHECK(cycle.error().message == "the defaults lists include each other");
  CHECK(is_config_group(tree(), "engine"));
  CHECK_FALSE(is_config_group(tree(), "extra"));
}

TEST_CASE("Hydra composition: an absolute defaults entry is looked up from the root, not the group") {
  // ROPD's verl/trainer/config/ropd.yaml: `defaults: [- /baseline_grpo, - _self_]`; here
  // sub/child names /extra (the root's extra.yaml, no sub/extra exists) and /engine: mg.
  std::map<std::string, std::string> texts = tree();
  texts["sub/child"] = "defaults:\n  - /extra\n  - /engine: mg\n  - _self_\nz: 3\n";
  texts["top2"] = "defaults:\n  - sub/child\n  - _self_\n";
  const auto composed = compose_hydra_config(texts, "top2", {});
  REQUIRE(composed.ok());
  CHECK(text_at(*composed, "x") == "2");
  CHECK(text_at(*composed, "z") == "3");
  CHECK(text_at(*composed, "engine") == "mg");
}

TEST_CASE("a checkout's base: its own composition before a _generated_ it may have left stale") {
  // DAC-RL and CacheEOPD edit ppo_trainer.yaml's groups and leave _generated_ppo_trainer.yaml as
  // verl shipped it: the released tree reads _generated_ first, a checkout composes first and
  // reads _generated_ only when composing fails.
  std::map<std::string, std::string> texts = tree();
  texts["_generated_trainer"] = "top: 1\nengine: dp\n";
  const auto released = load_verl_base(texts, "trainer", {}, "a tree", GeneratedBase::first);
  REQUIRE(released.ok());
  CHECK(text_at(*released, "x") == "<none>");
  const auto checkout = load_verl_base(texts, "trainer", {}, "a tree", GeneratedBase::fallback);
  REQUIRE(checkout.ok());
  CHECK(text_at(*checkout, "x") == "2");
  texts["trainer"] = "defaults:\n  - missing_config\n  - _self_\ntop: 1\n";
  const auto broken = load_verl_base(texts, "trainer", {}, "a tree", GeneratedBase::fallback);
  REQUIRE(broken.ok());
  CHECK(text_at(*broken, "engine") == "dp");
}

// verl's engine choice in miniature (ppo_trainer.yaml from 0.8.0): model_engine picks the actor.
CheckOptions engine_tree() {
  CheckOptions options;
  options.read.config_texts = {
      {"ppo_trainer", "defaults:\n  - model_engine: dp\n  - actor@actor_rollout_ref.actor: ${model_engine}_actor\n"
                      "  - _self_\ntrainer:\n  nnodes: 1\n"},
      {"model_engine/dp", "# @package _global_\nmodel_engine: dp\n"},
      {"model_engine/megatron", "# @package _global_\nmodel_engine: megatron\n"},
      {"actor/dp_actor", "_target_: FSDPActorConfig\nstrategy: fsdp\n"},
      {"actor/megatron_actor", "_target_: McoreActorConfig\nstrategy: megatron\nmegatron:\n  param_offload: false\n"},
  };
  return options;
}

TEST_CASE("check --verl-config: a group choice on the command line selects configs, it is not a key") {
  const CheckOptions options = engine_tree();
  const std::string override_line = " actor_rollout_ref.actor.megatron.param_offload=True\n";
  auto chosen = check_launch(
      {InputText{"run.sh", "python3 -m verl.trainer.main_ppo model_engine=megatron" + override_line}}, options);
  REQUIRE(chosen.ok());
  for (const Finding& f : chosen->findings) CHECK_MESSAGE(f.rule != "hydra.unknown-key", f.message);
  // Without the choice the key is unknown to the dp actor, and model_engine=megatron is what composes it.
  auto default_engine = check_launch({InputText{"run.sh", "python3 -m verl.trainer.main_ppo" + override_line}}, options);
  REQUIRE(default_engine.ok());
  CHECK(test::findings_of(*default_engine, "hydra.unknown-key").empty());
  const auto engine = test::findings_of(*default_engine, "hydra.engine-keys");
  REQUIRE(engine.size() == 2);  // the error, and the note that the rest reads the launch with the choice
  CHECK(engine[0].severity == Severity::error);
  CHECK(engine[0].fix == std::vector<std::string>{"model_engine=megatron"});
  CHECK(engine[0].message.find("Key 'megatron' is not in struct") != std::string::npos);
  CHECK(engine[1].severity == Severity::info);
}

TEST_CASE("check: model_engine written as a key of a section is the top-level group choice") {
  // verl 1dda039b9 examples/README.md says `actor_rollout_ref.actor.model_engine=megatron`;
  // examples/router_replay/run_qwen3_30b_a3b_megatron.sh writes it: Hydra stops on it.
  const CheckOptions options = engine_tree();
  const std::string key = " actor_rollout_ref.actor.model_engine=megatron";
  auto alone = check_launch({InputText{"run.sh", "python3 -m verl.trainer.main_ppo" + key + "\n"}}, options);
  REQUIRE(alone.ok());
  const auto unknown = test::findings_of(*alone, "hydra.unknown-key");
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].message.find("'model_engine' is a config group chosen at the top level") != std::string::npos);
  CHECK(unknown[0].fix == std::vector<std::string>{"model_engine=megatron"});
  // With the choice already made, the key is only to be dropped: no fix that is already set.
  auto both = check_launch({InputText{"run.sh", "python3 -m verl.trainer.main_ppo model_engine=megatron" + key + "\n"}},
                           options);
  REQUIRE(both.ok());
  const auto dropped = test::findings_of(*both, "hydra.unknown-key");
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0].message.find("already chooses it; drop this line") != std::string::npos);
  CHECK(dropped[0].fix.empty());
}

TEST_CASE("group@package=option from hydra.searchpath: composed from the default, its package not checked") {
  // verl 1dda039b's *_megatron_lite.sh: actor@actor_rollout_ref.actor=mlite_actor with
  // hydra.searchpath=[pkg://verl_mlite.config] (a config in another package): Hydra finds it
  // there; meshplan cannot read it, so the actor's keys are not judged (no false unknown-key).
  CheckOptions options;
  options.read.config_texts = {
      {"ppo_trainer", "defaults:\n  - actor@actor_rollout_ref.actor: dp_actor\n  - _self_\ntrainer:\n  nnodes: 1\n"},
      {"actor/dp_actor", "strategy: fsdp\n"},
  };
  const std::string launch = "python3 -m verl.trainer.main_ppo actor@actor_rollout_ref.actor=lite_actor "
                             "actor_rollout_ref.actor.lite.knob=1 trainer.nnodes=2";
  auto outside = check_launch({InputText{"run.sh", launch + " hydra.searchpath=[pkg://lite.config]\n"}}, options);
  REQUIRE(outside.ok());
  CHECK(outside->errors == 0);
  bool said = false;
  for (const Finding& f : outside->findings) {
    said = said || f.message.find("'actor/lite_actor' (actor@actor_rollout_ref.actor=lite_actor) comes from "
                                  "hydra.searchpath=[pkg://lite.config]") != std::string::npos;
  }
  CHECK(said);
  // Without the search path the option is missing from the tree: unusable input, as Hydra says.
  CHECK_FALSE(check_launch({InputText{"run.sh", launch + "\n"}}, options).ok());
}

}  // namespace meshplan
