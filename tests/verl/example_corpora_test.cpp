// verl's own example launch scripts at two more versions, checked as a user would (the script
// alone, --verl-version naming the verl it ships with): verl-project/verl main@1dda039b
// (2026-08, the newest embedded; with the one-step-off and fully-async trainers' scripts under
// verl/experimental/ and the launches verl's own CI runs under tests/, CUDA and Ascend) and the
// v0.6.1 release (its fully-async scripts under recipe/). The scripts are bundled unchanged in
// tests/fixtures/verl/examples/*.bundle (tools/bundle_verl_examples.py; the header names the
// commit). Every script checks without errors, except the ones listed below, each with the verl
// (or Hydra) code that makes it fail, and the ones that need a config of their own (exit 2).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "test_support.hpp"
#include "verl/check.hpp"
#include "verl/verl_example_scripts.hpp"

namespace meshplan {
namespace {

struct Corpus {
  std::string bundle;
  std::string verl_version;
  std::size_t scripts;
  /// path -> (rule that must fire, why the launch really fails on that verl)
  std::map<std::string, std::pair<std::string, std::string>> broken;
  /// path -> why the script alone cannot be composed (exit 2): the text the message must hold
  std::map<std::string, std::string> unreadable;
  /// scripts of the one-step-off trainer (recipe/ or verl/experimental/one_step_off_policy), each
  /// composed from one_step_off_ppo_trainer and checked, not passed over as another entry point
  int one_step_off = 0;
  /// scripts of the fully-async trainer (fully_async_main), composed from fully_async_ppo_trainer
  int fully_async = 0;
};

void check_corpus(const Corpus& corpus) {
  const auto scripts = test::bundled_scripts(test::fixture("verl/examples/" + corpus.bundle));
  REQUIRE(scripts.size() == corpus.scripts);
  CheckOptions options;
  // No version: the script alone, as a user runs check on it (the newest embedded is assumed).
  if (!corpus.verl_version.empty()) options.read.verl_version = corpus.verl_version;
  int clean = 0, broken = 0, unreadable = 0, one_step_off = 0, fully_async = 0;
  for (const auto& [path, text] : scripts) {
    const auto report = check_launch({InputText{path, text}}, options);
    if (report.ok() && report->config_name.starts_with("one_step_off_ppo")) ++one_step_off;
    if (report.ok() && report->config_name.starts_with("fully_async_ppo")) ++fully_async;
    const auto cannot = corpus.unreadable.find(path);
    if (!report.ok()) {
      CHECK_MESSAGE(cannot != corpus.unreadable.end(), path << ": " << report.error().to_string());
      if (cannot != corpus.unreadable.end()) {
        CHECK_MESSAGE(report.error().to_string().find(cannot->second) != std::string::npos,
                      path << ": " << report.error().to_string());
      }
      ++unreadable;
      continue;
    }
    CHECK_MESSAGE(cannot == corpus.unreadable.end(), path << " was expected to need its config directory");
    std::set<std::string> rules;
    std::string errors;
    for (const Finding& f : report->findings) {
      if (f.severity != Severity::error) continue;
      rules.insert(f.rule);
      errors += "\n  " + std::to_string(f.location.line) + " [" + f.rule + "] " + f.message;
    }
    const auto known = corpus.broken.find(path);
    if (known == corpus.broken.end()) {
      CHECK_MESSAGE(rules.empty(), path << errors);
      clean += rules.empty() ? 1 : 0;
    } else {
      CHECK_MESSAGE(rules.count(known->second.first) == 1,
                    path << " should trip " << known->second.first << " (" << known->second.second << ")" << errors);
      ++broken;
    }
  }
  MESSAGE(corpus.bundle << ": " << scripts.size() << " scripts, " << clean << " clean, " << broken
                        << " really broken, " << unreadable
                        << " need a config of their own (--config-path, hydra.searchpath) meshplan cannot read");
  CHECK(clean + broken + unreadable == static_cast<int>(scripts.size()));
  CHECK(one_step_off == corpus.one_step_off);
  CHECK(fully_async == corpus.fully_async);
}

// The launches broken on every release since the engine workers (v0.8.0 .. main@1dda039b), each
// with the code that makes it fail.
std::map<std::string, std::pair<std::string, std::string>> broken_since_080() {
  return {
      {"examples/grpo_trainer/run_gpt_oss_20b_fsdp.sh",
       {"hydra.append-existing",
        "+actor_rollout_ref.actor.fsdp_config.model_dtype: engine/fsdp.yaml sets model_dtype: fp32, so Hydra's "
        "_apply_overrides_to_config raises 'Could not append'; engine_kwargs.sglang.attention_backend lacks '+' "
        "under the struct {}"}},
      {"examples/tuning/lora/run_qwen3_8b_merge_fsdp.sh",
       {"hydra.append-existing",
        "+actor_rollout_ref.model.lora.merge: model/hf_model.yaml sets lora.merge: False (Hydra: 'Could not append')"}},
      {"examples/grpo_trainer/run_qwen3_30b_a3b_megatron.sh",
       {"rollout.expert-parallel",
        "with its default INFER_BACKEND=vllm (the trtllm branch at line 231 does not run) it still passes the "
        "trtllm settings rollout.expert_parallel_size=2 and moe_tensor_parallel_size=2: RolloutConfig.__post_init__ "
        "asserts expert_parallel_size == TP 4 x DP 1 for vllm; Megatron's ETP defaults to TP, so ETP 4 x EP 2 x "
        "PP 2 = 16 does not divide its 8 GPUs either"}},
      {"examples/router_replay/run_qwen3_30b_a3b_megatron.sh",
       {"hydra.unknown-key",
        "actor_rollout_ref.actor.model_engine=megatron: model_engine is the top-level group choice, not an actor "
        "key; the dp actor (FSDPActorConfig) has neither it nor the megatron.* keys set after it"}},
      {"examples/tuning/scaling/run_qwen2_5_32b_megatron.sh",
       {"hydra.unknown-key", "actor_rollout_ref.actor.model_engine=megatron, as router_replay's script"}},
      {"examples/sapo_trainer/run_qwen3_30b_a3b_fsdp.sh",
       {"config.not-a-dataclass-field",
        "+actor_rollout_ref.actor.policy_loss.tau_pos / tau_neg: fields of ActorConfig (actor.tau_pos), not of "
        "PolicyLossConfig; omega_conf_to_dataclass of the policy_loss section fails at start-up"}},
      {"examples/sapo_trainer/run_qwen3_8b_fsdp.sh",
       {"config.not-a-dataclass-field", "policy_loss.tau_pos / tau_neg, as the 30B script"}},
      // RLOO without rollout.n (1): a mini-batch of 32 is 4 sequences a rank on 8 GPUs, cut into
      // micro-batches of 8 (engine_workers.py train_mini_batch -> prepare_micro_batches asserts).
      {"examples/rollout_correction/run_qwen2_5_7b_fsdp.sh",
       {"engine.micro-divisible", "32 * 1 / dp 8 = 4 per rank, not a multiple of ppo_micro_batch_size_per_gpu 8"}},
      {"examples/rollout_correction/run_qwen2_5_7b_fsdp_multi_rs.sh",
       {"engine.micro-divisible", "as run_qwen2_5_7b_fsdp.sh"}},
      // The fully-async trainer's scripts (verl/experimental/fully_async_policy/shell).
      {"verl/experimental/fully_async_policy/shell/dapo_7b_math_fsdp2_4_12.sh",
       {"dispatch.balance-batch-partitions",
        "a step of ppo_mini_batch_size 512 x require_batches 1 x n 4 = 2048 rows over the trainer's 12 GPUs: "
        "balance_batch's get_seqlen_balanced_partitions asserts 2048 % 12 == 0 at the first step"}},
      {"verl/experimental/fully_async_policy/shell/geo3k_qwen3vl_30b_a3b_fsdp2_32_32.sh",
       {"trainer.logger",
        "trainer.logger='[\"console\",\"wandb\"]' inside a double-quoted shell string reaches Hydra as "
        "the string [console,wandb]: Tracking.__init__ asserts '[console,wandb] is not supported'"}},
      {"verl/experimental/fully_async_policy/shell/geo3k_qwen3vl_8b_fsdp2_16_16_npu.sh",
       {"trainer.logger", "the same quoting as the 30B geo3k script"}},
      {"verl/experimental/fully_async_policy/shell/geo3k_qwen25vl_7b_megatron_4_4.sh",
       {"shell.broken-continuation",
        "line 74 is blank after rollout.name=$ENGINE \\: bash ends the launch there, gpu_memory_utilization, "
        "rollout.n and every override after them are not passed, and line 75 then runs as a command of its own"}},
      {"verl/experimental/fully_async_policy/shell/grpo_qwen35_35b_megatron_async.sh",
       {"hydra.unknown-key",
        "actor_rollout_ref.rollout.single_turn_response_length is in no config and has no '+'; "
        "+algorithm.filter_groups.enable / max_num_gen_batches append onto existing keys"}},
  };
}

}  // namespace

TEST_CASE("verl main@1dda039b's example launches: no false error, the broken ones with their reason") {
  check_corpus(Corpus{
      "verl_1dda039b.bundle", "main@1dda039b", 152,
      broken_since_080(),
      // Its --config-name fully_async_dapo_trainer.yaml was never in fully_async_policy/config.
      {{"verl/experimental/fully_async_policy/shell/dapo_30b_a3b_base_math_fsdp.sh",
        "is not in verl main@1dda039b's config tree"}},
      10,    // verl/experimental/one_step_off_policy/shell/*.sh but the three *_colocate.sh (main_ppo baselines)
      21});  // the fully-async scripts (21 under verl/experimental/, one under examples/mtp_trainer/) but the one above
}

TEST_CASE("verl v0.6.1's example launches: no false error, the broken ones with their reason") {
  // With tests/**/*.sh: the launches verl's CI ran at v0.6.1 (two of them still asked for the hf
  // rollout, which the registry no longer had).
  std::map<std::string, std::string> config_path;
  for (const char* path :
       {"examples/sglang_multiturn/geo3k/run_qwen2.5-3b_geo3k_multiturn.sh",
        "examples/sglang_multiturn/geo3k/run_qwen2.5-3b_geo3k_multiturn_4xgpu.sh",
        "examples/sglang_multiturn/geo3k/run_qwen2.5-3b_megatron_geo3k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen0.5b_gsm8k_multiturn_curriculum.sh",
        "examples/sglang_multiturn/run_qwen2.5-0.5b_gsm8k_multiturn_w_interaction.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn_4xgpu.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn_4xgpu_server.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn_server.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn_vllm_fsdp.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_tool_agent_mlflow.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_megatron_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen3-4b_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/search_r1_like/run_qwen2.5-3b_instruct_search_multiturn.sh",
        "recipe/deepeyes/run_deepeyes_grpo.sh", "recipe/fapo/run_baseline_32b.sh", "recipe/fapo/run_baseline_7b.sh",
        "recipe/fapo/run_fapo_32b.sh", "recipe/fapo/run_fapo_32b_remote.sh", "recipe/fapo/run_fapo_7b.sh",
        "recipe/fapo/run_fapo_7b_remote.sh", "tests/special_e2e/run_geo3k_fsdp_sgl_multiturn_w_tool.sh",
        "tests/special_e2e/run_gsm8k_fsdp_sgl_multiturn_sf_tool.sh",
        "tests/special_e2e/run_gsm8k_fsdp_sgl_multiturn_w_tool.sh"}) {
    config_path[path] = "comes from --config-path";  // their own config, next to the script
  }
  // CI's generic runner takes its config name as a positional parameter.
  config_path["tests/special_e2e/run_test.sh"] = "not known statically";
  check_corpus(Corpus{
      "verl_v0.6.1.bundle", "0.6.1", 170,
      {
          {"examples/grpo_trainer/run_deepseek671b_math_megatron_80gb.sh",
           {"megatron.ref-micro-set",
            "Megatron ref with dynamic bsz and no ref log_prob micro batch: megatron_workers.py's ref __init__ asserts"}},
          {"examples/grpo_trainer/run_gptoss_20b.sh",
           {"hydra.append-existing", "+actor_rollout_ref.actor.fsdp_config.model_dtype on the existing fp32 default"}},
          {"examples/grpo_trainer/run_qwen3_vl-30b-megatron.sh",
           {"shell.broken-continuation", "line 73: a comment inside the backslash continuation ends the command"}},
          {"examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh",
           {"shell.broken-continuation", "line 6: '\\ ' ends the command and passes a blank argument"}},
          {"examples/ppo_trainer/run_deepseek_full_hh_rlhf.sh",
           {"hydra.unknown-key",
            "reward_model.param_offload: v0.6.1's megatron_reward_model.yaml has megatron.param_offload only"}},
          {"examples/rollout_correction/run_with_rollout_corr.sh",
           {"batch.actor-micro-exclusive",
            "neither actor ppo_micro_batch_size nor _per_gpu: validate_config's check_mutually_exclusive raises"}},
          {"recipe/langgraph_agent/example/run_gpt_oss_20b_bf16.sh",
           {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4"}},
          {"recipe/langgraph_agent/example/run_qwen2.5_3b.sh",
           {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4"}},
          {"tests/special_e2e/ppo_trainer/run_single_gpu.sh",
           {"rollout.name",
            "rollout.name=hf: v0.6.1's _ROLLOUT_REGISTRY has vllm and sglang only; get_rollout_class asserts "
            "'Rollout hf with mode sync not found' (0.5.0's _build_rollout still built HFRollout)"}},
          {"tests/special_e2e/ppo_trainer/run_single_gpu_with_engine.sh",
           {"rollout.name", "rollout.name=hf, as run_single_gpu.sh"}},
          {"recipe/fully_async_policy/shell/dapo_7b_math_fsdp2_4_12.sh",
           {"dispatch.balance-batch-partitions",
            "2048 rows a step over the trainer's 12 GPUs (v0.6.1 partitions by the worker group's world size)"}},
          {"recipe/fully_async_policy/shell/dapo_7b_math_fsdp2_64_64_mis.sh",
           {"algorithm.rollout-correction",
            "rollout_is=geometric: v0.6.1's compute_rollout_correction_weights (rollout_corr_helper.py) accepts token "
            "and sequence only and raises ValueError"}},
      },
      config_path,
      7,    // recipe/one_step_off_policy/*.sh but the three *_colocate.sh (main_ppo baselines), and CI's run_one_step_off_policy.sh
      11});  // recipe/fully_async_policy/shell/*.sh and CI's run_fully_async_policy.sh  // recipe/one_step_off_policy/*.sh but the three *_colocate.sh (main_ppo baselines), and CI's run_one_step_off_policy.sh
}

// The sglang_multiturn launches of v0.4.1 .. v0.7.1 (and CI's copies) read their config from
// --config-path next to the script (the ones every release has, and `more`); CI's generic runner
// names its config by a positional parameter.
std::map<std::string, std::string> multiturn_config_paths(std::initializer_list<const char*> more) {
  std::map<std::string, std::string> config_path;
  for (const char* path :
       {"examples/sglang_multiturn/geo3k/run_qwen2.5-3b_geo3k_multiturn.sh",
        "examples/sglang_multiturn/geo3k/run_qwen2.5-3b_geo3k_multiturn_4xgpu.sh",
        "examples/sglang_multiturn/geo3k/run_qwen2.5-3b_megatron_geo3k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen2.5-0.5b_gsm8k_multiturn_w_interaction.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn_4xgpu.sh",
        "examples/sglang_multiturn/run_qwen2.5-3b_megatron_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/run_qwen3-4b_gsm8k_multiturn.sh",
        "examples/sglang_multiturn/search_r1_like/run_qwen2.5-3b_instruct_search_multiturn.sh",
        "tests/special_e2e/run_geo3k_fsdp_sgl_multiturn_w_tool.sh",
        "tests/special_e2e/run_gsm8k_fsdp_sgl_multiturn_sf_tool.sh",
        "tests/special_e2e/run_gsm8k_fsdp_sgl_multiturn_w_tool.sh"}) {
    config_path[path] = "comes from --config-path";
  }
  for (const char* path : more) config_path[std::string("examples/sglang_multiturn/") + path] = "comes from --config-path";
  config_path["tests/special_e2e/run_test.sh"] = "not known statically";
  return config_path;
}

// The two multiturn scripts of v0.5.0 on.
constexpr std::initializer_list<const char*> kMultiturn050 = {"run_qwen0.5b_gsm8k_multiturn_curriculum.sh",
                                                              "run_qwen2.5-3b_gsm8k_tool_agent_mlflow.sh"};

// Broken on both releases: the DeepSeek-7B pf-PPO script's line 6 ("\ " then a comment) ends the
// launch before its batch sizes, the Megatron HH-RLHF script sets reward_model.param_offload, which
// ppo_megatron_trainer.yaml has only under reward_model.megatron, and the Megatron seq-balance GRPO
// script (below).
const std::map<std::string, std::pair<std::string, std::string>> kBrokenIn041And050 = {
    {"examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh",
     {"shell.broken-continuation", "line 6: '\\ ' ends the command and passes a blank argument"}},
    {"examples/ppo_trainer/run_deepseek_full_hh_rlhf.sh",
     {"hydra.unknown-key", "reward_model.param_offload: the Megatron config has megatron.param_offload only"}},
    // _validate_config multiplies the Megatron DP size by actor.ppo_micro_batch_size_per_gpu, null
    // here (dynamic batch sizes): a TypeError at start-up until verl PR #3111 (0.6.0) skipped the
    // check under use_dynamic_bsz.
    {"examples/grpo_trainer/run_qwen2-7b_seq_balance_math_megatron.sh",
     {"batch.train-divisible", "megatron_dp 2 * ppo_micro_batch_size_per_gpu None: TypeError in _validate_config"}},
};

// Checked against the verl they ship with, these two releases also test the version-gated rules
// of the older verl (rollout.cuda-graphs-free-cache: v0.4.1's examples that capture CUDA graphs set
// free_cache_engine=False beside enforce_eager=False, as vLLMRollout asserts).
TEST_CASE("verl v0.5.0's example launches: no false error, the broken ones with their reason") {
  check_corpus(Corpus{"verl_v0.5.0.bundle", "0.5.0", 108, kBrokenIn041And050, multiturn_config_paths(kMultiturn050),
                      5,    // recipe/one_step_off_policy/*.sh but the *_colocate.sh baselines
                      0});
}

TEST_CASE("verl v0.4.1's example launches: no false error, the broken ones with their reason") {
  auto broken = kBrokenIn041And050;
  broken["examples/grpo_trainer/run_minicpmo2_6.sh"] = {
      "hydra.append-existing", "+data.trust_remote_code onto v0.4.1's data.trust_remote_code (v0.5.0 drops the '+')"};
  check_corpus(Corpus{"verl_v0.4.1.bundle", "0.4.1", 88, broken, multiturn_config_paths({}), 0, 0});
}

// Checked against the release that ships them (session 34): v0.8.0 and v0.9.0 also run the
// MindSpeed launches (actor/mindspeed_actor.yaml's `../engine@mindspeed: [megatron, mindspeed]`, a
// list of options Hydra merges in order; actor.strategy mindspeed, MindSpeedActorConfig's default).
TEST_CASE("verl v0.7.1's example launches: no false error, the broken ones with their reason") {
  auto unreadable = multiturn_config_paths({"run_qwen0.5b_gsm8k_multiturn_curriculum.sh",
                                            "run_qwen2.5-3b_gsm8k_tool_agent_mlflow.sh",
                                            "gsm8k_toolcall_shaping/run_gsm8k_grpo_toolcall_shaping.sh",
                                            "run_qwen2.5-3b_gsm8k_multiturn_4xgpu_server.sh",
                                            "run_qwen2.5-3b_gsm8k_multiturn_server.sh",
                                            "run_qwen2.5-3b_gsm8k_multiturn_vllm_fsdp.sh"});
  unreadable["verl/experimental/fully_async_policy/shell/dapo_30b_a3b_base_math_fsdp.sh"] =
      "is not in verl 0.7.1's config tree";
  auto broken = kBrokenIn041And050;
  broken.erase("examples/ppo_trainer/run_deepseek_full_hh_rlhf.sh");  // its reward_model key fixed by v0.7.1
  broken.erase("examples/grpo_trainer/run_qwen2-7b_seq_balance_math_megatron.sh");  // dynamic bsz skips it
  broken.insert({
      {"examples/cispo_trainer/run_cispo_qwen2_5_0_5b_gsm8k.sh",
       {"hydra.unknown-key", "actor_rollout_ref.model.torch_dtype: v0.7.1's model/hf_model.yaml has no torch_dtype"}},
      {"examples/grpo_trainer/run_deepseek671b_math_megatron_80gb.sh",
       {"megatron.ref-micro-set", "a Megatron ref with dynamic bsz and no ref log_prob micro batch, as at v0.6.1"}},
      {"examples/grpo_trainer/run_gptoss_20b.sh",
       {"hydra.append-existing", "+actor_rollout_ref.actor.fsdp_config.model_dtype on the existing fp32 default"}},
      {"examples/grpo_trainer/run_qwen3_4b_grpo_vllm_1k_npu.sh",
       {"hydra.parse", "line 73: a stray '}' in the experiment name reaches Hydra's override parser"}},
      {"examples/grpo_trainer/run_qwen3_vl-30b-megatron.sh",
       {"shell.broken-continuation", "a comment inside the backslash continuation ends the command, as at v0.6.1"}},
      {"examples/rollout_correction/run_with_rollout_corr.sh",
       {"batch.fsdp-mini-divisible", "mini 32 x n 1 // dp 8 = 4 per GPU, not divisible by micro 8"}},
      {"examples/rollout_correction/run_with_rollout_corr_multi_rs.sh",
       {"batch.fsdp-mini-divisible", "as run_with_rollout_corr.sh"}},
      {"tests/special_e2e/ppo_trainer/run_single_gpu.sh",
       {"rollout.name", "rollout.name=hf, which the registry no longer has (as at v0.6.1)"}},
      {"tests/special_e2e/ppo_trainer/run_single_gpu_with_engine.sh", {"rollout.name", "as run_single_gpu.sh"}},
      {"tests/special_e2e/run_ppo_trainer_torchtitan.sh",
       {"rollout.tp-divides-gpus", "with its default NUM_GPUS=1 the rollout's TP 8 does not fit one GPU"}},
      {"verl/experimental/fully_async_policy/shell/dapo_7b_math_fsdp2_4_12.sh",
       {"dispatch.balance-batch-partitions", "2048 rows a step over the trainer's 12 GPUs"}},
  });
  // v0.7.1's vLLM sender needs every tensor inside one weight-sync bucket (2048 MiB by default; PR
  // #6091 lifted it in v0.8.0), and the FSDP actor holds fp32 weights: an embedding of more than
  // 2^29 entries does not fit (verl#5952: run_qwen3_vl-8b_npu.sh).
  for (const char* path : {"examples/grpo_trainer/run_qwen2_5_vl-7b.sh",
                           "examples/grpo_trainer/run_qwen2_5_vl-7b_freeze_vision.sh",
                           "examples/grpo_trainer/run_qwen2_5_vl-7b_seq_balance.sh",
                           "examples/grpo_trainer/run_qwen2_5_vl_7b_npu.sh", "examples/grpo_trainer/run_qwen3-32b_npu.sh",
                           "examples/grpo_trainer/run_qwen3-8b.sh", "examples/grpo_trainer/run_qwen3-8b_npu.sh",
                           "examples/grpo_trainer/run_qwen3_vl-8b_npu.sh", "examples/grpo_trainer/run_seed_oss_36b.sh",
                           "examples/otb_trainer/run_qwen2_5-7b.sh", "examples/ppo_trainer/run_qwen2.5-32b.sh",
                           "examples/prefix_grouper/run_qwen3_prefix_grouper.sh",
                           "examples/remax_trainer/run_qwen2.5-7b_seq_balance.sh",
                           "examples/sapo_trainer/run_qwen3_8b_sapo_npu.sh",
                           "verl/experimental/one_step_off_policy/shell/grpo_qwen3_8b_gsm8k_fsdp2_8_8_npu.sh"}) {
    broken.insert({path, {"rollout.weight-bucket-fits", "an fp32 embedding over the 2048 MiB weight-sync bucket"}});
  }
  check_corpus(Corpus{"verl_v0.7.1.bundle", "0.7.1", 194, broken, unreadable, 11, 14});
}

// The fully-async GenRM CI launch still sets trainer.use_legacy_worker_impl, which v0.8.0 removed
// from the config (no workflow runs it at v0.8.0 or v0.9.0).
TEST_CASE("verl v0.8.0's and v0.9.0's example launches: no false error, the broken ones with their reason") {
  auto broken = broken_since_080();
  broken["tests/special_e2e/run_fully_async_policy_genrm.sh"] = {
      "hydra.unknown-key", "trainer.use_legacy_worker_impl without '+': no config of v0.8.0 on has the key"};
  for (const auto& [bundle, version, scripts, fully_async] :
       {std::tuple{"verl_v0.8.0.bundle", "0.8.0", 128, 22}, std::tuple{"verl_v0.9.0.bundle", "0.9.0", 155, 24}}) {
    const std::string release = version;
    CAPTURE(release);
    check_corpus(Corpus{bundle, version, std::size_t(scripts), broken,
                        {{"verl/experimental/fully_async_policy/shell/dapo_30b_a3b_base_math_fsdp.sh",
                          "is not in verl " + release + "'s config tree"}},
                        release == "0.8.0" ? 10 : 11, fully_async});
  }
}

// The verl-recipe submodule at the commit verl 1dda039b pins (verl-project/verl-recipe e7f88957,
// 2026-04): its launches name no verl, so each is checked as a user would, against the newest
// embedded verl as an assumption; a failure only that assumption makes is a warning naming the
// verls that would not stop (trainer.use_legacy_worker_impl, rollout.mode=sync, critic
// fsdp_config keys of verl before 0.8), and what stays an error fails on every embedded verl.
TEST_CASE("verl-recipe at the commit verl pins: errors only where every verl fails") {
  check_corpus(Corpus{
      "verl-recipe_e7f88957.bundle", "", 40,
      {
          {"dapo/test_dapo_qwen3_moe_30b_megatron_fp16.sh",
           {"megatron.expert-divides-gpus",
            "ETP 4 x EP 8 x PP 4 = 128 on the script's default 4 nodes x 8 GPUs: initialize_model_parallel fails"}},
          {"langgraph_agent/example/run_gpt_oss_20b_bf16.sh",
           {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4"}},
          {"langgraph_agent/example/run_qwen2.5_3b.sh",
           {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4"}},
      },
      {{"deepeyes/run_deepeyes_grpo.sh", "comes from --config-path"}}});
}

}  // namespace meshplan
