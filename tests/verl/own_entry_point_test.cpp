// A launch of a repository's own trainer entry point (verl's recipe.dapo.main_dapo, a fork's
// main_ppo): its @hydra.main config composed over verl's tree, what Hydra refuses an error, what
// verl's trainer checks a warning (the entry's trainer may not keep the check).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "check_support.hpp"
#include "test_support.hpp"
#include "verl/hydra/hydra_main.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {

TEST_CASE("the @hydra.main decorator of an entry point, read as text") {
  // verl v0.6.0 recipe/dapo/main_dapo.py line 31.
  const auto dapo = read_hydra_main(
      "import hydra\n\n@hydra.main(config_path=\"config\", config_name=\"dapo_trainer\", version_base=None)\n"
      "def main(config):\n    run_ppo(config)\n");
  REQUIRE(dapo.has_value());
  CHECK(dapo->config_path == "config");
  CHECK(dapo->config_name == "dapo_trainer");
  // Over lines, in single quotes, with a .yaml suffix; a commented decorator is no decorator.
  const auto spread = read_hydra_main(
      "# @hydra.main(config_path=\"old\", config_name=\"old\")\n@hydra.main(\n    version_base=None,\n"
      "    config_path='../../verl/trainer/config',\n    config_name='star_ppo_trainer.yaml',\n)\ndef main(c): pass\n");
  REQUIRE(spread.has_value());
  CHECK(spread->config_path == "../../verl/trainer/config");
  CHECK(spread->config_name == "star_ppo_trainer");
  // No literal directory (None, an expression) or no decorator: Hydra's directory is not known.
  CHECK_FALSE(read_hydra_main("@hydra.main(config_path=None, config_name=\"x\")\n").has_value());
  CHECK_FALSE(read_hydra_main("@hydra.main(config_path=CONFIG_DIR, config_name=\"x\")\n").has_value());
  CHECK_FALSE(read_hydra_main("def main():\n    pass\n").has_value());
}

TEST_CASE("check: a repository's own Hydra entry point is composed from its config over verl's tree") {
  // The shape of verl v0.6.0's recipe/dapo: main_dapo.py's @hydra.main(config_path="config",
  // config_name="dapo_trainer"); dapo_trainer.yaml is `defaults: [ppo_trainer, _self_]` with
  // hydra.searchpath file://verl/trainer/config and adds data.gen_batch_size. A module next to it
  // registers a policy loss of its own (FloyedShen/VESPO's core_algos.py: "vespo").
  const std::filesystem::path repo =
      std::filesystem::temp_directory_path() / ("meshplan_entry_" + std::to_string(::getpid()));
  std::filesystem::create_directories(repo / "recipe" / "dapo" / "config");
  std::filesystem::create_directories(repo / "recipe" / "sft");
  std::ofstream(repo / ".git") << "gitdir: none\n";
  std::ofstream(repo / "recipe" / "dapo" / "main_dapo.py")
      << "import hydra\n@hydra.main(config_path=\"config\", config_name=\"dapo_trainer\", version_base=None)\n"
         "def main(config):\n    pass\n";
  std::ofstream(repo / "recipe" / "dapo" / "my_loss.py") << "@register_policy_loss(\"vespo\")\ndef vespo(): pass\n";
  std::ofstream(repo / "recipe" / "dapo" / "config" / "dapo_trainer.yaml")
      << "hydra:\n  searchpath:\n    - file://verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - _self_\n"
         "data:\n  gen_batch_size: ${data.train_batch_size}\n";
  std::ofstream(repo / "recipe" / "sft" / "main_sft.py")
      << "@hydra.main(config_path=\".\", config_name=\"sft\")\ndef main(c): pass\n";
  std::ofstream(repo / "recipe" / "sft" / "sft.yaml") << "data:\n  micro_batch_size: 4\n";
  std::ofstream(repo / "recipe" / "dapo" / "run.sh")
      << "python3 -m recipe.dapo.main_dapo data.gen_batch_size=96 data.train_batch_size=8 "
         "actor_rollout_ref.actor.ppo_mini_batch_size=16 actor_rollout_ref.actor.policy_loss.loss_mode=vespo "
         "trainer.n_gpus_per_node=8 data.not_a_key=1 +actor_rollout_ref.rollout.srt_cache_mode=tree\n";
  std::ofstream(repo / "recipe" / "sft" / "run.sh") << "python3 -m recipe.sft.main_sft data.micro_batch_size=2\n";
  std::ofstream(repo / "recipe" / "run_missing.sh") << "python3 -m recipe.missing.main_x data.train_batch_size=8\n";
  // zhangmaosen/Agent0's verl_tool config names `data@data: legacy_data`, which no directory holds.
  std::filesystem::create_directories(repo / "recipe" / "tool" / "config");
  std::ofstream(repo / "recipe" / "tool" / "main_tool.py")
      << "@hydra.main(config_path=\"config\", config_name=\"tool_trainer\")\ndef main(c): pass\n";
  std::ofstream(repo / "recipe" / "tool" / "config" / "tool_trainer.yaml")
      << "defaults:\n  - data@data: legacy_data_of_my_own\n  - ppo_trainer\n  - _self_\n";
  std::ofstream(repo / "recipe" / "tool" / "run.sh") << "python3 -m recipe.tool.main_tool trainer.n_gpus_per_node=8\n";
  const test::CliRun dapo =
      test::run({"check", (repo / "recipe" / "dapo" / "run.sh").string(), "--verl-version", "0.6.1"});
  const test::CliRun sft = test::run({"check", (repo / "recipe" / "sft" / "run.sh").string(), "--verl-version", "0.6.1"});
  const test::CliRun missing =
      test::run({"check", (repo / "recipe" / "run_missing.sh").string(), "--verl-version", "0.6.1"});
  const test::CliRun tool = test::run({"check", (repo / "recipe" / "tool" / "run.sh").string(), "--verl-version", "0.6.1"});
  std::filesystem::remove_all(repo);
  // A default no directory holds stops Hydra before the entry point runs: unusable input, named.
  CHECK(tool.exit_code == 2);
  CHECK(tool.err.find("tool_trainer.yaml:2: defaults: names config 'data/legacy_data_of_my_own', which is not in "
                      "the directory") != std::string::npos);
  CHECK(dapo.out.find("recipe/dapo/main_dapo.py, the repository's own entry point: its @hydra.main config "
                      "dapo_trainer is composed from ") != std::string::npos);
  // Hydra composes before the entry point runs: a key neither config has stops it, an error; the
  // recipe's own key is known.
  CHECK(dapo.out.find("error[hydra.unknown-key]: 'data.not_a_key'") != std::string::npos);
  CHECK(dapo.out.find("'data.gen_batch_size'") == std::string::npos);
  // verl's start-up check (train_batch_size 8 < ppo_mini_batch_size 16) is the trainer's: a warning.
  CHECK(dapo.out.find("warning[batch.mini-le-train]") != std::string::npos);
  CHECK(dapo.out.find("not verl's main_ppo: this holds if its trainer keeps verl's check") != std::string::npos);
  CHECK(dapo.out.find("error[batch.mini-le-train]") == std::string::npos);
  // A '+' key of a dataclass section: the fork's trainer may take it out before the section is
  // converted (verl_srt's SRTRayPPOTrainer does for its +rollout.srt_* keys).
  CHECK(dapo.out.find("warning[config.not-a-dataclass-field]") != std::string::npos);
  // The package's own policy loss is registered.
  CHECK(dapo.out.find("actor.policy-loss") == std::string::npos);
  CHECK(dapo.exit_code == 1);
  // A Hydra app whose config is not verl's PPO trainer config, and an entry point not found: not checked.
  CHECK(sft.exit_code == 0);
  CHECK(sft.out.find("composes sft, which is not verl's PPO trainer config; its arguments are not checked") !=
        std::string::npos);
  CHECK(missing.exit_code == 0);
  CHECK(missing.out.find("'recipe.missing.main_x' is not verl.trainer.main_ppo; its arguments are not checked") !=
        std::string::npos);
}

TEST_CASE("check: verl's own recipes (recipe.dapo.main_dapo) compose the config verl ships for them") {
  // verl v0.4.0-v0.7.0 ship recipe/dapo/config/dapo_trainer.yaml (defaults: ppo_trainer, _self_;
  // data.gen_batch_size); from v0.8.0 recipe/ is the verl-recipe submodule, not in verl's tree.
  CHECK(recipe_entry_config("recipe.dapo.main_dapo") == std::optional<std::string>("dapo_trainer"));
  CHECK(recipe_entry_config("/workspace/verl/recipe/dapo/main_dapo.py") == std::optional<std::string>("dapo_trainer"));
  CHECK(recipe_entry_config("recipe.spin.main_spin") == std::optional<std::string>("spin_trainer"));
  CHECK_FALSE(recipe_entry_config("recipe.r1.main_eval").has_value());  // evaluation: not a PPO config
  CHECK_FALSE(recipe_entry_config("my.recipe.dapo.main").has_value());
  const std::string script =
      "python3 -m recipe.dapo.main_dapo data.gen_batch_size=96 data.train_batch_size=8 "
      "actor_rollout_ref.actor.ppo_mini_batch_size=16 trainer.n_gpus_per_node=8 data.gen_batch_sizes=1\n";
  CheckOptions v061;
  v061.read.verl_version = "0.6.1";
  auto shipped = check_launch({InputText{"run.sh", script}}, v061);
  REQUIRE(shipped.ok());
  CHECK(test::findings_of(*shipped, "hydra.unknown-key").size() == 1);  // gen_batch_sizes; gen_batch_size is known
  CHECK(test::findings_of(*shipped, "hydra.unknown-key")[0].severity == Severity::error);
  // verl 0.6.1's DAPO trainer is not main_ppo (its TaskRunner does not call validate_config).
  REQUIRE(test::findings_of(*shipped, "batch.mini-le-train").size() == 1);
  CHECK(test::findings_of(*shipped, "batch.mini-le-train")[0].severity == Severity::warning);
  CheckOptions v080;
  v080.read.verl_version = "0.8.0";
  auto moved = check_launch({InputText{"run.sh", script}}, v080);
  REQUIRE(moved.ok());
  CHECK(moved->errors == 0);
  CHECK(test::findings_of(*moved, "launch.not-checked")[0].message.find("composes dapo_trainer, which verl 0.8.0 "
                                                                        "does not have") != std::string::npos);
}

TEST_CASE("check: the DAPO recipe fixture of docs/tour/check.md") {
  const std::string file = test::fixture("verl/dapo_recipe.sh").string();
  const test::CliRun run = test::run({"check", file, "--verl-version", "0.6.1"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find(file + ":14: error[hydra.unknown-key]: 'algorithm.filter_groups.max_num_gen_batch'") !=
        std::string::npos);
  CHECK(run.out.find("    fix: algorithm.filter_groups.max_num_gen_batches=10") != std::string::npos);
  CHECK(run.out.find(file + ":16: warning[batch.mini-le-train]: train_batch_size (32) must be >= "
                            "actor.ppo_mini_batch_size (64)") != std::string::npos);
}

TEST_CASE("check: a dated re-release of a preset's model is not held to the preset's context length") {
  // Kwai-Klear/ERC trains Qwen3-30B-A3B-Thinking-2507 (max_position_embeddings 262144) with
  // max_model_len 163840; the qwen3-30b-a3b preset (40960) gives its architecture, not its context.
  const std::string launch =
      "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=/models/{} "
      "actor_rollout_ref.rollout.max_model_len=163840 data.max_prompt_length=2048 data.max_response_length=4096 "
      "trainer.n_gpus_per_node=8\n";
  CheckOptions options;
  options.read.verl_version = "0.6.1";
  auto dated = check_launch({InputText{"run.sh", fmt::format(fmt::runtime(launch), "Qwen3-30B-A3B-Thinking-2507")}},
                            options);
  auto original = check_launch({InputText{"run.sh", fmt::format(fmt::runtime(launch), "Qwen3-30B-A3B")}}, options);
  REQUIRE(dated.ok());
  REQUIRE(original.ok());
  CHECK(test::findings_of(*dated, "model.max-model-len").empty());
  CHECK(test::findings_of(*original, "model.max-model-len").size() == 1);
}

}  // namespace meshplan
