#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "diagnose/log_scanner.hpp"
#include "diagnose/python_literal.hpp"
#include "diagnose/run_facts.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("flatten_python_dict reads pprint's output: nesting, lists, split strings, True/None") {
  const auto flat = flatten_python_dict(
      "{'actor_rollout_ref': {'actor': {'checkpoint': {'contents': ['model', 'optimizer']}, 'clip_ratio': 0.2,"
      " 'use_dynamic_bsz': False}, 'model': {'path': 'Qwen/Qwen2.5-' '7B-Instruct'}}, 'algorithm': "
      "{'adv_estimator': 'grpo', 'kl_ctrl': {}}, 'reward_model': {'enable': None}}");
  CHECK(flat.at("actor_rollout_ref.actor.clip_ratio") == "0.2");
  CHECK(flat.at("actor_rollout_ref.actor.use_dynamic_bsz") == "False");
  CHECK(flat.at("actor_rollout_ref.actor.checkpoint.contents") == "['model', 'optimizer']");
  CHECK(flat.at("actor_rollout_ref.model.path") == "Qwen/Qwen2.5-7B-Instruct");
  CHECK(flat.at("algorithm.adv_estimator") == "grpo");
  CHECK(flat.at("reward_model.enable") == "null");
  CHECK(flat.count("algorithm.kl_ctrl") == 0);  // an empty dict has no leaves
  CHECK(flatten_python_dict("{'a': {'b': 1, 'c': ").size() == 1);  // a cut dump keeps what it read
}

TEST_CASE("smi_gpu_name reads nvidia-smi rows, not its header") {
  CHECK(smi_gpu_name("|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |") ==
        "NVIDIA A100-SXM4-80GB");
  CHECK(smi_gpu_name("|   3  NVIDIA H100 80GB HBM3          On  | 00000000:5D:00.0 Off |") == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(smi_gpu_name("| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4 |"));
}


TEST_CASE("the scanner reads the run's facts: config, NCCL, GPUs, frameworks") {
  // verl's start-up print of its resolved config (main_ppo.py: pprint(OmegaConf.to_container(...)))
  // as Ray forwards it, an nvidia-smi paste, NCCL's banner and network lines, then an OOM.
  LogScanner scanner;
  std::istringstream log{test::file_text(test::fixture("logs/run_facts_verl_oom.log"))};
  REQUIRE(scanner.scan(log, "run.log").ok());
  const RunFacts& facts = scanner.output().facts;
  CHECK(facts.verl);
  CHECK(facts.resolved_config.at("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu") == "16");
  CHECK(facts.resolved_config.at("trainer.nnodes") == "1");
  REQUIRE(facts.resolved_config_line.has_value());
  CHECK(facts.resolved_config_line->line == 4);
  CHECK(facts.nccl_version == "2.21.5+cuda12.4");
  REQUIRE(facts.nccl_networks.size() == 1);
  CHECK(facts.nccl_networks[0].starts_with("NET/IB : Using [0]mlx5_0:1/IB"));
  CHECK(facts.driver_version == "550.54.15");
  CHECK(facts.cuda_version == "12.4");
  CHECK(facts.gpu_names == std::vector<std::string>{"NVIDIA A100-SXM4-80GB"});
}

TEST_CASE("diagnose without --config/--model/--gpu computes the fixes from the log's own facts") {
  const auto path = test::fixture("logs/run_facts_verl_oom.log");
  const test::CliRun run = test::run({"diagnose", path.string()});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("fixes computed for verl's printed config at " + path.string() + ":4 (with verl's defaults)") != std::string::npos);
  CHECK(run.out.find("NCCL 2.21.5+cuda12.4") != std::string::npos);
  CHECK(run.out.find("GPUs: NVIDIA A100-SXM4-80GB") != std::string::npos);
  CHECK(run.out.find("ROOT CAUSE: oom_training [error] in update_actor") != std::string::npos);
  CHECK(run.out.find("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8  # was 16") != std::string::npos);
  // Model (Qwen2.5-7B-Instruct, a preset) and GPU (A100-SXM4-80GB) from the log: the memory model
  // checks the halved micro-batch as `check` would with --config --model --gpu.
  CHECK(run.out.find("predicted by the memory model: update_actor peak ") != std::string::npos);
  CHECK(run.out.find("expandable_segments") == std::string::npos);  // verl + vLLM: sleep mode
  CHECK(run.out.find("critic.") == std::string::npos);              // GRPO: no critic
}

}  // namespace meshplan
