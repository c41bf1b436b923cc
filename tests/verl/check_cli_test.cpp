// meshplan check end to end: compiler-like text, JSON, exit codes 0 / 1 / 2.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check_support.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("check: a clean launch exits 0") {
  const test::CliRun run = test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--gpu", "H100-80GB"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("0 error(s)") != std::string::npos);
}

TEST_CASE("check: a broken launch exits 1 with compiler-like lines and fixes") {
  const std::string file = test::fixture("verl/broken_grpo.sh").string();
  const test::CliRun run = test::run({"check", file});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find(file + ":29: error[batch.train-divisible]: real_train_batch_size (315) must be divisible by "
                            "minimal possible batch size (8)") != std::string::npos);
  CHECK(run.out.find("    fix: data.train_batch_size=64") != std::string::npos);
  // rollout.mode=sync fails from verl 0.7.0 on; the script names no verl, and 0.4.0-0.6.1 ran sync
  // rollouts: a warning naming them. Given the verl, an error.
  CHECK(run.out.find(file + ":10: warning[rollout.mode-sync-removed]") != std::string::npos);
  CHECK(run.out.find("verl 0.4.0 .. 0.6.1 (5 versions) would not stop here (give --verl-version)") != std::string::npos);
  CHECK(run.out.find(file + ":4: warning[env.unknown]: NCCL_COMPRESS has no effect") != std::string::npos);
  const test::CliRun pinned = test::run({"check", file, "--verl-version", "main@1dda039b"});
  CHECK(pinned.out.find(file + ":10: error[rollout.mode-sync-removed]") != std::string::npos);
}

TEST_CASE("check: a key only older verl has is a warning when the launch names no verl") {
  // trainer.use_legacy_worker_impl left verl's config with the legacy workers (044bbba27, after
  // 0.7.1): a launch that names no verl may run one that has it.
  const std::string script =
      "python3 -m verl.trainer.main_ppo trainer.use_legacy_worker_impl=auto trainer.n_gpus_per_node=8\n";
  auto assumed = check_launch({InputText{"run.sh", script}}, CheckOptions{});
  REQUIRE(assumed.ok());
  const auto soft = test::findings_of(*assumed, "hydra.unknown-key");
  REQUIRE(soft.size() == 1);
  CHECK(soft[0].severity == Severity::warning);
  CHECK(soft[0].message.find("it is a key of verl 0.5.0 .. 0.7.1 (6 versions)") != std::string::npos);
  CheckOptions pinned;
  pinned.read.verl_version = "main@1dda039b";
  auto named = check_launch({InputText{"run.sh", script}}, pinned);
  REQUIRE(named.ok());
  CHECK(test::findings_of(*named, "hydra.unknown-key")[0].severity == Severity::error);
  // A key no verl has stays an error.
  auto typo = check_launch({InputText{"run.sh", "python3 -m verl.trainer.main_ppo trainer.n_gpu_per_node=8\n"}},
                           CheckOptions{});
  REQUIRE(typo.ok());
  CHECK(test::findings_of(*typo, "hydra.unknown-key")[0].severity == Severity::error);
}

TEST_CASE("check: a Megatron DAPO launch trips the worker-time rules") {
  // 16 GPUs, TP 4 x PP 2: dp 2; mini 32 x n 8 // 2 = 128 per rank, micro 3: ceil(128 / 3) = 43
  // micro-batches, odd under VPP with PP 2 (R66); LoRA with vanilla_mbridge (R46); overlong
  // buffer 4096 > max_resp_len 2048 (R77), fixed to 2048 / 5 = 409.
  const std::string file = test::fixture("verl/broken_megatron_dapo.sh").string();
  const test::CliRun run = test::run({"check", file, "--verl-version", "main@b178a3cd"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find(file + ":13: error[megatron.lora-needs-bridge]") != std::string::npos);
  CHECK(run.out.find(file + ":18: error[megatron.vpp-micro-batches]: 43 micro-batches per mini batch") != std::string::npos);
  CHECK(run.out.find(file + ":26: error[reward.dapo-overlong]") != std::string::npos);
  CHECK(run.out.find("    fix: reward_model.reward_kwargs.overlong_buffer_cfg.len=409") != std::string::npos);
  CHECK(run.out.find("3 error(s), 0 warning(s)") != std::string::npos);
  // Newer verl defaults to the Megatron-Bridge path (megatron.vanilla_mbridge: false), where LoRA works.
  const test::CliRun newest = test::run({"check", file});
  CHECK(newest.out.find("error[megatron.lora-needs-bridge]") == std::string::npos);
  // The engine workers (verl 0.8.0 on) cut each rank's 128 sequences into micro-batches of 3 and
  // assert they divide; a warning, since no verl is named and the older workers do not.
  CHECK(newest.out.find(file + ":20: warning[engine.micro-divisible]") != std::string::npos);
  CHECK(newest.out.find("2 error(s), 1 warning(s)") != std::string::npos);
}

TEST_CASE("check --json: severity, rule, keys, value, message, fix, location") {
  const test::CliRun run = test::run({"check", test::fixture("verl/broken_grpo.sh").string(), "--json"});
  CHECK(run.exit_code == 1);
  const nlohmann::json report = nlohmann::json::parse(run.out);
  CHECK(report["schema"] == "meshplan.check/1");
  // 1dda039b has no legacy fsdp_workers.py mini/micro assert; rollout.mode=sync is a warning (the
  // script names no verl, and verl before 0.7.0 ran sync rollouts).
  CHECK(report["errors"].get<int>() == 5);
  bool found = false;
  for (const auto& finding : report["findings"]) {
    if (finding["rule"] != "batch.train-divisible") continue;
    found = true;
    CHECK(finding["severity"] == "error");
    CHECK(finding["value"] == "63");
    CHECK(finding["keys"][0] == "data.train_batch_size");
    CHECK(finding["fix"][0] == "data.train_batch_size=64");
    CHECK(finding["location"]["line"] == 29);
    CHECK(finding["message"].get<std::string>().find("would fail at start-up") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("check --set and --env apply after the script") {
  const std::string file = test::fixture("verl/broken_grpo.sh").string();
  const test::CliRun run = test::run({"check", file, "--set", "data.train_batch_size=64", "--env", "NNODES=2"});
  CHECK(run.out.find("batch.train-divisible") == std::string::npos);  // 64 x 5 = 320 = 20 x 16
}

TEST_CASE("check: unusable input exits 2 with one clear message") {
  CHECK(test::run({"check", "/no/such/run.sh"}).exit_code == 2);
  CHECK(test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--model", "no-such-model"}).exit_code == 2);
  CHECK(test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--gpu", "Z9000"}).exit_code == 2);
  CHECK(test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--env", "NOEQUALS"}).exit_code == 2);
  const test::CliRun wrong_config =
      test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--config-name", "gsm8k_multiturn_grpo"});
  CHECK(wrong_config.exit_code == 2);
  CHECK(wrong_config.err.find("config 'gsm8k_multiturn_grpo' is not in verl main@1dda039b's config tree") !=
        std::string::npos);
  const test::CliRun old_verl = test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--verl-version", "0.3"});
  CHECK(old_verl.exit_code == 2);
  CHECK(old_verl.err.find("no embedded verl version matches '0.3' (embedded: 0.4.0 .. main@1dda039b)") != std::string::npos);
}

TEST_CASE("check: a script without any launch is unusable input") {
  auto report = check_launch({InputText{"prep.sh", "huggingface-cli download Qwen/Qwen2.5-7B\n"}}, CheckOptions{});
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().message.find("no trainer launch found") == 0);
  // A wrapper that runs another script (QinnanCai0115/role-factorized-search: bash "$BASE_SCRIPT"
  // overrides "$@"): the message names the script that may hold the launch, and the line.
  auto wrapper = check_launch({InputText{"frontier.sh", "BASE_SCRIPT=\"$(dirname \"$0\")/run_base.sh\"\n"
                                                        "bash \"$BASE_SCRIPT\" trainer.total_epochs=1 \"$@\"\n"}},
                              CheckOptions{});
  REQUIRE_FALSE(wrapper.ok());
  CHECK(wrapper.error().line == 2);
  CHECK(wrapper.error().message ==
        "no trainer launch found: this script runs $(dirname \"$0\")/run_base.sh, which may hold it; check that "
        "script (give the overrides this one passes with --set)");
  // exec replaces the shell with the other script (GGBo1350/my_search_r1 run_lora.sh).
  auto exec = check_launch({InputText{"run_lora.sh", "exec bash \"${SCRIPT_DIR}/run.sh\" model.lora_rank=32 \"$@\"\n"}},
                           CheckOptions{});
  REQUIRE_FALSE(exec.ok());
  CHECK(exec.error().message.find("this script runs ${SCRIPT_DIR}/run.sh, which may hold it") != std::string::npos);
  // The only launch sits in a loop that never runs (giorgossideris/verl bash/20260203_rollout_sweep.sh,
  // `for N in ; do`): the message names the loop, not the empty values its body would pass.
  auto sweep = check_launch({InputText{"sweep.sh", "for N in ; do\n  python3 -m verl.trainer.main_ppo "
                                                   "actor_rollout_ref.rollout.n=$N trainer.n_gpus_per_node=\ndone\n"}},
                            CheckOptions{});
  REQUIRE_FALSE(sweep.ok());
  CHECK(sweep.error().line == 1);
  CHECK(sweep.error().message.find("no trainer launch found that runs: the 'for' loop at this line iterates over an "
                                   "empty word list") == 0);
}

// A multi-node script launches on its head node only (065536/Asycn_verl): read as that node, said so;
// another node's path (--env RANK=1) holds no launch.
TEST_CASE("check: a launch on the head node's branch is read as the head node") {
  const std::string text =
      "IS_HEAD=0\nif [ \"${NODE_RANK:-}\" = \"0\" ] || [ \"${RANK:-}\" = \"0\" ]; then IS_HEAD=1; fi\n"
      "if [ \"$IS_HEAD\" = \"1\" ]; then\n"
      "  python3 -m verl.trainer.main_ppo trainer.nnodes=2 actor_rollout_ref.rollout.name=vllm\n"
      "else\n  ray start --address \"$HEAD_IP:6379\" --block\nfi\n";
  auto head = check_launch({InputText{"multi_node.sh", text}}, CheckOptions{});
  REQUIRE(head.ok());
  const auto assumed = test::findings_of(head.value(), "launch.head-node");
  REQUIRE(assumed.size() == 1);
  CHECK(assumed[0].message.find("RANK=0, NODE_RANK=0") != std::string::npos);
  CheckOptions worker;
  worker.read.environment["RANK"] = "1";
  CHECK_FALSE(check_launch({InputText{"multi_node.sh", text}}, worker).ok());
}

TEST_CASE("check: a launch inside the string of bash -c is read as a script of its own") {
  // verl-megatron's flame.sh: `ray job submit ... -- bash -c "cd ... && python3 -m
  // verl.trainer.main_ppo ..."`. The script's shell expands the string first ($NODES is 2), and
  // bash removes the backslash-newlines inside double quotes: the launch is one line.
  const std::string text =
      "NODES=2\nexport WANDB_MODE=offline\nray job submit --address=http://head:8265 -- bash -c \"\n"
      "  cd /workspace && python3 -m verl.trainer.main_ppo \\\n    trainer.nnodes=$NODES \\\n"
      "    trainer.n_gpus_per_node=8 data.train_batch_size=8\n\"\n";
  CheckOptions options;
  options.read.verl_version = "0.6.1";
  auto inner = read_verl_launch({InputText{"flame.sh", text}}, options.read);
  REQUIRE(inner.ok());
  CHECK(inner->has_verl_launch);
  CHECK(find_path(inner->config, "trainer.nnodes")->integer == 2);
  const auto read = std::find_if(inner->findings.begin(), inner->findings.end(),
                                 [](const Finding& f) { return f.rule == "launch.command-string"; });
  REQUIRE(read != inner->findings.end());
  CHECK(read->message.find("inside the string of `bash -c` at line 3") != std::string::npos);
  CHECK(read->location.line == 4);
  auto checked = check_launch({InputText{"flame.sh", text}}, options);
  REQUIRE(checked.ok());
  CHECK(test::findings_of(*checked, "batch.mini-le-train").size() == 1);  // 8 prompts < mini batch 256
}

TEST_CASE("check: --verl-config reads a user's own config directory") {
  const auto dir = test::shared_file("verl/config");
  if (!dir) return;
  const test::CliRun run = test::run({"check", test::fixture("verl/clean_grpo.sh").string(), "--verl-config", dir->string()});
  CHECK(run.exit_code == 0);
}

TEST_CASE("check: a --verl-config directory whose config names ppo_trainer composes over verl's tree") {
  // ab-iitd/spectra: `--config-path=/verl/spectra/config --config-name chat_template`, whose
  // chat_template.yaml has `defaults: [ppo_trainer, _self_]` and hydra.searchpath
  // file://verl/trainer/config. The directory alone does not hold ppo_trainer.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("meshplan_launch_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "chat_template.yaml")
      << "hydra:\n  searchpath:\n    - file://verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - _self_\n"
         "data:\n  max_prompt_length: 2048\n";
  const std::filesystem::path script = dir / "train.sh";
  std::ofstream(script) << "python3 -m verl.trainer.main_ppo --config-path=/verl/spectra/config "
                           "--config-name=chat_template trainer.n_gpus_per_node=8 data.max_response_length=4096\n";
  const test::CliRun run = test::run({"check", script.string(), "--verl-config", dir.string(), "--verl-version", "0.6.1"});
  std::filesystem::remove_all(dir);
  CHECK(run.exit_code != 2);
  CHECK(run.out.find("info[verl.config-tree]: --verl-config's chat_template names configs the directory does not hold: "
                     "composed over verl 0.6.1's config tree") != std::string::npos);
  CHECK(run.out.find("hydra.unknown-key") == std::string::npos);
}

TEST_CASE("check: a launch's own --config-path is found in its repository, whatever its unknown prefix") {
  // CodeDance-VL/CodeDance: CONFIG_PATH="$(pwd)/configs" and --config-path "$CONFIG_PATH" from
  // examples/; spectra: the container path /verl/spectra/config. Both resolve by their tail
  // against the repository (the directory holding .git), and the config composes over verl's tree.
  const std::filesystem::path repo =
      std::filesystem::temp_directory_path() / ("meshplan_repo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(repo / "configs");
  std::filesystem::create_directories(repo / "examples");
  std::ofstream(repo / ".git") << "gitdir: none\n";
  std::ofstream(repo / "configs" / "my_trainer.yaml")
      << "defaults:\n  - ppo_trainer\n  - _self_\nmy_section:\n  reward_scale: 2\n";
  std::ofstream(repo / "examples" / "run.sh")
      << "CONFIG_PATH=\"$(pwd)/configs\"\npython3 -m verl.trainer.main_ppo --config-path \"$CONFIG_PATH\" "
         "--config-name my_trainer my_section.reward_scale=3 trainer.n_gpus_per_node=8\n";
  std::ofstream(repo / "examples" / "run_container.sh")
      << "python3 -m verl.trainer.main_ppo --config-path=/verl/configs --config-name my_trainer "
         "my_section.reward_scale=3 trainer.n_gpus_per_node=8\n";
  const test::CliRun pwd = test::run({"check", (repo / "examples" / "run.sh").string(), "--verl-version", "0.6.1"});
  const test::CliRun container =
      test::run({"check", (repo / "examples" / "run_container.sh").string(), "--verl-version", "0.6.1"});
  std::filesystem::remove_all(repo);
  for (const test::CliRun& run : {pwd, container}) {
    CHECK(run.exit_code != 2);
    CHECK(run.out.find("info[verl.config-tree]: --config-path ") != std::string::npos);
    CHECK(run.out.find("/configs read from ") != std::string::npos);
    CHECK(run.out.find("my_section") == std::string::npos);  // its own key is known
  }
}

TEST_CASE("a key added with '+' to a dataclass section is caught (verl R5)") {
  const CheckReport report = test::check_lines(test::with(test::fsdp_baseline(), {"+actor_rollout_ref.model.torch_dtype=bfloat16"}));
  const auto hits = test::findings_of(report, "config.not-a-dataclass-field");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("'torch_dtype' is not a field of verl.workers.config.HFModelConfig") == 0);
  // reward_kwargs is a free dict (read with .get): adding to it is fine.
  const CheckReport free = test::check_lines(test::with(test::fsdp_baseline(), {"+reward_model.reward_kwargs.max_resp_len=1024"}));
  CHECK(test::findings_of(free, "config.not-a-dataclass-field").empty());
  // The critic section is converted only when a critic runs (verl/utils/config.py validate_config:
  // `if use_critic`): GRPO never reads a key added there; GAE does.
  const CheckReport grpo = test::check_lines(
      test::with(test::fsdp_baseline(), {"algorithm.adv_estimator=grpo", "+critic.my_field=1"}));
  CHECK(test::findings_of(grpo, "config.not-a-dataclass-field").empty());
  const CheckReport gae = test::check_lines(
      test::with(test::fsdp_baseline(), {"algorithm.adv_estimator=gae", "+critic.my_field=1"}));
  CHECK(test::findings_of(gae, "config.not-a-dataclass-field").size() == 1);
}

TEST_CASE("a number or boolean option given another type is caught") {
  const CheckReport report = test::check_lines(test::with(
      test::fsdp_baseline(), {"trainer.n_gpus_per_node=eight", "actor_rollout_ref.model.use_remove_padding=yes",
                              "actor_rollout_ref.rollout.top_p=0.9"}));  // top_p's default is written 1: a float is fine
  const auto hits = test::findings_of(report, "config.type");
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].message.find("'trainer.n_gpus_per_node' takes a number (default 8), not 'eight'") == 0);
  CHECK(hits[1].keys[0] == "actor_rollout_ref.model.use_remove_padding");
}

TEST_CASE("a boolean where a number is expected: fine in a plain section, an error in a dataclass") {
  // Python's bool is an int: trainer (a plain DictConfig) takes test_freq=False as 0, as verl's own
  // tests/special_e2e/ppo_trainer/run_model_reward.sh does; actor (FSDPActorConfig) converts it.
  const CheckReport report = test::check_lines(
      test::with(test::fsdp_baseline(), {"trainer.test_freq=False", "actor_rollout_ref.actor.ppo_epochs=True"}));
  const auto hits = test::findings_of(report, "config.type");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].keys[0] == "actor_rollout_ref.actor.ppo_epochs");
}

// A plain section (no `_target_`) is an untyped OmegaConf node: a string reaches the code as given, and
// Python's truth test takes it (JetAstra/PI-Mem's ppo_trainer.yaml has `recurrent.enable: False` and its
// launches set recurrent.enable=memory, a section name its ray_trainer.py reads). A warning, not an
// error; a dataclass field (HFModelConfig.use_remove_padding above) stays an error.
TEST_CASE("a boolean default of a plain section given a word is a warning") {
  const CheckReport report =
      test::check_lines(test::with(test::fsdp_baseline(), {"trainer.val_before_train=memory"}));
  const auto hits = test::findings_of(report, "config.type");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::warning);
  CHECK(hits[0].message.find("its section is no dataclass") != std::string::npos);
}

TEST_CASE("a launch line whose command or config name is not known statically is named") {
  // COMMAND differs between the branches, so the command at line 7 may be the launch.
  auto branches = check_launch({InputText{"run.sh",
                                          "if [ \"$MODE\" = spmd ]; then\n"
                                          "  COMMAND=\"torchrun --standalone -m verl.trainer.sft_trainer\"\n"
                                          "else\n"
                                          "  COMMAND=\"python -m verl.trainer.sft_trainer_ray\"\n"
                                          "fi\n"
                                          "echo start\n"
                                          "$COMMAND trainer.nnodes=1\n"}},
                               CheckOptions{});
  REQUIRE_FALSE(branches.ok());
  CHECK(branches.error().line == 7);
  CHECK(branches.error().message.find("$COMMAND is set differently in the branches of the if at line 1") !=
        std::string::npos);
  // --config-name "$1": the script's caller gives it at run time, so it is not known statically.
  auto positional = check_launch(
      {InputText{"run.sh", "CONFIG_NAME=\"$1\"\npython3 -m verl.trainer.main_ppo --config-name \"$CONFIG_NAME\"\n"}},
      CheckOptions{});
  REQUIRE_FALSE(positional.ok());
  CHECK(positional.error().message.find("the launch's --config-name is empty or not known statically") == 0);
}

TEST_CASE("a launch in each branch of an if is checked, and what they share is said once") {
  // The then-branch sets gpu_memory_utilization=1.5 (R: value range), the else-branch
  // rollout.mode=sync (removed); NCCL_COMPRESS is exported before the block, so both launches see
  // it: the warning appears once.
  std::string common;
  for (const std::string& line : test::fsdp_baseline()) common += " " + line;
  const std::string script = "export NCCL_COMPRESS=1\n"
                             "if [ \"$STRATEGY\" = a ]; then\n"
                             "  python3 -m verl.trainer.main_ppo" + common + " actor_rollout_ref.rollout.gpu_memory_utilization=1.5\n"
                             "else\n"
                             "  python3 -m verl.trainer.main_ppo" + common + " actor_rollout_ref.rollout.mode=sync\n"
                             "fi\n";
  auto report = check_launch({InputText{"run.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  const auto range = test::findings_of(*report, "rollout.gpu-memory-utilization");
  const auto removed = test::findings_of(*report, "rollout.mode-sync-removed");
  REQUIRE(range.size() == 1);
  REQUIRE(removed.size() == 1);
  CHECK(range[0].location.line == 3);
  CHECK(removed[0].location.line == 5);
  CHECK(test::findings_of(*report, "env.unknown").size() == 1);
}

TEST_CASE("overrides written with leading dashes (as in the seed articles) are rejected") {
  const CheckReport report = test::check_lines(
      test::with(test::fsdp_baseline(), {"--actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"}));
  const auto hits = test::findings_of(report, "hydra.unknown-flag");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].fix[0] == "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2");
}

TEST_CASE("Hydra's flags as its argparse parser reads them: abbreviations, ambiguity, a refused flag's value") {
  // Skylanding/ARISE recipe/arise/run_arise_qwen3_4b.sh: `--config recipe/.../x.yaml --recipe arise` on
  // a plain @hydra.main entry. argparse (allow_abbrev) refuses --config as ambiguous and --recipe as
  // unknown; each one's value is its value, not an override of its own (no hydra.parse finding).
  const auto launch = [](const std::string& extra) {
    std::string script = "python3 -m verl.trainer.main_ppo";
    for (const std::string& line : test::fsdp_baseline()) script += " " + line;
    auto report = check_launch({InputText{"run.sh", script + " " + extra + "\n"}}, CheckOptions{});
    REQUIRE(report.ok());
    return *report;
  };
  const CheckReport refused = launch("--config recipe/arise/config/arise.yaml --recipe arise");
  const auto flags = test::findings_of(refused, "hydra.unknown-flag");
  REQUIRE(flags.size() == 2);
  CHECK(flags[0].message ==
        "'--config' abbreviates several of Hydra's flags (--config-path, --config-name, --config-dir): main_ppo stops "
        "with \"ambiguous option\" (with its value 'recipe/arise/config/arise.yaml')");
  CHECK(flags[1].message.find("'--recipe' is not a flag Hydra knows") == 0);
  CHECK(test::findings_of(refused, "hydra.parse").empty());
  // Hydra's own flags are no error, and a flag's value is not read as an override: --multirun, -m,
  // --cfg job (an abbreviation --cf too).
  const CheckReport own = launch("--multirun --cf job");
  CHECK(test::findings_of(own, "hydra.unknown-flag").empty());
  CHECK(test::findings_of(own, "hydra.parse").empty());
}

TEST_CASE("an unquoted variable whose blanks split an override is named once, not once per piece") {
  // PRIS-CV/GRPO-for-Llava examples/grpo_trainer/run_llava1_5-7b.sh: HOME='Your grpo4llava path' left as
  // a placeholder, then data.train_files=$HOME/... and data.val_files=$HOME/... unquoted: bash passes
  // 'grpo4llava' and 'path/...' as words of their own, which Hydra refuses (4 findings before).
  std::string script = "HOME='Your grpo4llava path'\npython3 -m verl.trainer.main_ppo";
  for (const std::string& line : test::fsdp_baseline()) script += " " + line;
  script += " data.train_files=$HOME/data/train.parquet data.val_files=$HOME/data/test.parquet\n";
  auto report = check_launch({InputText{"run.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  const auto pieces = test::findings_of(*report, "hydra.parse");
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0].message.find("'grpo4llava' has no '='") == 0);
  CHECK(pieces[0].message.find("it is a piece of $HOME (line 1: 'Your grpo4llava path'), split at its blanks because "
                               "the expansion is unquoted (bash word splitting): quote it (\"$HOME\")") !=
        std::string::npos);
}

TEST_CASE("a user's YAML config merges over the base before the overrides") {
  CheckOptions options;
  const std::string yaml = "data:\n  train_batch_size: 63\n  image_preprocess_workers: 12\n";
  std::string lines;
  for (const std::string& line : test::fsdp_baseline()) {
    if (line.rfind("data.train_batch_size", 0) != 0) lines += line + "\n";
  }
  auto report = check_launch({InputText{"config.yaml", yaml}, InputText{"overrides.txt", lines}}, options);
  REQUIRE(report.ok());
  CHECK(test::findings_of(*report, "batch.train-divisible").size() == 1);
  const auto unknown = test::findings_of(*report, "config.unknown-key");  // the seed's invented key
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].location.line == 3);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("check: Megatron-LM launches alone name no verl schema") {
  // A script with only `torchrun pretrain_gpt.py ...` consults no verl: --json's verl_schema is ""
  // (it printed "verl  (verl-project/verl@, )").
  auto report = check_launch(
      {InputText{"pretrain.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 8 "
                                "--pipeline-model-parallel-size 2\n"}},
      CheckOptions{});
  REQUIRE(report.ok());
  CHECK(report->verl_source.empty());
  CHECK(report->errors == 0);
}

}  // namespace meshplan
