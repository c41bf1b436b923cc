// A verl checkout's registries read from its sources: what a fork adds (DeepEyes' vendored verl
// adds the rl_logging_board logger; ZeroSearch's a reinforce estimator) is what its launches may name.
#include <doctest/doctest.h>

#include <algorithm>

#include "verl/check_support.hpp"
#include "verl/schema/registry_sources.hpp"

namespace meshplan {

TEST_CASE("registry names from a checkout's sources, each in verl's own spelling") {
  const std::map<std::string, std::string> sources = {
      {"utils/tracking.py",
       "class Tracking:\n    supported_backend = [\"wandb\", \"console\", \"rl_logging_board\"]\n"},
      {"trainer/ppo/core_algos.py",
       "class AdvantageEstimator(str, Enum):\n    GAE = \"gae\"\n    GRPO = \"grpo\"\n    REINFORCE = \"reinforce\"\n\n"
       "def other():\n    X = \"not_an_estimator\"\n\n@register_policy_loss(\"vanilla\")\ndef loss(): pass\n"},
      {"workers/actor/dp_actor.py", "if loss_mode == \"gpg\":\n    pass\n"},
      {"workers/reward_manager/naive.py", "\n@register(\"naive\")\nclass NaiveRewardManager: pass\n"},
      // Asynch-SKD's vendored verl registers its own agent loop next to verl's.
      {"experimental/agent_loop/skd_agent_loop.py", "\n@register(\"skd_agent\")\nclass SkdAgentLoop: pass\n"},
      {"experimental/agent_loop/tool_agent_loop.py", "\n@register(\"tool_agent\")\nclass ToolAgentLoop: pass\n"},
  };
  const auto names = registry_names_from_sources(sources);
  CHECK(names.at("logger") == std::vector<std::string>{"console", "rl_logging_board", "wandb"});
  CHECK(names.at("adv_estimator") == std::vector<std::string>{"gae", "grpo", "reinforce"});
  CHECK(names.at("policy_loss") == std::vector<std::string>{"gpg", "vanilla"});
  CHECK(names.at("reward_manager") == std::vector<std::string>{"naive"});
  CHECK(names.at("agent_loop") == std::vector<std::string>{"skd_agent", "tool_agent"});
  // pacth-verifier's vendored ActorConfig accepts one more aggregation than verl 0.5.
  const auto actor = registry_names_from_sources(
      {{"workers/config/actor.py", "        valid_loss_agg_modes = [\n            \"token-mean\",\n"
                                   "            \"seq-mean-token-sum-length-norm\",\n        ]\n"}});
  CHECK(actor.at("loss_agg_mode") == std::vector<std::string>{"seq-mean-token-sum-length-norm", "token-mean"});
  // A kind no source gives is left to the embedded version.
  CHECK(registry_names_from_sources({{"utils/tracking.py", "no list here"}}).empty());
}

TEST_CASE("a checkout's config dataclasses: fields with their bases', and no docstring line or ClassVar") {
  // As Python's ast reads them (tools/generate_verl_versions.py): CacheEOPD's vendored verl adds
  // soft_kd_loss_coef to PolicyLossConfig; "Args:" of a docstring at the body's indentation, a
  // ClassVar, a private name and a method's local are not fields.
  const std::map<std::string, std::string> sources = {
      {"base_config.py", "@dataclass\nclass BaseConfig(collections.abc.Mapping):\n"
                         "    _mutable_fields: ClassVar[set[str]] = set()\n    _target_: str = \"\"\n"},
      {"workers/config/actor.py",
       "from dataclasses import dataclass\n\n@dataclass\nclass PolicyLossConfig(BaseConfig):\n"
       "    \"\"\"Policy loss.\n\n    Args:\n        loss_mode: the loss\n    \"\"\"\n\n"
       "    loss_mode: str = \"vanilla\"\n    clip_cov_ratio: float = 0.0002\n"
       "    soft_kd_loss_coef: Optional[float] = None\n\n    def check(self):\n        local: int = 1\n\n"
       "class NotADataclass:\n    field: int = 0\n"},
  };
  const auto names = registry_names_from_sources(sources);
  CHECK(names.at("dataclass_field") ==
        std::vector<std::string>{"PolicyLossConfig.clip_cov_ratio", "PolicyLossConfig.loss_mode",
                                 "PolicyLossConfig.soft_kd_loss_coef"});
  CHECK(names.at("dataclass_field_str") == std::vector<std::string>{"PolicyLossConfig.loss_mode"});
}

TEST_CASE("a vendored engine's argument dataclass: its fields and its bases' in the same file") {
  const std::string server_args =
      "@dataclasses.dataclass\nclass BaseArgs:\n    host: str = \"127.0.0.1\"\n\n"
      "@dataclasses.dataclass\nclass ServerArgs(BaseArgs):\n    model_path: str\n"
      "    enable_vortex_sparsity: bool = False\n    vortex_topk_val: int = 30\n\n"
      "@dataclasses.dataclass\nclass PortArgs:\n    port: int = 0\n";
  CHECK(dataclass_field_names(server_args, "ServerArgs") ==
        std::vector<std::string>{"enable_vortex_sparsity", "host", "model_path", "vortex_topk_val"});
  CHECK(dataclass_field_names(server_args, "EngineArgs").empty());
}

TEST_CASE("a field a checkout's PolicyLossConfig adds is no error, one neither verl has stays one") {
  // +actor_rollout_ref.actor.policy_loss.soft_kd_loss_coef (CacheEOPD's scripts/eopd/run_eopd_vllm.sh).
  const auto lines = test::with(test::fsdp_baseline(), {"+actor_rollout_ref.actor.policy_loss.soft_kd_loss_coef=1.0",
                                                        "+actor_rollout_ref.actor.policy_loss.not_a_field=1"});
  CheckOptions fork;
  fork.read.verl_version = "0.7.0";
  const auto embedded = test::findings_of(test::check_lines(lines, "ppo_trainer", fork), "config.not-a-dataclass-field");
  CHECK(embedded.size() == 2);
  fork.read.registry_names["dataclass_field"] = {"PolicyLossConfig.loss_mode", "PolicyLossConfig.soft_kd_loss_coef"};
  const auto own = test::findings_of(test::check_lines(lines, "ppo_trainer", fork), "config.not-a-dataclass-field");
  REQUIRE(own.size() == 1);
  CHECK(own[0].keys[0] == "actor_rollout_ref.actor.policy_loss.not_a_field");
}

TEST_CASE("check takes a checkout's own registry names before the embedded version's") {
  const auto lines = test::with(test::fsdp_baseline(), {"trainer.logger=[console,rl_logging_board]"});
  const CheckReport embedded = test::check_lines(lines);
  REQUIRE(test::findings_of(embedded, "trainer.logger").size() == 1);
  CheckOptions fork;
  fork.read.registry_names["logger"] = {"console", "rl_logging_board", "wandb"};
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", fork), "trainer.logger").empty());
  fork.read.registry_names["logger"] = {"console", "wandb"};
  const auto hits = test::findings_of(test::check_lines(lines, "ppo_trainer", fork), "trainer.logger");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].message.find("the launch's verl checkout's Tracking.supported_backend is {console, wandb}") !=
        std::string::npos);
}

// The sixth corpus of docs/verl-corpora.md: forks that add a strategy (HabitGraylight/verl-hyper), a
// rollout engine (Hhankyangg/verl-opd), LR schedulers (065536/Asycn_verl), and a 0.5.0.dev snapshot
// (Juvenilecris/verl-debiasing) whose SGLang rollout no longer asserts eager mode with free_cache_engine.
TEST_CASE("a fork's strategies, rollout engines, LR schedulers and eager assertion, read from its sources") {
  const std::map<std::string, std::string> sources = {
      {"trainer/main_ppo.py",
       "        if config.actor_rollout_ref.actor.strategy in {\"fsdp\", \"fsdp2\"}:\n"
       "        elif config.actor_rollout_ref.actor.strategy == 'megatron':\n"
       "        if use_legacy_worker_impl == \"disable\" or config.actor_rollout_ref.actor.strategy == \"hyper\":\n"},
      {"workers/engine/hyper/transformer_impl.py",
       "@EngineRegistry.register(model_type=\"language_model\", backend=\"hyper\", device=[\"cuda\"])\n"},
      {"workers/rollout/replica.py", "RolloutReplicaRegistry.register(\"vllm\", _load_vllm)\n"
                                     "RolloutReplicaRegistry.register(\"bagel\", _load_bagel)\n"},
      {"workers/rollout/base.py", "_ROLLOUT_REGISTRY = {\n    (\"vllm\", \"async\"): \"a\",\n"
                                  "    (\"bagel\", \"sync\"): \"b\",\n}\n"},
      {"workers/config/optimizer.py",
       "class OptimizerConfig(BaseConfig):\n    def __post_init__(self):\n"
       "        assert self.lr_scheduler_type in [\"none\"]\n"
       "class FSDPOptimizerConfig(OptimizerConfig):\n    def __post_init__(self):\n"
       "        assert self.warmup_style in [\"constant\", \"cosine\"]\n"
       "        assert self.lr_scheduler_type in [\"constant\", \"linear\", \"cosine\", \"entropy_adaptive\"]\n"
       "class McoreOptimizerConfig(OptimizerConfig):\n"
       "        assert self.lr_scheduler_type in [\"constant\", \"inverse-square-root\"]\n"},
      {"workers/rollout/sglang_rollout/sglang_rollout.py", "class SGLangRollout:\n    pass\n"},
  };
  const auto names = registry_names_from_sources(sources);
  CHECK(names.at("strategy") == std::vector<std::string>{"fsdp", "fsdp2", "hyper", "megatron"});
  CHECK(names.at("rollout_name") == std::vector<std::string>{"bagel", "vllm"});
  CHECK(names.at("fsdp_lr_scheduler") == std::vector<std::string>{"constant", "cosine", "entropy_adaptive", "linear"});
  CHECK(names.at("fsdp_warmup_style") == std::vector<std::string>{"constant", "cosine"});
  CHECK(names.at("eager_free_cache_assert") == std::vector<std::string>{"none"});
  // A 0.8.0.dev snapshot that still has the legacy workers builds them under use_legacy_worker_impl=auto.
  CHECK(names.at("worker_module") == std::vector<std::string>{"read"});
  const auto legacy = registry_names_from_sources({{"workers/fsdp_workers.py", "class ActorRolloutRefWorker: pass\n"}});
  CHECK(legacy.at("worker_module") == std::vector<std::string>{"read", "verl/workers/fsdp_workers.py"});
  const auto asserting = registry_names_from_sources(
      {{"workers/rollout/sglang_rollout/sglang_rollout.py",
        "        assert not (not config.enforce_eager and config.free_cache_engine), \"disable CUDA graph "
        "(enforce_eager = False) if free cache engine\"\n"}});
  CHECK(asserting.at("eager_free_cache_assert") == std::vector<std::string>{"sglang"});
}

TEST_CASE("a fork's own rollout engine, LR scheduler and engine config are not refused") {
  CheckOptions fork;
  fork.read.verl_version = "0.8.0";
  fork.read.registry_names["rollout_name"] = {"bagel", "vllm"};
  fork.read.registry_names["fsdp_lr_scheduler"] = {"constant", "cosine", "entropy_adaptive"};
  const auto lines = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=bagel",
                                                         "actor_rollout_ref.actor.optim.lr_scheduler_type=entropy_adaptive"});
  CheckOptions release;
  release.read.verl_version = "0.8.0";
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", release), "rollout.name").size() == 1);
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", release), "fsdp.lr-scheduler").size() == 1);
  const CheckReport forked = test::check_lines(lines, "ppo_trainer", fork);
  CHECK(test::findings_of(forked, "rollout.name").empty());
  CHECK(test::findings_of(forked, "fsdp.lr-scheduler").empty());
  // An engine section built as another config class asserts its own strategies, not FSDPEngineConfig's.
  const auto hyper = test::with(test::fsdp_baseline(), {"actor_rollout_ref.actor.fsdp_config.strategy=hyper"});
  CHECK(test::findings_of(test::check_lines(hyper, "ppo_trainer", release), "fsdp.engine-strategy").size() == 1);
  const auto own_engine = test::with(
      hyper, {"actor_rollout_ref.actor.fsdp_config._target_=verl.workers.config.HyperEngineConfig"});
  CHECK(test::findings_of(test::check_lines(own_engine, "ppo_trainer", release), "fsdp.engine-strategy").empty());
  // verl 0.4.1's SGLangRollout asserts eager mode with free_cache_engine; a later snapshot's does not.
  const auto graphs = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=sglang",
                                                          "actor_rollout_ref.rollout.enforce_eager=False",
                                                          "actor_rollout_ref.rollout.free_cache_engine=True"});
  CheckOptions v041;
  v041.read.verl_version = "0.4.1";
  CHECK(test::findings_of(test::check_lines(graphs, "ppo_trainer", v041), "rollout.cuda-graphs-free-cache").size() ==
        1);
  v041.read.registry_names["eager_free_cache_assert"] = {"none"};
  CHECK(test::findings_of(test::check_lines(graphs, "ppo_trainer", v041), "rollout.cuda-graphs-free-cache").empty());
}

// The re-run of the five corpora (session 37): research forks pick reward managers and reward model
// workers in their own main_ppo.py (Skywork-OR1 'yr', RLPR `'prob' in reward_manager_name`, MemAgent's
// single quotes, LLM-Self-Judge's "judge" strategy) and verl 0.1 forks' vLLMRollout has no chunked
// prefill check (LUFFY, Skywork-OR1).
TEST_CASE("a fork's reward managers, reward model workers and vLLM rollout checks, read from its main_ppo and rollout") {
  const std::map<std::string, std::string> sources = {
      {"trainer/main_ppo.py",
       "    if reward_manager_name == 'naive':\n        pass\n    elif reward_manager_name == 'yr':\n        pass\n"
       "    elif 'prob' in reward_manager_name:\n        pass\n    assert reward_manager_name in ['rm', \"thread\"]\n"
       "        elif config.reward_model.strategy == \"judge\":\n"},
      {"experimental/reward_loop/reward_manager/llm_judge.py", "\n@register(\"llm_judge\")\nclass Judge: pass\n"},
      {"workers/rollout/vllm_rollout/vllm_rollout.py", "class vLLMRollout:\n    pass\n"},
  };
  const auto names = registry_names_from_sources(sources);
  CHECK(names.at("reward_manager") == std::vector<std::string>{"llm_judge", "naive", "rm", "thread", "yr", "~prob"});
  CHECK(names.at("reward_model_strategy") == std::vector<std::string>{"judge"});
  CHECK(names.at("chunked_prefill_check") == std::vector<std::string>{"none"});

  CheckOptions fork;
  fork.read.verl_version = "0.4.1";
  fork.read.registry_names = names;
  const auto rm = test::with(test::fsdp_baseline(), {"reward_model.reward_manager=prob_v2", "reward_model.enable=True",
                                                      "reward_model.strategy=judge"});
  const CheckReport forked = test::check_lines(rm, "ppo_trainer", fork);
  CHECK(test::findings_of(forked, "reward.manager-registered").empty());
  CHECK(test::findings_of(forked, "reward.model-strategy").empty());
  CheckOptions release;
  release.read.verl_version = "0.4.1";
  const CheckReport plain = test::check_lines(rm, "ppo_trainer", release);
  CHECK(test::findings_of(plain, "reward.manager-registered").size() == 1);
  CHECK(test::findings_of(plain, "reward.model-strategy").size() == 1);
  const auto chunked = test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.enable_chunked_prefill=True",
                                                           "actor_rollout_ref.rollout.max_num_batched_tokens=512"});
  CHECK(test::findings_of(test::check_lines(chunked, "ppo_trainer", release), "rollout.sync-chunked-prefill").size() ==
        1);
  CHECK(test::findings_of(test::check_lines(chunked, "ppo_trainer", fork), "rollout.sync-chunked-prefill").empty());
  // verl 0.1 (PRIME, Logic-RL) has no trainer.resume_mode and no _load_checkpoint: an HDFS directory
  // is only where checkpoints are saved.
  const auto hdfs = test::with(test::fsdp_baseline(), {"trainer.default_hdfs_dir=hdfs://ckpt"});
  CHECK(test::findings_of(test::check_lines(hdfs, "ppo_trainer", release), "trainer.resume-checkpoint").size() == 1);
  CHECK(test::findings_of(test::check_lines(test::with(hdfs, {"~trainer.resume_mode"}), "ppo_trainer", release),
                          "trainer.resume-checkpoint")
            .empty());
}

// A check a fork commented out is no check (langfengQ/DrMAS, OSU-NLP-Group/ACuRL: `# assert
// config.data.train_batch_size >= config.actor_rollout_ref.actor.ppo_mini_batch_size`); verl 0.1 forks
// never had it; an estimator a fork registers in single quotes (cxcscmu/verl-agent-deepresearch's
// GiGPO = 'gigpo') is registered.
TEST_CASE("a fork's commented-out mini-batch check and single-quoted estimators, read from its sources") {
  const auto commented = registry_names_from_sources(
      {{"trainer/ppo/ray_trainer.py",
        "class AdvantageEstimator(str, Enum):\n    GAE = 'gae'\n    GiGPO = 'gigpo'\n\n"
        "def _validate_config(self):\n"
        "        # assert config.data.train_batch_size >= config.actor_rollout_ref.actor.ppo_mini_batch_size\n"
        "        assert config.data.train_batch_size >= config.critic.ppo_mini_batch_size\n"}});
  CHECK(commented.at("actor_mini_le_train") == std::vector<std::string>{"none"});
  CHECK(commented.at("critic_mini_le_train") == std::vector<std::string>{"live"});
  CHECK(commented.at("adv_estimator") == std::vector<std::string>{"gae", "gigpo"});
  CheckOptions fork;
  fork.read.verl_version = "0.4.1";
  fork.read.registry_names = commented;
  const auto lines = test::with(test::fsdp_baseline(), {"data.train_batch_size=8", "algorithm.adv_estimator=gigpo"});
  const CheckReport report = test::check_lines(lines, "ppo_trainer", fork);
  CHECK(test::findings_of(report, "batch.mini-le-train").empty());
  CHECK(test::findings_of(report, "algorithm.adv-estimator").empty());
  CheckOptions release;
  release.read.verl_version = "0.4.1";
  CHECK(test::findings_of(test::check_lines(lines, "ppo_trainer", release), "batch.mini-le-train").size() == 1);
}

TEST_CASE("a verl 0.4 fork's rollout engines, read from its workers' _build_rollout branches") {
  // Tool-Star (verl 0.2): fsdp_workers.py builds `vllm_with_search` beside vllm; RLVER (0.4.0.dev)
  // `vllm_multi_turn_via_chat`, in single quotes.
  const auto names = registry_names_from_sources(
      {{"workers/fsdp_workers.py",
        "        if rollout_name == \"hf\":\n        elif self.config.rollout.name == 'vllm_multi_turn_via_chat':\n"
        "        elif rollout_name == \"vllm_with_search\":\n"}});
  CHECK(names.at("rollout_name") == std::vector<std::string>{"hf", "vllm_multi_turn_via_chat", "vllm_with_search"});
}

TEST_CASE("what a fork's own package registers joins verl's registries") {
  // FloyedShen/VESPO's recipe/vespo/code/: core_algos.py `@register_policy_loss("vespo")` and
  // reward_loop_prime.py `@register_manager("prime_loop")` / `@register_manager_legacy("prime_loop")`,
  // imported by its own main_ppo.py; rStar's rstar2_agent/reward/server.py `@register("code_judge")`.
  const std::map<std::string, std::string> package = {
      {"code/core_algos.py", "@register_policy_loss(\"vespo\")\ndef vespo_loss(): pass\n"
                             "@register_adv_est('grpo_vespo')\ndef adv(): pass\n"},
      {"code/reward_loop_prime.py", "@register_manager(\"prime_loop\")\n@register_manager_legacy(\"prime_loop\")\n"},
      {"reward/server.py", "@register(\"code_judge\")\nclass CodeJudge: pass\n"},
      // LongRLVR's recipe/dapo/main_dapo.py dispatches on the name itself.
      {"dapo/main_dapo.py", "    elif reward_manager_name == \"longrl\":\n        from .longrl import Manager\n"},
      {"workers/fsdp_workers.py", "        elif self.config.rollout.name == 'vllm_multiturn_mmsearch':\n"}};
  const auto added = registrations_in(package);
  CHECK(added.at("policy_loss") == std::vector<std::string>{"vespo"});
  CHECK(added.at("adv_estimator") == std::vector<std::string>{"grpo_vespo"});
  CHECK(added.at("reward_manager") == std::vector<std::string>{"code_judge", "longrl", "prime_loop"});
  CHECK(added.at("rollout_name") == std::vector<std::string>{"vllm_multiturn_mmsearch"});
  // Joined to the embedded release's names where the checkout gave none: verl 0.6.1's losses stay.
  std::map<std::string, std::vector<std::string>> names = {{"reward_manager", {"naive"}}};
  add_registrations(names, package, *find_verl_version("0.6.1"));
  CHECK(names.at("reward_manager") == std::vector<std::string>{"code_judge", "longrl", "naive", "prime_loop"});
  const auto& losses = names.at("policy_loss");
  CHECK(std::find(losses.begin(), losses.end(), "vespo") != losses.end());
  CHECK(std::find(losses.begin(), losses.end(), "vanilla") != losses.end());
  CHECK(registrations_in({{"a.py", "register_policy_loss(name)\n"}}).empty());
}

}  // namespace meshplan
