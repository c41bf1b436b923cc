// The corpus: realistic logs written from the real message formats (tests/fixtures/logs/), with
// noise (Ray colour codes, progress bars redrawn with \r, warnings, interleaved ranks). Each one
// must name the expected root-cause category first and propose a fix that names the right knob.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "diagnose/signature.hpp"
#include "test_support.hpp"

namespace meshplan {

namespace {

struct CorpusCase {
  std::vector<std::string> logs;
  std::string category;
  std::string fix;  ///< a substring of one of the root cause's fixes
  int exit_code = 1;
};

const std::vector<CorpusCase>& corpus() {
  static const std::vector<CorpusCase> kCases = {
      {{"oom_training_update_actor_rank3.log"}, "oom_training", "ppo_micro_batch_size_per_gpu"},
      {{"oom_training_compute_log_prob_driver.log"}, "oom_training",
       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8  # was 16"},
      {{"oom_training_ref_legacy_format.log"}, "oom_training", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"},
      {{"oom_rollout_generate_sequences.log"}, "oom_rollout",
       "actor_rollout_ref.rollout.gpu_memory_utilization=0.6  # was 0.7"},
      {{"oom_rollout_wake_up_cumem.log"}, "oom_rollout", "actor_rollout_ref.actor.fsdp_config.param_offload=True"},
      {{"rollout_memory_budget_free_below_gmu.log"}, "rollout_memory_budget",
       "actor_rollout_ref.rollout.gpu_memory_utilization=0.67"},
      {{"rollout_memory_budget_kv_cache_max_len.log"}, "rollout_memory_budget",
       "actor_rollout_ref.rollout.max_model_len=6144"},
      {{"rollout_memory_budget_sglang.log"}, "rollout_memory_budget", "gpu_memory_utilization"},
      {{"rollout_memory_budget_no_cache_blocks.log"}, "rollout_memory_budget", "gpu_memory_utilization"},
      {{"host_oom_dmesg.log", "host_oom_driver_actor_died.log"}, "host_oom", "CPU RAM per GPU"},
      {{"host_oom_ray_memory_monitor.log"}, "host_oom", "data.dataloader_num_workers"},
      {{"nccl_timeout_reduce_scatter_all_ranks.log"}, "nccl_timeout", "NCCL_DEBUG=INFO"},
      {{"nccl_timeout_allreduce_stuck.log"}, "nccl_timeout", "actor_rollout_ref.nccl_timeout=1800"},
      {{"nccl_network_ib_completion.log"}, "nccl_network", "NCCL_IB_HCA"},
      {{"nccl_network_unhandled_system_error.log"}, "nccl_network", "NCCL_SOCKET_IFNAME"},
      {{"device_visibility_no_gpus.log"}, "device_visibility", "CUDA_VISIBLE_DEVICES"},
      {{"device_visibility_invalid_ordinal.log"}, "device_visibility", "trainer.n_gpus_per_node"},
      {{"device_visibility_xid79_rank2.log", "device_visibility_xid79_dmesg.log"}, "device_visibility", "nvidia-smi"},
      {{"parallel_mismatch_megatron_world_size.log"}, "parallel_mismatch", "1, 2, 4, 8"},
      {{"parallel_mismatch_rollout_tp.log"}, "parallel_mismatch",
       "actor_rollout_ref.rollout.tensor_model_parallel_size=2"},
      {{"parallel_mismatch_ulysses_heads.log"}, "parallel_mismatch",
       "actor_rollout_ref.actor.ulysses_sequence_parallel_size=8"},
      {{"batch_config_train_batch_not_divisible.log"}, "batch_config", "data.train_batch_size=104"},
      {{"batch_config_mini_micro.log"}, "batch_config", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=6"},
      {{"batch_config_train_below_mini.log"}, "batch_config", "actor_rollout_ref.actor.ppo_mini_batch_size=64"},
      {{"config_key_unknown_override.log"}, "config_key", "+actor_rollout_ref.actor.ppo_micro_batch_size_per_gpus=4"},
      {{"config_key_missing_rollout_name.log"}, "config_key", "actor_rollout_ref.rollout.name="},
      {{"config_key_rollout_mode_sync.log"}, "config_key", "actor_rollout_ref.rollout.mode=async"},
      {{"checkpoint_mismatch_vocab_size.log"}, "checkpoint_mismatch", "model_world_size"},
      {{"checkpoint_mismatch_megatron_tp.log"}, "checkpoint_mismatch", "use_dist_checkpointing=True"},
      {{"sequence_length_token_budget.log"}, "sequence_length",
       "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=18432"},
      {{"sequence_length_vllm_prompt.log"}, "sequence_length", "actor_rollout_ref.rollout.max_model_len=18432"},
      {{"sequence_length_truncation_error.log"}, "sequence_length", "data.filter_overlong_prompts=True"},
      {{"resources_not_enough_gpus.log"}, "resources", "trainer.nnodes=1"},
      {{"resources_register_worker.log"}, "resources", "ray_kwargs.ray_init.num_cpus"},
      {{"bottleneck_generation_long_responses.log"}, "bottleneck_generation",
       "actor_rollout_ref.rollout.gpu_memory_utilization", 0},
      {{"bottleneck_generation_small_kv.log"}, "bottleneck_generation", "enforce_eager=False", 0},
      {{"bottleneck_training_offload.log"}, "bottleneck_training", "use_dynamic_bsz=True", 0},
      {{"bottleneck_training_small_micro_batch.log"}, "bottleneck_training", "ppo_micro_batch_size_per_gpu", 0},
      {{"bottleneck_data_slow_reward.log"}, "bottleneck_data", "reward_model.launch_reward_fn_async=True", 0},
      {{"bottleneck_data_untimed_gap.log"}, "bottleneck_data", "data.dataloader_num_workers", 0},
  };
  return kCases;
}

}  // namespace

TEST_CASE("corpus: every log names the expected root cause first, with a fix naming the knob") {
  for (const CorpusCase& c : corpus()) {
    CAPTURE(c.logs.front());
    std::vector<std::string> args = {"diagnose", "--json"};
    for (const std::string& log : c.logs) args.push_back(test::fixture("logs/" + log).string());
    const test::CliRun run = test::run(args);
    CHECK(run.exit_code == c.exit_code);
    const auto json = nlohmann::json::parse(run.out);
    REQUIRE_FALSE(json["diagnoses"].empty());
    const auto& root = json["diagnoses"][0];
    CHECK(root["category"] == c.category);
    CHECK(root["root_cause"] == true);
    CHECK_FALSE(root["evidence"].empty());
    bool fix_found = false;
    for (const auto& fix : root["fixes"]) {
      fix_found = fix_found || fix["text"].get<std::string>().find(c.fix) != std::string::npos;
    }
    CHECK_MESSAGE(fix_found, "no fix contains: " << c.fix << "\n" << run.out);
  }
}

TEST_CASE("the two corpora together cover every category at least twice") {
  std::map<std::string, int> per_category;
  for (const CorpusCase& c : corpus()) ++per_category[c.category];
  for (const auto& entry : nlohmann::json::parse(test::file_text(test::fixture("logs/real/index.json")))) {
    ++per_category[entry["category"].get<std::string>()];
  }
  for (const Category& category : categories()) {
    CAPTURE(category.id);
    CHECK(per_category[std::string(category.id)] >= 2);
  }
}

TEST_CASE("a healthy run has no diagnosis and exits 0") {
  const test::CliRun run = test::run({"diagnose", test::fixture("logs/healthy_balanced_run.log").string()});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("No failure signature found.") != std::string::npos);
}

}  // namespace meshplan
