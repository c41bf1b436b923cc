// Rules follow the verl version of the launch: registries by version, rules of removed modules.
#include <doctest/doctest.h>

#include <algorithm>

#include "test_support.hpp"
#include "verl/check_support.hpp"
#include "verl/rules/rule_support.hpp"
#include "verl/fit/to_strategy.hpp"

namespace meshplan {
namespace {

CheckOptions at(const std::string& version) {
  CheckOptions options;
  options.read.verl_version = version;
  return options;
}

}  // namespace

// AdvantageEstimator.GDPO arrived in v0.7.1 (verl/trainer/ppo/core_algos.py).
TEST_CASE("an estimator of a newer verl is an error only on the verls without it") {
  const auto lines = test::with(test::fsdp_baseline(), {"algorithm.adv_estimator=gdpo"});
  const auto old = test::findings_of(test::check_lines(lines, "ppo_trainer", at("0.7.0")), "algorithm.adv-estimator");
  REQUIRE(old.size() == 1);
  CHECK(old[0].severity == Severity::error);
  CHECK(old[0].message.find("Unknown advantage estimator 'gdpo' is not one of verl 0.7.0's {") == 0);
  CHECK(old[0].message.find("'gdpo' exists in verl 0.7.1..main@1dda039b") != std::string::npos);
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", at("0.7.1")), "algorithm.adv-estimator").empty());
}

// megatron_workers.py (ActorRolloutRefWorker.__init__) asserted a ref log-prob micro batch; verl
// v0.8.0 removed the legacy workers, so newer verl does not.
TEST_CASE("a rule of the legacy Megatron worker applies only to the verls that have it") {
  const auto lines = test::with(test::megatron_baseline(),
                                {"actor_rollout_ref.actor.use_dynamic_bsz=True", "actor_rollout_ref.actor.use_kl_loss=True",
                                 "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=null"});
  CHECK(test::findings_of(test::check_lines(lines, "ppo_megatron_trainer", at("0.7.1")), "megatron.ref-micro-set").size() ==
        1);
  CHECK(test::findings_of(test::check_lines(lines, "ppo_megatron_trainer", at("0.8.0")), "megatron.ref-micro-set").empty());
  const VerlRule rule{"r", Severity::error, {}, nullptr, false, "verl/workers/megatron_workers.py:f"};
  CHECK(rule_applies(rule, *find_verl_version("0.4.0")));
  CHECK_FALSE(rule_applies(rule, *find_verl_version("0.9.0")));
  // RolloutConfig.__post_init__ rejects mode=sync from v0.7.0 on; v0.6.1 ran it by default.
  const auto sync = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.mode=sync"});
  CHECK(test::findings_of(test::check_lines(sync, "ppo_trainer", at("0.6.1")), "rollout.mode-sync-removed").empty());
  CHECK(test::findings_of(test::check_lines(sync, "ppo_trainer", at("0.7.0")), "rollout.mode-sync-removed").size() == 1);
}

// vLLMRollout.__init__ asserted eager while the cache is freed until verl PR #1464 (v0.5.0); verl's own
// v0.4.1 examples that capture graphs (examples/grpo_trainer/run_qwen2_5_vl-7b.sh) set both keys.
TEST_CASE("CUDA graphs with a freed cache are an error only on the verls that asserted against them") {
  const auto graphs = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.enforce_eager=False",
                                                         "actor_rollout_ref.rollout.mode=sync"});
  const char* rule = "rollout.cuda-graphs-free-cache";
  CHECK(test::findings_of(test::check_lines(graphs, "ppo_trainer", at("0.4.1")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(graphs, "ppo_trainer", at("0.5.0")), rule).empty());
  CHECK(test::findings_of(test::check_lines(graphs, "ppo_trainer", at("0.6.1")), rule).empty());
  const auto kept = test::with(graphs, {"actor_rollout_ref.rollout.free_cache_engine=False"});
  CHECK(test::findings_of(test::check_lines(kept, "ppo_trainer", at("0.4.1")), rule).empty());
}

// vllm_rollout_spmd.py's vLLMRollout (the sync rollout) raised on batched tokens below max_model_len
// with chunked prefill on; verl 0.7.0 removed sync mode, and the async server never had the check.
TEST_CASE("the sync rollout's chunked-prefill budget applies only where verl builds that rollout") {
  const auto sync = test::with(test::fsdp_baseline(),
                               {"actor_rollout_ref.rollout.mode=sync", "data.max_response_length=16384"});
  const char* rule = "rollout.sync-chunked-prefill";
  for (const char* version : {"0.4.0", "0.5.0", "0.6.1"}) {
    CAPTURE(version);
    CHECK(test::findings_of(test::check_lines(sync, "ppo_trainer", at(version)), rule).size() == 1);
  }
  const auto async = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.mode=async",
                                                        "data.max_response_length=16384"});
  CHECK(test::findings_of(test::check_lines(async, "ppo_trainer", at("0.6.1")), rule).empty());
  const auto unchunked = test::with(sync, {"actor_rollout_ref.rollout.enable_chunked_prefill=False"});
  CHECK(test::findings_of(test::check_lines(unchunked, "ppo_trainer", at("0.6.1")), rule).empty());
  // rollout.max_model_len, when set, is the length verl compares (512 + 16384 cut to 8192).
  const auto capped = test::with(sync, {"actor_rollout_ref.rollout.max_model_len=8192"});
  CHECK(test::findings_of(test::check_lines(capped, "ppo_trainer", at("0.6.1")), rule).empty());
}

// RayPPOTrainer._validate_config ran the batch divisibility check with dynamic batch sizes too until
// verl PR #3111 (0.6.0); for Megatron it multiplies the DP size by ppo_micro_batch_size_per_gpu, a
// TypeError when that is null (verl's own run_qwen2-7b_seq_balance_math_megatron.sh at v0.4.1).
TEST_CASE("the train batch divisibility runs under dynamic batch sizes before verl 0.6.0") {
  const char* rule = "batch.train-divisible";
  // FSDP on 8 GPUs: 63 x 4 = 252 rows, not a multiple of 8.
  const auto fsdp = test::with(test::fsdp_baseline(), {"data.train_batch_size=63",
                                                       "actor_rollout_ref.actor.use_dynamic_bsz=True"});
  CHECK(test::findings_of(test::check_lines(fsdp, "ppo_trainer", at("0.5.0")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(fsdp, "ppo_trainer", at("0.6.0")), rule).empty());
  // Megatron TP 2 on 8 GPUs (DP 4) with no per-GPU micro batch.
  const auto megatron = test::with(test::megatron_baseline(),
                                   {"actor_rollout_ref.actor.use_dynamic_bsz=True",
                                    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=null"});
  const auto old = test::findings_of(test::check_lines(megatron, "ppo_megatron_trainer", at("0.4.1")), rule);
  REQUIRE(old.size() == 1);
  CHECK(old[0].message.find("unsupported operand type(s) for *: 'int' and 'NoneType'") == 0);
  CHECK(old[0].message.find("megatron_dp (4)") != std::string::npos);
  CHECK(old[0].fix == std::vector<std::string>{"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"});
  CHECK(test::findings_of(test::check_lines(megatron, "ppo_megatron_trainer", at("0.6.0")), rule).empty());
}

// Each value verl accepts from one release on (or refuses only in some), read in that release's code.
TEST_CASE("option values follow the release that checks them") {
  const auto count = [](const std::vector<std::string>& lines, const char* config, const char* version,
                        const char* rule) {
    return test::findings_of(test::check_lines(lines, config, at(version)), rule).size();
  };
  // FSDPEngineConfig.__post_init__ accepts fsdp_turbo at main@1dda039b (engine.py:304), not at 0.9.0.
  const auto turbo = test::with(test::fsdp_baseline(), {"actor_rollout_ref.actor.fsdp_config.strategy=fsdp_turbo"});
  CHECK(count(turbo, "ppo_trainer", "0.9.0", "fsdp.engine-strategy") == 1);
  CHECK(count(turbo, "ppo_trainer", "main@1dda039b", "fsdp.engine-strategy") == 0);
  // vllm_async_server.py's _SUPPORTED_QUANTIZATION gains vLLM Ascend's "ascend" in 0.8.0.
  const auto ascend = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.quantization=ascend"});
  CHECK(count(ascend, "ppo_trainer", "0.7.1", "rollout.quantization") == 1);
  CHECK(count(ascend, "ppo_trainer", "0.8.0", "rollout.quantization") == 0);
  // trtllm_async_server.py (0.7.1 on): fp8 only, and only with load_format=dummy.
  const auto trtllm = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=trtllm",
                                                         "actor_rollout_ref.rollout.quantization=torchao"});
  CHECK(count(trtllm, "ppo_trainer", "0.9.0", "rollout.quantization") == 1);
  const auto fp8_auto = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=trtllm",
                                                           "actor_rollout_ref.rollout.quantization=fp8",
                                                           "actor_rollout_ref.rollout.load_format=auto"});
  const auto found = test::findings_of(test::check_lines(fp8_auto, "ppo_trainer", at("0.9.0")), "rollout.quantization");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message.find("FP8 quantization is only supported for dummy load format") == 0);
  CHECK(count(test::with(fp8_auto, {"actor_rollout_ref.rollout.load_format=dummy"}), "ppo_trainer", "0.9.0",
              "rollout.quantization") == 0);
  // The critic as a TrainingWorker (0.8.0 on) takes any value_model backend, veomni included (0.7.1's
  // add_critic_worker accepts it too; 0.7.0's does not).
  const auto critic = test::with(test::fsdp_baseline(), {"algorithm.adv_estimator=gae", "critic.strategy=veomni",
                                                         "critic.ppo_micro_batch_size_per_gpu=2"});
  CHECK(count(critic, "ppo_trainer", "0.7.0", "critic.strategy") == 1);
  CHECK(count(critic, "ppo_trainer", "0.8.0", "critic.strategy") == 0);
  // TaskRunner picks the critic's worker whether or not a critic is used (GRPO here) until 0.8.0:
  // before 0.6.0 it asserts the critic's strategy matches the actor's family.
  const auto grpo_megatron_critic = test::with(test::fsdp_baseline(), {"critic.strategy=megatron"});
  CHECK(count(grpo_megatron_critic, "ppo_trainer", "0.5.0", "critic.strategy") == 1);
  CHECK(count(grpo_megatron_critic, "ppo_trainer", "0.6.1", "critic.strategy") == 0);
  const auto grpo_unknown_critic = test::with(test::fsdp_baseline(), {"critic.strategy=fsdp3"});
  CHECK(count(grpo_unknown_critic, "ppo_trainer", "0.6.1", "critic.strategy") == 1);
  CHECK(count(grpo_unknown_critic, "ppo_trainer", "0.8.0", "critic.strategy") == 0);
  // _validate_config before 0.5.0 asserts remove-padding under Ulysses SP for strategy "fsdp" only;
  // before 0.6.0 the ref's SP counts too.
  const auto fsdp2_sp = test::with(test::fsdp_baseline(), {"actor_rollout_ref.actor.strategy=fsdp2",
                                                           "actor_rollout_ref.actor.ulysses_sequence_parallel_size=2",
                                                           "actor_rollout_ref.model.use_remove_padding=False"});
  CHECK(count(fsdp2_sp, "ppo_trainer", "0.4.1", "fsdp.ulysses-needs-remove-padding") == 0);
  CHECK(count(fsdp2_sp, "ppo_trainer", "0.5.0", "fsdp.ulysses-needs-remove-padding") == 1);
  const auto ref_sp = test::with(test::fsdp_baseline(), {"actor_rollout_ref.ref.ulysses_sequence_parallel_size=2",
                                                         "actor_rollout_ref.model.use_remove_padding=False"});
  CHECK(count(ref_sp, "ppo_trainer", "0.5.0", "fsdp.ulysses-needs-remove-padding") == 1);
}

// RayPPOTrainer._load_checkpoint raises on an HDFS directory when resuming; the V1 trainer (main_ppo's
// default from 0.9.0, trainer.use_v1) reads none, but checks resume_from_path as RayPPOTrainer does.
TEST_CASE("the checkpoint to resume from, as the trainer that runs reads it") {
  const char* rule = "trainer.resume-checkpoint";
  const auto hdfs = test::with(test::fsdp_baseline(), {"trainer.default_hdfs_dir=hdfs://ckpt/run1"});
  CHECK(test::findings_of(test::check_lines(hdfs, "ppo_trainer", at("0.8.0")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(hdfs, "ppo_trainer", at("0.9.0")), rule).empty());
  CHECK(test::findings_of(test::check_lines(test::with(hdfs, {"trainer.use_v1=False"}), "ppo_trainer", at("0.9.0")),
                          rule)
            .size() == 1);
  const auto path = test::with(test::fsdp_baseline(), {"trainer.resume_mode=resume_path"});
  const auto unset = test::findings_of(test::check_lines(path, "ppo_trainer", at("0.9.0")), rule);
  REQUIRE(unset.size() == 1);
  CHECK(unset[0].message.find("resume ckpt must be str type") == 0);
  CHECK(test::findings_of(test::check_lines(test::with(path, {"trainer.resume_from_path=ckpt/global_step_40"}),
                                            "ppo_trainer", at("0.9.0")),
                          rule)
            .empty());
}

// The reward model's micro batch (validate_config): always checked before 0.7.0, skipped in the reward
// loop (use_reward_loop, True by default) at 0.7.0 and b178a3cd, gone from 0.7.1.
TEST_CASE("the reward model's micro batch is checked on the verls that check it") {
  const auto reward = test::with(test::fsdp_baseline(), {"reward_model.enable=True"});
  const char* rule = "reward.micro-exclusive";
  CHECK(test::findings_of(test::check_lines(reward, "ppo_trainer", at("0.4.1")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(reward, "ppo_trainer", at("0.6.1")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(reward, "ppo_trainer", at("0.7.0")), rule).empty());
  const auto legacy = test::with(reward, {"reward_model.use_reward_loop=False"});
  CHECK(test::findings_of(test::check_lines(legacy, "ppo_trainer", at("0.7.0")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(reward, "ppo_trainer", at("0.7.1")), rule).empty());
}

// A max_model_len under prompt + response: SGLangRollout asserts (verl before 0.7.0; only its sync
// rollout from the 0.6.0 registry on); the other rollouts cut (a warning).
TEST_CASE("a short max_model_len is an error where SGLangRollout asserts, a warning elsewhere") {
  const auto sglang = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=sglang",
                                                         "actor_rollout_ref.rollout.max_model_len=768"});
  const auto severities = [&](const std::vector<std::string>& lines, const char* version) {
    const CheckReport report = test::check_lines(lines, "ppo_trainer", at(version));
    return std::pair{test::findings_of(report, "rollout.sglang-max-model-len").size(),
                     test::findings_of(report, "rollout.max-model-len-budget").size()};
  };
  CHECK(severities(sglang, "0.4.1") == std::pair<std::size_t, std::size_t>{1, 0});
  CHECK(severities(test::with(sglang, {"actor_rollout_ref.rollout.mode=sync"}), "0.6.1") ==
        std::pair<std::size_t, std::size_t>{1, 0});
  CHECK(severities(test::with(sglang, {"actor_rollout_ref.rollout.mode=async"}), "0.6.1") ==
        std::pair<std::size_t, std::size_t>{0, 1});
  CHECK(severities(sglang, "0.7.1") == std::pair<std::size_t, std::size_t>{0, 1});
}

// core_algos.py kl_penalty takes the straight-through "name+" form from verl 0.6.0 on.
TEST_CASE("a KL estimator with '+' is an error before verl 0.6.0") {
  const auto plus = test::with(test::fsdp_baseline(), {"actor_rollout_ref.actor.use_kl_loss=True",
                                                       "actor_rollout_ref.actor.kl_loss_type=low_var_kl+"});
  const auto old = test::findings_of(test::check_lines(plus, "ppo_trainer", at("0.5.0")), "actor.kl-loss-type");
  REQUIRE(old.size() == 1);
  CHECK(old[0].fix == std::vector<std::string>{"actor_rollout_ref.actor.kl_loss_type=low_var_kl"});
  CHECK(test::findings_of(test::check_lines(plus, "ppo_trainer", at("0.6.0")), "actor.kl-loss-type").empty());
}

// vllm_async_server.py tiles a multi-node replica's GPUs into TP groups under expert parallelism up
// to 0.7.1, under data parallelism from 0.8.0 (2 nodes x 6 GPUs here).
TEST_CASE("the vLLM replica's per-node TP tiling follows the release's trigger") {
  const char* rule = "rollout.vllm-expert-layout";
  const auto nodes = test::with(test::fsdp_baseline(), {"trainer.n_gpus_per_node=6", "trainer.nnodes=2"});
  // TP 12 over both nodes, EP 12 = TP x DP 1: 6 GPUs a node do not hold a TP group.
  const auto ep = test::with(nodes, {"actor_rollout_ref.rollout.tensor_model_parallel_size=12",
                                     "actor_rollout_ref.rollout.expert_parallel_size=12"});
  CHECK(test::findings_of(test::check_lines(ep, "ppo_trainer", at("0.7.1")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(ep, "ppo_trainer", at("0.9.0")), rule).empty());
  // TP 4 x DP 3: a replica of 12 GPUs, 6 a node.
  const auto dp = test::with(nodes, {"actor_rollout_ref.rollout.tensor_model_parallel_size=4",
                                     "actor_rollout_ref.rollout.data_parallel_size=3",
                                     "actor_rollout_ref.rollout.expert_parallel_size=12"});
  CHECK(test::findings_of(test::check_lines(dp, "ppo_trainer", at("0.9.0")), rule).size() == 1);
}

// Before the 0.6.0 rollout registry the Megatron worker's _build_rollout builds vllm and sglang only.
TEST_CASE("the hf rollout is an error with a Megatron actor before verl 0.6.0") {
  const auto hf = test::with(test::megatron_baseline(), {"actor_rollout_ref.rollout.name=hf"});
  const auto old = test::findings_of(test::check_lines(hf, "ppo_megatron_trainer", at("0.5.0")), "rollout.name");
  REQUIRE(old.size() == 1);
  CHECK(old[0].message.find("Only vllmRollout is supported with Megatron now") == 0);
  CHECK(test::findings_of(test::check_lines(test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=hf"}),
                                            "ppo_trainer", at("0.5.0")),
                          "rollout.name")
            .empty());
}

// megatron_actor.py compute_log_prob asserted a micro batch size even under dynamic batch sizes before
// 0.6.0 (it asks only without them from 0.6.0).
TEST_CASE("the Megatron actor's log-prob micro batch under dynamic batch sizes before verl 0.6.0") {
  const auto dynamic = test::with(test::megatron_baseline(),
                                  {"actor_rollout_ref.actor.use_dynamic_bsz=True",
                                   "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=null"});
  const char* rule = "megatron.forward-micro-batch";
  CHECK(test::findings_of(test::check_lines(dynamic, "ppo_megatron_trainer", at("0.5.0")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(dynamic, "ppo_megatron_trainer", at("0.6.0")), rule).empty());
}

// The sync rollouts of verl before 0.7.0 refuse a sequence longer than the model's context; the
// async servers (and every rollout from 0.7.0) cap max_model_len at it instead.
TEST_CASE("the model's context against prompt + response, where the rollout asserts it") {
  const CheckOptions qwen = test::with_preset("qwen2.5-7b-instruct");
  const auto count = [&](const std::vector<std::string>& lines, const char* version) {
    CheckOptions options = qwen;
    options.read.verl_version = version;
    return test::findings_of(test::check_lines(lines, "ppo_trainer", options), "model.rollout-context").size();
  };
  const auto long_sync = test::with(test::fsdp_baseline(), {"data.max_response_length=32768",
                                                            "actor_rollout_ref.rollout.mode=sync"});
  CHECK(count(long_sync, "0.4.1") == 1);
  CHECK(count(long_sync, "0.6.1") == 1);
  CHECK(count(test::with(long_sync, {"actor_rollout_ref.rollout.mode=async"}), "0.6.1") == 0);
  CHECK(count(test::with(test::fsdp_baseline(), {"data.max_response_length=32768"}), "0.7.1") == 0);
}

// megatron_workers.py asserted vanilla_mbridge for MTP at main@b178a3cd only; v0.7.1 asserts use_mbridge.
TEST_CASE("MTP's vanilla_mbridge assertion is main@b178a3cd's, not v0.7.1's") {
  const auto mtp = test::with(test::megatron_baseline(), {"actor_rollout_ref.model.mtp.enable=True",
                                                          "actor_rollout_ref.actor.megatron.use_mbridge=True",
                                                          "actor_rollout_ref.actor.megatron.vanilla_mbridge=False"});
  const char* rule = "megatron.mtp-needs-mbridge";
  CHECK(test::findings_of(test::check_lines(mtp, "ppo_megatron_trainer", at("main@b178a3cd")), rule).size() == 1);
  CHECK(test::findings_of(test::check_lines(mtp, "ppo_megatron_trainer", at("0.7.1")), rule).empty());
}

TEST_CASE("the verl version: --verl-version, a pin in the script, else the newest said in one line") {
  const std::string launch = "python3 -m verl.trainer.main_ppo trainer.nnodes=1\n";
  auto newest = check_launch({InputText{"run.sh", launch}}, CheckOptions{});
  REQUIRE(newest.ok());
  const auto said = test::findings_of(*newest, "verl.version");
  REQUIRE(said.size() == 1);
  CHECK(said[0].message.find("checked against verl main@1dda039b (2026-08-22), the newest embedded") == 0);
  CHECK(newest->verl_source.find("main@1dda039b") != std::string::npos);

  auto pinned = check_launch({InputText{"run.sh", "pip install verl==0.6.1\n" + launch}}, CheckOptions{});
  REQUIRE(pinned.ok());
  const auto pin = test::findings_of(*pinned, "verl.version");
  REQUIRE(pin.size() == 1);
  CHECK(pin[0].location.line == 1);
  CHECK(pin[0].message.find("checked against verl 0.6.1") == 0);

  auto given = check_launch({InputText{"run.sh", launch}}, at("0.5"));
  REQUIRE(given.ok());
  CHECK(test::findings_of(*given, "verl.version").empty());
  CHECK(given->verl_source.find("verl 0.5.0") == 0);
  CHECK_FALSE(check_launch({InputText{"run.sh", launch}}, at("0.2.0")).ok());
}

// `distillation` is a section of verl >= v0.8.0: checked against v0.7.1 it is unknown to Hydra,
// but the newest verl has it, so the launch is most likely written for a newer verl.
TEST_CASE("a key of a newer verl than the one checked against is a warning") {
  const auto lines = test::with(test::fsdp_baseline(), {"distillation.enabled=False"});
  const auto report = test::check_lines(lines, "ppo_trainer", at("0.7.1"));
  const auto unknown = test::findings_of(report, "hydra.unknown-key");
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].severity == Severity::warning);
  CHECK(unknown[0].message.find("it is a key of newer verl (main@1dda039b)") != std::string::npos);
  const auto typo = test::findings_of(test::check_lines(test::with(test::fsdp_baseline(), {"trainer.nnodez=1"}), "ppo_trainer",
                                                        at("0.7.1")),
                                      "hydra.unknown-key");
  REQUIRE(typo.size() == 1);
  CHECK(typo[0].severity == Severity::error);
}

// A launch of verl-project/verl 1dda039b (its own example, embedded as a fixture): the actor
// switches to Megatron with the model_engine group and uses the dppo_tv loss of verl >= 0.7.1.
TEST_CASE("a launch of newer verl checks clean with no flag, against b178a3cd its loss mode is unknown") {
  const auto path = test::fixture("verl/verl_1dda039b/run_qwen3_30b_a3b_megatron_dppo.sh");
  const std::string text = test::file_text(path);
  auto newest = check_launch({InputText{path.string(), text}}, CheckOptions{});
  REQUIRE(newest.ok());
  CHECK(newest->errors == 0);
  auto old = check_launch({InputText{path.string(), text}}, at("main@b178a3cd"));
  REQUIRE(old.ok());
  const auto loss = test::findings_of(*old, "actor.policy-loss");
  REQUIRE(loss.size() == 1);
  CHECK(loss[0].message.find("'dppo_tv' exists in verl 0.7.1..main@1dda039b") != std::string::npos);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("a key added to a dataclass section is checked against the dataclass's fields, not only its YAML") {
  // RolloutConfig is instantiated (omega_conf_to_dataclass in the agent loop and the workers), so
  // an unknown field fails; AlgoConfig never is (verl reads `algorithm` as a DictConfig from
  // v0.4.0 to main@1dda039b: Mini-o3 and CodeDance add their own keys there and run).
  // RolloutCorrectionConfig.rollout_is_threshold is `str | float` from 0.8.0 on.
  CheckOptions newest;
  newest.read.verl_version = "main@1dda039b";
  const auto lines = test::with(test::fsdp_baseline(), {"+algorithm.gdpo_reward_keys=[accuracy,format]",
                                                        "+algorithm.not_a_field=1",
                                                        "+actor_rollout_ref.rollout.not_a_field=1",
                                                        "algorithm.rollout_correction.rollout_is_threshold=0.5_4.0"});
  const CheckReport report = test::check_lines(lines, "ppo_trainer", newest);
  const auto added = test::findings_of(report, "config.not-a-dataclass-field");
  REQUIRE(added.size() == 1);
  CHECK(added[0].keys[0] == "actor_rollout_ref.rollout.not_a_field");
  CHECK(test::findings_of(report, "config.type").empty());
  CheckOptions older;
  older.read.verl_version = "0.7.1";
  const auto typed = test::findings_of(test::check_lines(lines, "ppo_trainer", older), "config.type");
  REQUIRE(typed.size() == 1);
  CHECK(typed[0].keys[0] == "algorithm.rollout_correction.rollout_is_threshold");
}

TEST_CASE("loss_agg_mode token-sum: verl 0.9.0 added it to ActorConfig's valid_loss_agg_modes") {
  // verl/workers/config/actor.py __post_init__ at v0.8.0 lists token-mean and the three seq-mean
  // modes; v0.9.0 adds "token-sum".
  const auto lines = test::with(test::fsdp_baseline(), {"actor_rollout_ref.actor.loss_agg_mode=token-sum"});
  CheckOptions older;
  older.read.verl_version = "0.8.0";
  const auto hits = test::findings_of(test::check_lines(lines, "ppo_trainer", older), "actor.loss-agg-mode");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("'token-sum' exists in verl 0.9.0") != std::string::npos);
  CheckOptions newer;
  newer.read.verl_version = "0.9.0";
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", newer), "actor.loss-agg-mode").empty());
}

TEST_CASE("a field added to the ref section fails only where the engine workers convert it") {
  // verl/workers/engine_workers.py: omega_conf_to_dataclass(self.config.ref) -> ActorConfig; the
  // legacy fsdp_workers.py (verl <= 0.7.1's default, use_legacy_worker_impl=auto) converts only
  // ref.fsdp_config and reads extra keys with .get (CacheEOPD: +actor_rollout_ref.ref.topk_logits).
  const auto lines = test::with(test::fsdp_baseline(), {"+actor_rollout_ref.ref.topk_logits=20"});
  CheckOptions legacy;
  legacy.read.verl_version = "0.7.0";
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", legacy), "config.not-a-dataclass-field").empty());
  const auto disabled = test::with(lines, {"trainer.use_legacy_worker_impl=disable"});
  CHECK(test::findings_of(test::check_lines(disabled, "ppo_trainer", legacy), "config.not-a-dataclass-field").size() ==
        1);
  CheckOptions engine;
  engine.read.verl_version = "0.8.0";
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", engine), "config.not-a-dataclass-field").size() == 1);
}

}  // namespace meshplan

namespace meshplan {

// fsdp_workers.py / megatron_workers.py _build_rollout at v0.4.1: `elif rollout_name in ["sglang",
// "sglang_async"]` (sglang_async deprecated); v0.5.0 keeps only "sglang", and its else raises
// NotImplementedError when the workers build the rollout, before the V0.6 registry.
TEST_CASE("rollout.name sglang_async: built by verl 0.4.x, an error from 0.5.0 where _build_rollout raises") {
  const auto lines = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=sglang_async"});
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", at("0.4.1")), "rollout.name").empty());
  const auto v05 = test::findings_of(test::check_lines(lines, "ppo_trainer", at("0.5.0")), "rollout.name");
  REQUIRE(v05.size() == 1);
  CHECK(v05[0].severity == Severity::error);
  CHECK(v05[0].message ==
        "rollout engine 'sglang_async' is not one of {hf, vllm, sglang}; would fail when the workers build the rollout "
        "(_build_rollout: NotImplementedError \"Rollout name: ... is not supported\")");
  CHECK(v05[0].fix == std::vector<std::string>{"actor_rollout_ref.rollout.name=sglang"});
}

}  // namespace meshplan

namespace meshplan {

// The Megatron baseline's keys (actor_rollout_ref.actor.megatron.*) composed over ppo_trainer's
// FSDP actor: Hydra stops at the first ("Key 'megatron' is not in struct"). What selects the
// Megatron actor is --config-name ppo_megatron_trainer up to verl 0.7.1 (0.7.1 has the
// model_engine group, but its ppo_trainer.yaml does not choose the actor by it) and model_engine=
// megatron from 0.8.0 (ppo_trainer.yaml: `actor@actor_rollout_ref.actor: ${model_engine}_actor`).
// The rest of the launch is read with that choice: the baseline is otherwise clean.
TEST_CASE("Megatron keys over the FSDP actor: one error, the engine choice of that verl as its fix") {
  for (const auto& [version, fix] : std::vector<std::pair<std::string, std::string>>{
           {"0.5", "--config-name ppo_megatron_trainer"},
           {"0.7.1", "--config-name ppo_megatron_trainer"},
           {"0.8.0", "model_engine=megatron"},
           {"main@1dda039b", "model_engine=megatron"}}) {
    CAPTURE(version);
    const auto report = test::check_lines(test::megatron_baseline(), "ppo_trainer", at(version));
    CHECK(test::findings_of(report, "hydra.unknown-key").empty());
    const auto engine = test::findings_of(report, "hydra.engine-keys");
    REQUIRE(engine.size() == 2);
    CHECK(engine[0].fix == std::vector<std::string>{fix});
    CHECK(engine[1].message.find("read the launch with " + fix) != std::string::npos);
    CHECK(report.errors == 1);
  }
}

// tests/fixtures/verl/megatron_keys_default_engine.sh (the pattern of verl 1dda039b's
// router_replay script): the engine choice is offered and the launch is read with it, so the
// job the rules and the memory fit judge is the Megatron one it asks for (TP 2, EP 8 on 16 GPUs).
TEST_CASE("a launch with the engine's keys but not its choice is judged as that engine") {
  const auto path = test::fixture("verl/megatron_keys_default_engine.sh");
  auto launch = read_verl_launch(test::file_text(path), path.string(), VerlReadOptions{});
  REQUIRE(launch.ok());
  const VerlJob job = verl_to_strategy(launch.value());
  CHECK(job.strategy.backend == Backend::megatron);
  CHECK(job.strategy.tp == 2);
  CHECK(job.strategy.ep == 8);
  const auto group_key = std::find_if(launch->findings.begin(), launch->findings.end(),
                                      [](const Finding& f) { return f.rule == "hydra.unknown-key"; });
  REQUIRE(group_key != launch->findings.end());
  CHECK(group_key->keys == std::vector<std::string>{"actor_rollout_ref.actor.model_engine"});
  CHECK(group_key->fix == std::vector<std::string>{"model_engine=megatron"});
}

// A Megatron launch (ppo_megatron_trainer) with one stray FSDP key: the dp engine would compose
// that key but lose every Megatron one the launch sets, so it is not offered; the key stays an
// unknown key of its own.
TEST_CASE("one stray key of another engine does not switch the launch's engine") {
  const auto lines = test::with(test::megatron_baseline(), {"actor_rollout_ref.actor.fsdp_config.param_offload=True"});
  const auto report = test::check_lines(lines, "ppo_megatron_trainer", at("main@1dda039b"));
  CHECK(test::findings_of(report, "hydra.engine-keys").empty());
  const auto stray = test::findings_of(report, "hydra.unknown-key");
  REQUIRE(stray.size() == 1);
  CHECK(stray[0].keys == std::vector<std::string>{"actor_rollout_ref.actor.fsdp_config.param_offload"});
}

}  // namespace meshplan
