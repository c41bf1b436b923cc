// Feature and option rules (../shared/docs/verl-rules.md R19, R30, R32, R33, R35, R54, R55, R59,
// R75, R77, R78): options that only work with another option, a backend or a value range.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "verl/rules/eager_assertion.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kInWorker = "would fail when the Ray workers build the model";
constexpr const char* kServer = "would fail when the vLLM rollout servers launch (vllm_async_server.py)";
constexpr const char* kFirstStep = "would fail at the first training step";
constexpr const char* kRewardManager =
    "would fail when the DAPO reward manager is built (before the first step)";

bool fsdp_critic(const ConfigView& v) { return v.uses_critic() && !v.megatron_critic(); }

// R19 (verl/workers/rollout/vllm_rollout/utils.py: get_vllm_max_lora_rank): vLLM's largest
// allowed max_lora_rank, vllm/config/lora.py MaxLoRARanks = {1, 8, 16, 32, 64, 128, 256, 320, 512}.
constexpr long long kVllmMaxLoraRank = 512;

std::optional<RuleHit> vllm_lora_rank(const ConfigView& v) {
  if (v.text(R("name")).value_or("") != "vllm") return std::nullopt;
  // verl/utils/config.py: model.lora.rank (0 when model.lora.merge), else model.lora_rank.
  std::string key = "actor_rollout_ref.model.lora.rank";
  long long rank =
      v.boolean("actor_rollout_ref.model.lora.merge").value_or(false) ? 0 : v.integer(key).value_or(0);
  if (rank <= 0) {
    key = "actor_rollout_ref.model.lora_rank";
    rank = v.integer(key).value_or(0);
  }
  if (rank <= kVllmMaxLoraRank) return std::nullopt;
  return RuleHit{
      std::to_string(rank),
      fmt::format("lora_rank must be less than or equal to {}, but got {} (vLLM's largest max_lora_rank); "
                  "would fail at start-up in validate_config()",
                  kVllmMaxLoraRank, rank),
      {fmt::format("{}={}", key, kVllmMaxLoraRank)}};
}

// R30 (verl/workers/config/rollout.py: TraceConfig.__post_init__).
std::optional<RuleHit> trace_max_samples(const ConfigView& v) {
  const auto value = v.integer(R("trace.max_samples_per_step_per_worker"));
  if (!value || *value >= 0) return std::nullopt;
  return RuleHit{
      std::to_string(*value),
      fmt::format("`max_samples_per_step_per_worker` must be a non-negative integer or null; {}", kAtStartUp),
      {R("trace.max_samples_per_step_per_worker") + "=null"}};
}

// R32 (verl/workers/config/engine.py: FSDPEngineConfig.__post_init__) for actor and critic.
std::optional<RuleHit> fsdp_engine_strategy(const ConfigView& v) {
  // FSDPEngineConfig.__post_init__ adds "fsdp_turbo" at main@1dda039b (engine.py:304).
  static const int turbo_from = find_verl_version("main@1dda039b")->index;
  static constexpr std::array<std::string_view, 2> kStrategies = {"fsdp", "fsdp2"};
  static constexpr std::array<std::string_view, 3> kWithTurbo = {"fsdp", "fsdp2", "fsdp_turbo"};
  const std::span<const std::string_view> allowed =
      v.version().index >= turbo_from ? std::span<const std::string_view>(kWithTurbo) : kStrategies;
  // The assertion is FSDPEngineConfig's: a section a fork builds as another engine config
  // (verl-hyper's engine/hyper.yaml, `_target_: verl.workers.config.HyperEngineConfig`) asserts its own.
  const auto fsdp_engine = [&](const std::string& section) {
    const auto target = v.text(section + "_target_");
    return !target || target->ends_with(".FSDPEngineConfig");
  };
  if (!v.megatron() && fsdp_engine(A("fsdp_config."))) {
    if (auto hit = one_of(v, A("fsdp_config.strategy"), allowed, "strategy not supported:")) return hit;
  }
  if (!fsdp_critic(v) || !fsdp_engine("critic.model.fsdp_config.")) return std::nullopt;
  return one_of(v, "critic.model.fsdp_config.strategy", allowed, "strategy not supported:");
}

// R33 / R59 (verl/workers/config/optimizer.py: FSDPOptimizerConfig.__post_init__, and
// fsdp_workers.py "LR scheduler type ... is not supported"): FSDP schedulers are constant/cosine.
// A non-null deprecated warmup_style is checked and then replaces lr_scheduler_type.
// A checkout's own FSDPOptimizerConfig asserts its own lists (065536/Asycn_verl adds
// "entropy_adaptive", "signal_fraction").
std::optional<RuleHit> fsdp_scheduler(const ConfigView& v) {
  static constexpr std::array<std::string_view, 2> kTypes = {"constant", "cosine"};
  std::vector<std::string> sections;
  if (!v.megatron()) sections.push_back(A("optim."));
  if (fsdp_critic(v)) sections.emplace_back("critic.optim.");
  for (const std::string& section : sections) {
    const bool warmup = !v.is_null(section + "warmup_style");
    const std::string key = section + (warmup ? "warmup_style" : "lr_scheduler_type");
    const char* kind = warmup ? "fsdp_warmup_style" : "fsdp_lr_scheduler";
    std::optional<RuleHit> hit;
    if (v.checkout_registry(kind)) {
      const std::vector<std::string>& own = v.registry(kind);
      hit = one_of(v, key, std::vector<std::string_view>(own.begin(), own.end()), "LR scheduler type");
    } else {
      hit = one_of(v, key, kTypes, "LR scheduler type");
    }
    if (hit) return hit;
  }
  return std::nullopt;
}

// R35 (verl/utils/profiler/config.py: TorchProfilerToolConfig / NPUToolConfig __post_init__):
// every entry of a profiler's contents list must be supported; NPU levels likewise.
std::optional<RuleHit> unsupported_content(const ConfigView& v, const std::string& key,
                                           std::span<const std::string_view> allowed) {
  const ConfigNode* list = v.node(key);
  if (list == nullptr || list->kind != NodeKind::list) return std::nullopt;
  for (const ConfigNode& item : list->items) {
    if (item.kind != NodeKind::string) continue;
    if (std::find(allowed.begin(), allowed.end(), item.text) != allowed.end()) continue;
    std::string names;
    for (std::string_view name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
    return RuleHit{item.text,
                   fmt::format("Profiler contents only supports [{}], but gets {} ({}); {}", names, item.text,
                               key, kAtStartUp),
                   {}};
  }
  return std::nullopt;
}

std::optional<RuleHit> profiler_contents(const ConfigView& v) {
  static constexpr std::array<std::string_view, 7> kTorch = {
      "cuda", "cpu", "memory", "shapes", "stack", "profile-by-stage", "merge-profiles"};
  static constexpr std::array<std::string_view, 6> kNpu = {"npu",    "cpu",    "memory",
                                                           "shapes", "module", "stack"};
  static constexpr std::array<std::string_view, 4> kLevels = {"level_none", "level0", "level1", "level2"};
  for (const std::string& section : {A("profiler.tool_config."), REF("profiler.tool_config."),
                                     std::string("critic.profiler.tool_config.")}) {
    if (auto hit = unsupported_content(v, section + "torch.contents", kTorch)) return hit;
    if (auto hit = unsupported_content(v, section + "npu.contents", kNpu)) return hit;
    if (auto hit = one_of(v, section + "npu.level", kLevels, "NPU profiler level")) return hit;
  }
  return std::nullopt;
}

// R35 (verl/utils/profiler/config.py: TorchMemoryToolConfig; ray_trainer.init_workers for nsys).
std::optional<RuleHit> profiler_limits(const ConfigView& v) {
  for (const char* name : {"trace_alloc_max_entries", "stack_depth"}) {
    const std::string key = std::string("global_profiler.global_tool_config.torch_memory.") + name;
    const auto value = v.integer(key);
    if (!value || *value > 0) continue;
    return RuleHit{std::to_string(*value),
                   fmt::format("torch_memory {} must be > 0; {}", name, kAtStartUp),
                   {key + (std::string(name) == "stack_depth" ? "=32" : "=100000")}};
  }
  if (v.text("global_profiler.tool").value_or("") != "nsys" || v.is_null("global_profiler.steps"))
    return std::nullopt;
  if (!v.is_null("global_profiler.global_tool_config.nsys.worker_nsight_options")) return std::nullopt;
  return RuleHit{"null",
                 "worker_nsight_options must be set when using nsys with profile_steps; would fail in "
                 "RayPPOTrainer.init_workers",
                 {}};
}

// R54 (vllm_async_server.py: launch_servers): a replica over several nodes without rollout DP
// needs vLLM >= 0.11.1 (a version question, hence a warning). Only the async server does this: a
// sync rollout (vLLMRollout, external_launcher) never starts it; and a replica larger than the
// whole pool spans no nodes (the TP rules report it).
std::optional<RuleHit> vllm_multinode_tp(const ConfigView& v) {
  if (v.text(R("name")).value_or("") != "vllm" || v.text(R("mode")).value_or("async") == "sync") return std::nullopt;
  const long long per_node = v.rollout_gpus_per_node();
  const long long replica = v.rollout_world();
  const long long pool = v.rollout_pool_gpus();
  if (per_node <= 0 || replica <= per_node || (pool > 0 && replica > pool) ||
      v.integer(R("data_parallel_size")).value_or(1) > 1)
    return std::nullopt;
  return RuleHit{
      std::to_string(replica),
      fmt::format(
          "a rollout replica of {} GPUs spans {} nodes with data_parallel_size 1: \"For multi-node MP "
          "Executor, either (1) set data_parallel_size > 1 or (2) upgrade vLLM to >= 0.11.1\"; {} "
          "with an older vLLM",
          replica, replica / per_node, kServer),
      {}};
}

// R55 (vllm_async_server.py): with expert parallelism (from v0.8.0: with data parallelism) the GPUs
// a replica uses per node (replica.py: gpus_per_replica_node = min(n_gpus_per_node, replica world))
// must tile into TP groups. A replica within one node always does; a multi-node one needs
// n_gpus_per_node % TP == 0.
std::optional<RuleHit> vllm_expert_layout(const ConfigView& v) {
  static const int data_parallel_trigger_from = find_verl_version("0.8.0")->index;
  const std::string trigger =
      v.version().index >= data_parallel_trigger_from ? "data_parallel_size" : "expert_parallel_size";
  if (v.text(R("name")).value_or("") != "vllm" || v.integer(R(trigger)).value_or(1) <= 1) return std::nullopt;
  const long long per_node = std::min(v.rollout_gpus_per_node(), v.rollout_world());
  const long long tp = v.integer(R("tensor_model_parallel_size")).value_or(1);
  if (per_node <= 0 || tp <= 0 || per_node % tp == 0) return std::nullopt;
  return RuleHit{
      std::to_string(tp),
      fmt::format(
          "gpus_per_node should be divisible by tensor_model_parallel_size ({} GPUs of the replica per "
          "node % TP {} != 0) with {} > 1; {}",
          per_node, tp, trigger, kServer),
      {}};
}

// R59 (fsdp_workers.py: _build_model_optimizer): TiledMLP needs FSDP2; MTP is Megatron-only.
std::optional<RuleHit> fsdp_feature_gates(const ConfigView& v) {
  if (!v.megatron()) {
    if (v.boolean("actor_rollout_ref.model.tiled_mlp.enabled").value_or(false) &&
        v.text(A("strategy")).value_or("fsdp") != "fsdp2") {
      return RuleHit{"true",
                     fmt::format("TiledMLP requires FSDP2. Set `{}strategy=fsdp2`; {}", kA, kInWorker),
                     {A("strategy") + "=fsdp2"}};
    }
    if (v.boolean("actor_rollout_ref.model.mtp.enable").value_or(false)) {
      return RuleHit{"true",
                     fmt::format("Right now, MTP is not supported in FSDP; {}", kInWorker),
                     {"actor_rollout_ref.model.mtp.enable=False"}};
    }
  }
  if (fsdp_critic(v) && v.boolean("critic.model.tiled_mlp.enabled").value_or(false) &&
      v.text("critic.strategy").value_or("fsdp") != "fsdp2") {
    return RuleHit{"true",
                   fmt::format("TiledMLP requires FSDP2. Set `critic.strategy=fsdp2`; {}", kInWorker),
                   {"critic.strategy=fsdp2"}};
  }
  return std::nullopt;
}

// R75 (verl/trainer/ppo/ray_trainer.py: compute_advantage, dp_actor.py): optimal-token baselines need
// sum(pi^2) from the actor, which the fused kernels and the prefix grouper cannot provide.
std::optional<RuleHit> estimator_prerequisites(const ConfigView& v) {
  const std::string estimator = v.text("algorithm.adv_estimator").value_or("");
  const bool sum_pi = v.boolean(A("calculate_sum_pi_squared")).value_or(false);
  if ((estimator == "optimal_token_baseline" || estimator == "tir_optimal_token_baseline") && !sum_pi) {
    return RuleHit{
        "false",
        fmt::format("Step-dependent optimal baseline ({}) requires sum_pi_squared from actor. Please set "
                    "actor.calculate_sum_pi_squared=True in config; {}",
                    estimator, kFirstStep),
        {A("calculate_sum_pi_squared") + "=True"}};
  }
  if (!sum_pi || v.megatron()) return std::nullopt;
  // dp_actor.py: DataParallelPPOActor.__init__ (FSDP actor).
  for (const std::string& key :
       {std::string("actor_rollout_ref.model.use_fused_kernels"), A("use_prefix_grouper")}) {
    if (!v.boolean(key).value_or(false)) continue;
    return RuleHit{
        "true",
        fmt::format("calculate_sum_pi_squared is not supported with {}=True; would fail when the FSDP "
                    "actor is built (dp_actor.py)",
                    key),
        {key + "=False"}};
  }
  return std::nullopt;
}

// verl before 0.5.0: CUDA graphs (enforce_eager=False) with the cache freed between steps
// (eager_assertion.hpp); verl's own v0.4.1 examples that capture graphs set free_cache_engine=False.
std::optional<RuleHit> cuda_graphs_with_free_cache(const ConfigView& v) {
  const std::string name = v.text(R("name")).value_or("");
  const std::string mode = v.text(R("mode")).value_or("sync");
  if (!asserts_eager_with_free_cache(v.version(), name, mode)) return std::nullopt;
  // A checkout's own rollout decides (a 0.5.0.dev snapshot, read with 0.4.1's rules, no longer asserts).
  if (v.checkout_registry("eager_free_cache_assert")) {
    const std::vector<std::string>& asserting = v.registry("eager_free_cache_assert");
    const std::string file = name == "sglang_async" ? "sglang" : name;
    if (std::find(asserting.begin(), asserting.end(), file) == asserting.end()) return std::nullopt;
  }
  if (v.boolean(R("enforce_eager")).value_or(true) || !v.boolean(R("free_cache_engine")).value_or(false)) {
    return std::nullopt;
  }
  return RuleHit{"False",
                 fmt::format("disable CUDA graph (enforce_eager = False) if free cache engine: verl {}'s {} asserts "
                             "enforce_eager=True while free_cache_engine=True; would fail when the workers build the "
                             "rollout (free_cache_engine=False keeps the engine's KV cache through the update "
                             "instead; verl 0.5.0 lifts the assertion)",
                             v.version().id, name == "vllm" ? "vLLMRollout" : "SGLangRollout"),
                 {R("enforce_eager") + "=True"}};
}

// R77 (verl/workers/reward_manager/dapo.py and experimental/reward_loop/reward_manager/dapo.py,
// both __init__): once reward_kwargs.overlong_buffer_cfg is given (enabled or not), max_resp_len
// must be given and >= overlong_buffer_cfg.len. The suggested buffer is a fifth of the budget, as
// in the DAPO paper (arXiv:2503.14476 §3.4: 4,096 soft-punish tokens of 20,480).
std::optional<RuleHit> dapo_overlong(const ConfigView& v) {
  const std::string kwargs = "reward_model.reward_kwargs.";
  const RewardManagerChoice manager = reward_manager_choice(v);
  if (manager.source != "register" || v.text(manager.key).value_or("") != "dapo" ||
      v.is_null(kwargs + "overlong_buffer_cfg")) {
    return std::nullopt;
  }
  const auto buffer = v.integer(kwargs + "overlong_buffer_cfg.len");
  const std::string key = kwargs + "max_resp_len";
  const auto max_resp = v.integer(key);
  if (!buffer || (max_resp && *max_resp >= *buffer)) return std::nullopt;
  if (!max_resp && !v.is_null(key)) return std::nullopt;  // set, but not statically known
  RuleHit hit{
      max_resp ? std::to_string(*max_resp) : "null",
      max_resp ? fmt::format("max_resp_len must be larger than overlong_buffer.len: max_resp_len {} < {}; {}",
                             *max_resp, *buffer, kRewardManager)
               : fmt::format("max_resp_len must be provided if overlong_buffer_cfg is set, but got None; {}",
                             kRewardManager),
      {}};
  const long long budget = max_resp ? *max_resp : v.integer("data.max_response_length").value_or(*buffer);
  if (!max_resp) hit.fix.push_back(fmt::format("{}{}={}", v.node(key) == nullptr ? "+" : "", key, budget));
  if (budget < *buffer) hit.fix.push_back(fmt::format("{}overlong_buffer_cfg.len={}", kwargs, budget / 5));
  return hit;
}

// R78 (verl/experimental/agent_loop/agent_loop.py): the loops @register'ed in
// verl/experimental/agent_loop/ (single_turn_agent and tool_agent in releases; a checkout's own
// sources add its loops); other names must come from agent_loop_config_path or user code (hence a
// warning). A dataset's own agent_name column is not visible statically.
std::optional<RuleHit> agent_loop_name(const ConfigView& v) {
  if (!v.is_null(R("agent.agent_loop_config_path"))) return std::nullopt;
  auto hit = registered_name(v, R("agent.default_agent_loop"), "agent_loop", "Agent loop", "verl registers only these");
  if (!hit) return hit;
  hit->message +=
      "; would fail at the first generate unless your code or agent_loop_config_path registers it";
  if (hit->fix.empty()) hit->fix = {R("agent.default_agent_loop") + "=single_turn_agent"};
  return hit;
}

// verl/checkpoint_engine/base.py CheckpointEngineRegistry.get (CheckpointEngineManager.__init__,
// at start-up in every trainer): "Checkpoint engine {backend} not registered". A module named by
// checkpoint_engine.custom_backend_module is imported first and may register any name.
std::optional<RuleHit> checkpoint_engine_backend(const ConfigView& v) {
  if (!v.is_null(R("checkpoint_engine.custom_backend_module"))) return std::nullopt;
  auto hit = registered_name(v, R("checkpoint_engine.backend"), "checkpoint_engine", "Checkpoint engine",
                             "CheckpointEngineManager fails at start-up: not registered");
  if (!hit || !hit->fix.empty()) return hit;
  // Colocated engines take the weights in place (naive); engines of their own over NCCL.
  const bool colocated = v.boolean("actor_rollout_ref.hybrid_engine").value_or(true);
  hit->fix = {R("checkpoint_engine.backend") + (colocated ? "=naive" : "=nccl")};
  return hit;
}

// verl/checkpoint_engine/base.py CheckpointEngineWorker.__init__ (verl 0.9.0 on): the worker of
// every engine on GPUs of its own raises NotImplementedError for delta_sharded unless the rollout
// is SGLang (the sparse apply goes through SGLang's custom-weight-loader hook). Colocated engines
// are not built as these workers: no verdict there, nor when hybrid_engine is unknown.
std::optional<RuleHit> delta_sharded_rollout(const ConfigView& v) {
  if (v.text(R("checkpoint_engine.backend")) != std::optional<std::string>("delta_sharded")) return std::nullopt;
  const auto name = v.text(R("name"));
  const auto hybrid = v.boolean("actor_rollout_ref.hybrid_engine");
  if (!name || *name == "sglang" || !hybrid || *hybrid) return std::nullopt;
  return RuleHit{"delta_sharded",
                 fmt::format("checkpoint_engine.backend='delta_sharded' currently supports only the sglang rollout "
                             "(got rollout.name='{}'): CheckpointEngineWorker raises NotImplementedError at start-up",
                             *name),
                 {R("checkpoint_engine.backend") + "=nccl"}};
}

}  // namespace

const std::vector<VerlRule>& feature_rules() {
  static const std::vector<VerlRule> rules = {
      {"rollout.vllm-lora-rank",
       Severity::error,
       {"actor_rollout_ref.model.lora_rank", "actor_rollout_ref.model.lora.rank",
        "actor_rollout_ref.rollout.name"},
       vllm_lora_rank},
      {"rollout.trace-max-samples",
       Severity::error,
       {"actor_rollout_ref.rollout.trace.max_samples_per_step_per_worker"},
       trace_max_samples},
      {"fsdp.engine-strategy",
       Severity::error,
       {"actor_rollout_ref.actor.fsdp_config.strategy", "critic.model.fsdp_config.strategy"},
       fsdp_engine_strategy},
      {"fsdp.lr-scheduler",
       Severity::error,
       {"actor_rollout_ref.actor.optim.lr_scheduler_type", "actor_rollout_ref.actor.optim.warmup_style",
        "critic.optim.lr_scheduler_type", "critic.optim.warmup_style"},
       fsdp_scheduler},
      {"profiler.contents",
       Severity::error,
       {"actor_rollout_ref.actor.profiler.tool_config", "actor_rollout_ref.ref.profiler.tool_config",
        "critic.profiler.tool_config"},
       profiler_contents},
      {"profiler.tool-limits",
       Severity::error,
       {"global_profiler.global_tool_config.torch_memory", "global_profiler.tool", "global_profiler.steps"},
       profiler_limits},
      {"rollout.vllm-multinode-tp",
       Severity::warning,
       {"actor_rollout_ref.rollout.tensor_model_parallel_size",
        "actor_rollout_ref.rollout.data_parallel_size", "trainer.n_gpus_per_node"},
       vllm_multinode_tp},
      {"rollout.vllm-expert-layout",
       Severity::error,
       {"actor_rollout_ref.rollout.expert_parallel_size",
        "actor_rollout_ref.rollout.tensor_model_parallel_size", "trainer.n_gpus_per_node"},
       vllm_expert_layout},
      {"fsdp.feature-gates",
       Severity::error,
       {"actor_rollout_ref.model.tiled_mlp.enabled", "actor_rollout_ref.model.mtp.enable",
        "critic.model.tiled_mlp.enabled"},
       fsdp_feature_gates},
      {"algorithm.estimator-prerequisites",
       Severity::error,
       {"algorithm.adv_estimator", "actor_rollout_ref.actor.calculate_sum_pi_squared"},
       estimator_prerequisites},
      {"reward.dapo-overlong",
       Severity::error,
       {"reward_model.reward_kwargs.overlong_buffer_cfg.len", "reward_model.reward_kwargs.max_resp_len"},
       dapo_overlong},
      {"rollout.agent-loop-name",
       Severity::warning,
       {"actor_rollout_ref.rollout.agent.default_agent_loop"},
       agent_loop_name},
      {"rollout.checkpoint-engine-backend",
       Severity::error,
       {"actor_rollout_ref.rollout.checkpoint_engine.backend",
        "actor_rollout_ref.rollout.checkpoint_engine.custom_backend_module"},
       checkpoint_engine_backend,
       false,
       "verl/checkpoint_engine/base.py:CheckpointEngineRegistry.get"},
      {"rollout.cuda-graphs-free-cache",
       Severity::error,
       {"actor_rollout_ref.rollout.enforce_eager", "actor_rollout_ref.rollout.free_cache_engine",
        "actor_rollout_ref.rollout.name", "actor_rollout_ref.rollout.mode"},
       cuda_graphs_with_free_cache},
      {"rollout.delta-sharded-sglang",
       Severity::error,
       {"actor_rollout_ref.rollout.checkpoint_engine.backend", "actor_rollout_ref.rollout.name",
        "actor_rollout_ref.hybrid_engine"},
       delta_sharded_rollout,
       false,
       "verl/checkpoint_engine/base.py:CheckpointEngineWorker.__init__",
       "0.9.0"},
  };
  return rules;
}

// vllm_rollout_spmd.py and vllm_rollout.py vLLMRollout.__init__, sglang_rollout.py SGLangRollout.__init__
// at v0.4.1; verl PR #1464 (v0.5.0) made free_cache_engine work with graphs. vLLM's async server
// (vLLMAsyncRollout) builds its engine without the assertion; SGLang's rollout of those releases is
// SGLangRollout in either mode (sglang_async included).
bool asserts_eager_with_free_cache(const VerlVersion& version, std::string_view rollout_name,
                                   std::string_view rollout_mode) {
  static const int fixed_in = find_verl_version("0.5.0")->index;
  if (version.index >= fixed_in) return false;
  return (rollout_name == "vllm" && rollout_mode == "sync") || rollout_name == "sglang" ||
         rollout_name == "sglang_async";
}

}  // namespace meshplan
