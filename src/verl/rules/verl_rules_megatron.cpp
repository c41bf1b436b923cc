// Megatron-only worker rules (../shared/docs/verl-rules.md R45-R48, R65, R66): what
// megatron_workers.py and megatron_actor.py assert when the Ray workers build the model and at the
// first update. The parallel-group rules (R7, R44) live with the batch and layout rules.
// The rules that mirror the legacy workers name their module: verl v0.8.0 removed
// megatron_workers.py and megatron_actor.py (the engine workers replaced them), so they apply
// up to v0.7.1 and main@b178a3cd only.
#include <fmt/format.h>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kInWorker = "would fail in the Megatron worker (inside Ray, after the model download)";
constexpr const char* kFirstUpdate = "would fail at the first actor update (megatron_actor.py)";

// R45 (megatron_actor.py: MegatronPPOActor._validate_config): Megatron has no Ulysses SP; the
// Megatron YAML has no such key, so only a '+'-added value can trip it.
std::optional<RuleHit> no_ulysses(const ConfigView& v) {
  if (!v.megatron()) return std::nullopt;
  const auto sp = v.integer(A("ulysses_sequence_parallel_size"));
  if (!sp || *sp == 1) return std::nullopt;
  return RuleHit{std::to_string(*sp),
                 fmt::format("the Megatron actor asserts ulysses_sequence_parallel_size == 1 (use "
                             "megatron.context_parallel_size for long sequences); {}",
                             kInWorker),
                 {"~" + A("ulysses_sequence_parallel_size")}};
}

// R45 (megatron_actor.py / megatron_critic.py: _validate_config): shuffling the mini-batches
// needs a seed.
std::optional<RuleHit> shuffle_needs_seed(const ConfigView& v) {
  std::vector<std::string> sections;
  if (v.megatron()) sections.emplace_back(kA);
  if (v.megatron_critic()) sections.emplace_back("critic.");
  for (const std::string& section : sections) {
    if (!v.boolean(section + "shuffle").value_or(false) || !v.is_null(section + "data_loader_seed")) continue;
    return RuleHit{"null",
                   fmt::format("If shuffle dataloader, seed must be manually set ({}data_loader_seed); {}",
                               section, kInWorker),
                   {section + "data_loader_seed=42"}};
  }
  return std::nullopt;
}

// R46 (megatron_workers.py: MegatronWorker._init_hf_config_and_tf_config): MTP goes through
// mbridge only; main@b178a3cd also asserted vanilla_mbridge, which v0.7.1 dropped.
std::optional<RuleHit> mtp_needs_mbridge(const ConfigView& v) {
  if (!v.megatron() || !v.boolean("actor_rollout_ref.model.mtp.enable").value_or(false)) return std::nullopt;
  static const int vanilla_dropped_in = find_verl_version("0.7.1")->index;
  const bool asks_vanilla = v.version().index < vanilla_dropped_in;
  for (const char* flag : {"use_mbridge", "vanilla_mbridge"}) {
    if (std::string_view(flag) == "vanilla_mbridge" && !asks_vanilla) continue;
    const std::string key = A(std::string("megatron.") + flag);
    if (v.boolean(key).value_or(true)) continue;
    return RuleHit{"false", fmt::format("MTP requires {} to be True; {}", flag, kInWorker), {key + "=True"}};
  }
  return std::nullopt;
}

// R46 (megatron_workers.py: _init_hf_config_and_tf_config): the model must have MTP layers
// (hf_config.num_nextn_predict_layers > 0).
std::optional<RuleHit> mtp_needs_layers(const ConfigView& v) {
  const ModelSpec* model = v.model();
  if (!v.megatron() || model == nullptr || !v.boolean("actor_rollout_ref.model.mtp.enable").value_or(false)) {
    return std::nullopt;
  }
  if (model->num_mtp_layers > 0) return std::nullopt;
  return RuleHit{
      "true",
      fmt::format("MTP requires at least one nextn_predict_layer: {} has num_nextn_predict_layers 0; {}",
                  model->name, kInWorker),
      {"actor_rollout_ref.model.mtp.enable=False"}};
}

// workers/engine/megatron/transformer_impl.py MegatronEngine.__init__ (the engine workers: 0.8.0 on,
// or use_legacy_worker_impl=disable): the Megatron engine loads models through mbridge only.
std::optional<RuleHit> engine_needs_mbridge(const ConfigView& v) {
  if (!v.engine_workers()) return std::nullopt;
  for (const std::string_view section : {"actor_rollout_ref.actor.megatron.", "critic.megatron."}) {
    const bool megatron = section.starts_with("critic") ? v.megatron_critic() : v.megatron();
    const std::string key = std::string(section) + "use_mbridge";
    if (!megatron || v.boolean(key).value_or(true)) continue;
    return RuleHit{"false",
                   fmt::format("use_mbridge must be True ({}=False): the Megatron engine asserts it when the "
                               "engine workers build the model (verl 0.8.0 on, or use_legacy_worker_impl=disable)",
                               key),
                   {key + "=True"}};
  }
  return std::nullopt;
}

// The legacy Megatron workers' forward passes read a micro batch size even under dynamic batch sizes:
// megatron_critic.py compute_values (to 0.7.1) and, before 0.6.0, megatron_actor.py compute_log_prob
// ("micro batch size is needed for forward compute", at the first step). Without dynamic batch sizes
// validate_config's exclusive-micro rules fail first.
std::optional<RuleHit> forward_micro_batch(const ConfigView& v) {
  static const int actor_gated_from = find_verl_version("0.6.0")->index;
  const auto unset = [&](const std::string& section, const std::string& name) {
    return v.is_null(section + name) && v.is_null(section + name + "_per_gpu");
  };
  if (v.megatron_critic() && v.boolean("critic.use_dynamic_bsz").value_or(false) &&
      unset("critic.", "ppo_micro_batch_size")) {
    return RuleHit{"null",
                   fmt::format("micro batch size is needed for forward compute: the Megatron critic's compute_values "
                               "asserts critic.ppo_micro_batch_size_per_gpu even with use_dynamic_bsz; {}, at the "
                               "first step",
                               kInWorker),
                   {"critic.ppo_micro_batch_size_per_gpu=1"}};
  }
  if (v.version().index < actor_gated_from && v.megatron() && v.dynamic_bsz() &&
      unset(R(""), "log_prob_micro_batch_size")) {
    return RuleHit{"null",
                   fmt::format("micro batch size is needed for forward compute: verl {}'s Megatron actor "
                               "compute_log_prob asserts rollout.log_prob_micro_batch_size_per_gpu even with "
                               "use_dynamic_bsz (0.6.0 asks it only without); {}, at the first step",
                               v.version().id, kInWorker),
                   {R("log_prob_micro_batch_size_per_gpu") + "=1"}};
  }
  return std::nullopt;
}

// Megatron-core runs the EP all-to-all overlap as its combined 1F1B schedule, which calls the
// trainer's forward_step with return_schedule_plan=True (pipeline_parallel/combined_1f1b.py; the
// training passes, not forward_only). verl's legacy Megatron actor (megatron_actor.py forward_step,
// 0.6.1 .. 0.7.1) then asserts use_fused_kernels (off by default, and forced off with MTP) and no
// entropy term; the Megatron engine of the engine workers (0.8.0 on) has no such parameter in its
// forward_step (workers/engine/megatron/transformer_impl.py), a TypeError; before 0.6.1 verl's
// forward_step has none either.
std::optional<RuleHit> a2a_overlap_forward_step(const ConfigView& v) {
  if (!v.megatron() ||
      !v.boolean(A("megatron.override_transformer_config.overlap_moe_expert_parallel_comm")).value_or(false)) {
    return std::nullopt;
  }
  static const int schedule_plan_from = find_verl_version("0.6.1")->index;
  constexpr const char* kWhen = "would fail at the first actor update (Megatron-core's combined 1F1B schedule)";
  const std::string key = A("megatron.override_transformer_config.overlap_moe_expert_parallel_comm");
  if (v.engine_workers() || v.version().index < schedule_plan_from) {
    return RuleHit{"True",
                   fmt::format("forward_step() got an unexpected keyword argument 'return_schedule_plan': verl {}'s "
                               "{} forward_step does not take the schedule plan the EP all-to-all overlap asks for; {}",
                               v.version().id, v.engine_workers() ? "Megatron engine's" : "Megatron actor's", kWhen),
                   {key + "=False"}};
  }
  const bool fused = v.boolean(A("use_fused_kernels")).value_or(false) &&
                     !v.boolean("actor_rollout_ref.model.mtp.enable").value_or(false);
  if (!fused) {
    return RuleHit{"True",
                   fmt::format("use_fused_kernels must be enabled to return the schedule plan (verl {}'s Megatron "
                               "actor, with overlap_moe_expert_parallel_comm; MTP turns fused kernels off); {}",
                               v.version().id, kWhen),
                   {"actor_rollout_ref.model.use_fused_kernels=True"}};
  }
  if (v.number(A("entropy_coeff")).value_or(0.0) != 0.0) {
    return RuleHit{"True",
                   fmt::format("calculate_entropy must be disabled to return the schedule plan (actor.entropy_coeff is "
                               "not 0, with overlap_moe_expert_parallel_comm); {}",
                               kWhen),
                   {A("entropy_coeff") + "=0"}};
  }
  return std::nullopt;
}

// R46 (megatron_workers.py: _init_hf_config_and_tf_config): float16 only through mbridge.
std::optional<RuleHit> fp16_needs_mbridge(const ConfigView& v) {
  if (!v.megatron() || v.text(A("megatron.dtype")).value_or("") != "float16") return std::nullopt;
  if (v.boolean(A("megatron.use_mbridge")).value_or(true)) return std::nullopt;
  return RuleHit{"false",
                 fmt::format("fp16 mode requires use_mbridge to be True; {}", kInWorker),
                 {A("megatron.use_mbridge") + "=True"}};
}

// R46 (verl/workers/config/megatron_peft.py): Megatron LoRA needs the Megatron-Bridge path,
// i.e. use_mbridge=True and vanilla_mbridge=False (the YAML default is vanilla_mbridge=True).
std::optional<RuleHit> lora_needs_bridge(const ConfigView& v) {
  if (!v.megatron() || v.integer("actor_rollout_ref.model.lora.rank").value_or(0) <= 0) return std::nullopt;
  const bool mbridge = v.boolean(A("megatron.use_mbridge")).value_or(true);
  const bool vanilla = v.boolean(A("megatron.vanilla_mbridge")).value_or(true);
  if (mbridge && !vanilla) return std::nullopt;
  RuleHit hit{fmt::format("use_mbridge={} vanilla_mbridge={}", mbridge, vanilla),
              fmt::format("LoRA/PEFT only supported via Megatron-Bridge (model.lora.rank > 0 needs "
                          "megatron.use_mbridge=True and megatron.vanilla_mbridge=False); {}",
                          kInWorker),
              {}};
  if (vanilla) hit.fix.push_back(A("megatron.vanilla_mbridge") + "=False");
  if (!mbridge) hit.fix.push_back(A("megatron.use_mbridge") + "=True");
  return hit;
}

// R47 (megatron_workers.py, ref role): a ref that loads weights needs an actor that does too.
std::optional<RuleHit> ref_load_weight(const ConfigView& v) {
  if (!v.megatron() || !v.uses_reference() || !v.boolean(REF("load_weight")).value_or(false))
    return std::nullopt;
  if (v.boolean(A("load_weight")).value_or(true)) return std::nullopt;
  return RuleHit{
      "false",
      fmt::format("the ref worker asserts actor.load_weight == ref.load_weight (True); {}", kInWorker),
      {A("load_weight") + "=True"}};
}

// R48 (megatron_workers.py, ref role): the ref needs a log-prob micro batch even with dynamic
// bsz; without dynamic bsz validate_config's R13 (batch.ref-log-prob-micro-exclusive) fires first.
std::optional<RuleHit> ref_micro_set(const ConfigView& v) {
  if (!v.megatron() || !v.uses_reference() || !v.dynamic_bsz()) return std::nullopt;
  if (!v.is_null(REF("log_prob_micro_batch_size")) || !v.is_null(REF("log_prob_micro_batch_size_per_gpu"))) {
    return std::nullopt;
  }
  return RuleHit{"null",
                 fmt::format("in the ref policy configuration, `log_prob_micro_batch_size_per_gpu` and "
                             "`log_prob_micro_batch_size` should not be None at the same time (also with "
                             "use_dynamic_bsz); {}",
                             kInWorker),
                 {REF("log_prob_micro_batch_size_per_gpu") + "=1"}};
}

// R65 (megatron_actor.py / megatron_critic.py): dynamic bsz needs every token budget it uses.
std::optional<RuleHit> dynamic_needs_budget(const ConfigView& v) {
  if (!v.megatron()) return std::nullopt;
  const std::vector<std::pair<bool, std::string>> budgets = {
      {v.dynamic_bsz(), A("ppo_max_token_len_per_gpu")},
      {v.boolean(R("log_prob_use_dynamic_bsz")).value_or(false), R("log_prob_max_token_len_per_gpu")},
      {v.uses_reference() && v.boolean(REF("log_prob_use_dynamic_bsz")).value_or(false),
       REF("log_prob_max_token_len_per_gpu")},
      {v.megatron_critic() && v.boolean("critic.use_dynamic_bsz").value_or(false),
       "critic.ppo_max_token_len_per_gpu"}};
  for (const auto& [dynamic, key] : budgets) {
    if (!dynamic || !v.is_null(key)) continue;
    return RuleHit{"null",
                   fmt::format("max_token_len must be set when use_dynamic_bsz is True ({} is null); {}", key,
                               kFirstUpdate),
                   {fmt::format("{}={}", key, 2 * v.sequence_width())}};
  }
  return std::nullopt;
}

// R66 (megatron_actor.py: forward_backward_batch; seqlen_balancing.py: rearrange_micro_batches;
// megatron/core/pipeline_parallel/schedules.py: forward_backward_pipelining_with_interleaving).
// With VPP the M micro-batches of a mini batch are scheduled in groups of
// G = microbatch_group_size_per_vp_stage (TransformerConfig default: PP). Megatron-core needs
// PP <= G <= M and M % G either 0 or >= PP. Without dynamic bsz M = ceil(mini_local / micro);
// with dynamic bsz verl rounds M up to a multiple of G and asserts M <= the sequences held.
std::optional<RuleHit> vpp_micro_batches(const ConfigView& v) {
  if (!v.megatron() || v.integer(A("megatron.virtual_pipeline_model_parallel_size")).value_or(1) <= 1) {
    return std::nullopt;
  }
  const long long pp = v.integer(A("megatron.pipeline_model_parallel_size")).value_or(1);
  const long long group =
      v.integer(A("megatron.override_transformer_config.microbatch_group_size_per_vp_stage")).value_or(pp);
  const auto mini = v.integer(A("ppo_mini_batch_size"));
  const auto n = v.integer(R("n"));
  const long long dp = v.actor_dp();
  if (pp <= 1 || group <= 0 || !mini || !n || *n <= 0 || dp <= 0) return std::nullopt;
  const long long local = (*mini * *n) / dp;
  if (v.dynamic_bsz()) {
    if (local >= group) return std::nullopt;
    return RuleHit{
        std::to_string(local),
        fmt::format("the local mini batch holds {} sequences (= {} * {} // dp {}) but VPP needs at least "
                    "microbatch_group_size_per_vp_stage = {} micro-batches: verl's num_micro_batches <= "
                    "len(seq_len_effective) assertion fails; {}",
                    local, *mini, *n, dp, group, kFirstUpdate),
        {fmt::format("{}={}", A("ppo_mini_batch_size"), round_up_to_multiple(group * dp, *n) / *n)}};
  }
  const auto micro = v.integer(A("ppo_micro_batch_size_per_gpu"));
  if (!micro || *micro <= 0 || local <= 0) return std::nullopt;
  const long long count = (local + *micro - 1) / *micro;
  const long long remainder = count % group;
  if (group >= pp && group <= count && (remainder == 0 || remainder >= pp)) return std::nullopt;
  return RuleHit{
      std::to_string(*micro),
      fmt::format("{} micro-batches per mini batch (ceil({} / micro {})) do not fit Megatron-core's "
                  "interleaved (VPP) schedule with pipeline_model_parallel_size {} and "
                  "microbatch_group_size_per_vp_stage {}: it needs PP <= group <= M and M % group either 0 "
                  "or >= PP; {}",
                  count, local, *micro, pp, group, kFirstUpdate),
      {}};
}

constexpr const char* kFirstOldLogProb = "would fail at the first old-log-prob pass, after the first rollout";

// RayPPOTrainer.fit (0.7.1 on): R2 records the experts in the old-log-prob pass, and a batch that
// also carries the rollout's raises; the legacy actor and the engine reach it alike.
RuleHit router_replay_r2_conflict() {
  return RuleHit{"R2",
                 fmt::format("Detected conflicting router replay configuration: router_replay.mode='R2' and "
                             "enable_rollout_routing_replay=True cannot be enabled simultaneously; {} "
                             "(RayPPOTrainer.fit)",
                             kFirstOldLogProb),
                 {R("enable_rollout_routing_replay") + "=False"}};
}

// Router replay on the legacy Megatron workers (v0.7.0, v0.7.1): R3 replays the experts the rollout
// chose, which only a rollout with enable_rollout_routing_replay returns (vllm_async_server.py), and
// MegatronPPOActor.compute_log_prob asserts them; R2 records its own in compute_log_prob
// (megatron_workers.py), and from v0.7.1 RayPPOTrainer.fit raises when the rollout's are there too.
// Both at the first old-log-prob pass, which bypass mode skips.
std::optional<RuleHit> router_replay_source(const ConfigView& v) {
  static const int conflict_from = find_verl_version("0.7.1")->index;
  if (!v.megatron() || v.engine_workers() || v.boolean("algorithm.rollout_correction.bypass_mode").value_or(false)) {
    return std::nullopt;
  }
  const std::string mode = v.text(A("router_replay.mode")).value_or("disabled");
  const bool rollout_experts = v.boolean(R("enable_rollout_routing_replay")).value_or(false);
  if (mode == "R3" && !rollout_experts) {
    return RuleHit{"R3",
                   fmt::format("routed_experts must be in data.batch.keys(): router_replay.mode R3 replays the "
                               "rollout's experts, which only {}=True returns; {} (megatron_actor.py "
                               "compute_log_prob)",
                               R("enable_rollout_routing_replay"), kFirstOldLogProb),
                   {R("enable_rollout_routing_replay") + "=True"}};
  }
  if (mode == "R2" && rollout_experts && v.version().index >= conflict_from && !v.v1_trainer()) {
    return router_replay_r2_conflict();
  }
  return std::nullopt;
}

// Router replay on the Megatron engine (verl 0.8.0 on, actor.megatron.router_replay.mode): the
// engine workers flag compute_log_prob and update_actor for replay (engine_workers.py
// _with_routing_replay_flag); in R3 the engine's forward step replays the batch's routed_experts,
// which only a rollout with enable_rollout_routing_replay returns: otherwise it hands None on
// (MegatronEngineWithLMHead.prepare_model_inputs) and the first replay fails on None.is_nested
// (router_replay_utils.py set_router_replay_data at 0.8.0, align_r3_router_replay_data at 0.9.0), in
// the old-log-prob pass or, in bypass mode, the first update. In R2 the log-prob pass records the
// experts and RayPPOTrainer.fit raises when the rollout's are in the batch too.
std::optional<RuleHit> engine_router_replay_source(const ConfigView& v) {
  if (!v.megatron() || !v.engine_workers() || v.separate_rollout_pool() || v.fully_async()) return std::nullopt;
  const std::string mode = v.text(A("megatron.router_replay.mode")).value_or("disabled");
  const bool rollout_experts = v.boolean(R("enable_rollout_routing_replay")).value_or(false);
  if (mode == "R3" && !rollout_experts) {
    return RuleHit{"R3",
                   fmt::format("router_replay.mode R3 replays the rollout's experts, which only {}=True returns; "
                               "without them the Megatron engine's forward step gets routed_experts None and fails "
                               "('NoneType' object has no attribute 'is_nested', router_replay_utils.py): {}",
                               R("enable_rollout_routing_replay"), kFirstOldLogProb),
                   {R("enable_rollout_routing_replay") + "=True"}};
  }
  if (mode == "R2" && rollout_experts && !v.v1_trainer() &&
      !v.boolean("algorithm.rollout_correction.bypass_mode").value_or(false)) {
    return router_replay_r2_conflict();
  }
  return std::nullopt;
}

// Dynamic context parallelism on the Megatron engine (verl 0.8.0 on, megatron.dynamic_context_parallel):
// it packs each DP x CP rank's sequences up to max_seqlen_per_dp_cp_rank, which must be set (0.8.0:
// asserted when the engine builds its groups; from 0.9.0 McoreEngineConfig.__post_init__ raises at
// start-up). From 0.9.0 the engine also refuses interleaved pipelines, pad_to_length and a multimodal
// model (_check_dcp_unsupported_features) and a DP x CP world that is odd or 1 (_validate_dcp_world_size),
// when it is built.
std::optional<RuleHit> dynamic_context_parallel(const ConfigView& v) {
  static const int checks_from = find_verl_version("0.9.0")->index;
  const bool full_checks = v.version().index >= checks_from;
  constexpr const char* kEngineInit = "would fail when the workers build the Megatron engine";
  // The critic is a value model (the engine critic of 0.8.0 on): language models only.
  if (full_checks && v.megatron_critic() && v.boolean("critic.megatron.dynamic_context_parallel").value_or(false)) {
    return RuleHit{"true", fmt::format("Dynamic CP currently supports language models only (the critic is a value "
                                       "model); {}",
                                       kEngineInit),
                   {"critic.megatron.dynamic_context_parallel=False"}};
  }
  if (!v.megatron() || !v.engine_workers() || !v.boolean(A("megatron.dynamic_context_parallel")).value_or(false)) {
    return std::nullopt;
  }
  const std::string seqlen_key = A("megatron.max_seqlen_per_dp_cp_rank");
  const auto seqlen = v.integer(seqlen_key);
  if (v.is_null(seqlen_key) || (seqlen && *seqlen <= 0)) {
    return RuleHit{seqlen ? std::to_string(*seqlen) : "null",
                   full_checks ? fmt::format("max_seqlen_per_dp_cp_rank must be a positive integer when "
                                             "dynamic_context_parallel is enabled; {}",
                                             kAtStartUp)
                               : fmt::format("max_seqlen_per_dp_cp_rank is required when dynamic_context_parallel is "
                                             "enabled; {}",
                                             kEngineInit),
                   {fmt::format("{}={}", seqlen_key, std::max(1LL, v.sequence_width()))}};
  }
  if (!full_checks) return std::nullopt;
  // _check_dcp_unsupported_features' order: padding, then the model (its config.json's
  // vision_config), then the layout.
  if (!v.boolean(A("megatron.use_remove_padding")).value_or(true)) {
    return RuleHit{"false", fmt::format("dynamic_context_parallel requires use_remove_padding=True; {}", kEngineInit),
                   {A("megatron.use_remove_padding") + "=True"}};
  }
  if (v.boolean(A("megatron.pad_to_length")).value_or(false)) {
    return RuleHit{"true", fmt::format("dynamic_context_parallel does not support pad_to_length; {}", kEngineInit),
                   {A("megatron.pad_to_length") + "=False"}};
  }
  if (v.model() != nullptr && v.model()->vision) {
    return RuleHit{"true",
                   fmt::format("Dynamic CP does not support multimodal models ({} has a vision_config); {}",
                               v.model()->name, kEngineInit),
                   {A("megatron.dynamic_context_parallel") + "=False"}};
  }
  const auto vpp = v.integer(A("megatron.virtual_pipeline_model_parallel_size"));
  if (vpp && *vpp != 1) {
    return RuleHit{std::to_string(*vpp),
                   fmt::format("Dynamic CP does not support virtual pipeline parallelism; {}", kEngineInit),
                   {A("megatron.virtual_pipeline_model_parallel_size") + "=null"}};
  }
  // TransformerConfig.fp8 comes from override_transformer_config (checked when the model is built).
  const auto fp8 = v.text(A("megatron.override_transformer_config.fp8"));
  if (fp8 && !v.is_null(A("megatron.override_transformer_config.fp8")) && *fp8 != "false" && *fp8 != "False") {
    return RuleHit{*fp8, fmt::format("Dynamic CP does not support FP8 training; {}", kEngineInit), {}};
  }
  const auto tp = v.integer(A("megatron.tensor_model_parallel_size"));
  const auto pp = v.integer(A("megatron.pipeline_model_parallel_size"));
  const long long gpus = v.n_gpus();
  if (!tp || !pp || *tp <= 0 || *pp <= 0 || gpus <= 0 || gpus % (*tp * *pp) != 0) return std::nullopt;
  const long long dpcp = gpus / (*tp * *pp);
  if (dpcp >= 2 && dpcp % 2 == 0) return std::nullopt;
  return RuleHit{std::to_string(dpcp),
                 fmt::format("Dynamic CP requires the DPxCP world size to be an even integer of at least two, got "
                             "DPxCP={} ({} GPUs / TP {} / PP {}); {}",
                             dpcp, gpus, *tp, *pp, kEngineInit),
                 {}};
}

// The Megatron optimizer's clip norm comes from optim.clip_grad (init_megatron_optim_config,
// verl/utils/megatron_utils.py before 0.6.0, verl/utils/megatron/optimizer.py after; the deprecated
// optim.grad_clip replaces it when set) and Megatron-core compares it at every step
// (megatron/core/optimizer/optimizer.py: `if self.config.clip_grad > 0.0`), so null is a TypeError
// at the first update, of the actor or of a Megatron critic.
std::optional<RuleHit> megatron_grad_clip(const ConfigView& v) {
  for (const bool critic : {false, true}) {
    if (critic ? !v.megatron_critic() : !v.megatron()) continue;
    const std::string optim = critic ? "critic.optim." : A("optim.");
    const std::string key = optim + "clip_grad";
    if (v.node(key) == nullptr || !v.is_null(key) || !v.is_null(optim + "grad_clip")) continue;
    return RuleHit{"null",
                   fmt::format("'>' not supported between instances of 'NoneType' and 'float': Megatron-core's "
                               "optimizer step compares config.clip_grad > 0.0 and {} is null; would fail at the first "
                               "{} update",
                               key, critic ? "critic" : "actor"),
                   {key + "=1.0"}};
  }
  return std::nullopt;
}

}  // namespace

const std::vector<VerlRule>& megatron_rules() {
  static const std::vector<VerlRule> rules = {
      {"megatron.grad-clip-set",
       Severity::error,
       {"actor_rollout_ref.actor.optim.clip_grad", "critic.optim.clip_grad"},
       megatron_grad_clip},
      {"megatron.dynamic-cp",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.dynamic_context_parallel",
        "actor_rollout_ref.actor.megatron.max_seqlen_per_dp_cp_rank", "critic.megatron.dynamic_context_parallel"},
       dynamic_context_parallel,
       false,
       "verl/workers/engine/megatron/transformer_impl.py:MegatronEngine._init_device_mesh"},
      {"megatron.router-replay-source",
       Severity::error,
       {"actor_rollout_ref.actor.router_replay.mode", "actor_rollout_ref.rollout.enable_rollout_routing_replay"},
       router_replay_source,
       false,
       "verl/workers/actor/megatron_actor.py:MegatronPPOActor.compute_log_prob"},
      {"engine.router-replay-source",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.router_replay.mode", "actor_rollout_ref.rollout.enable_rollout_routing_replay"},
       engine_router_replay_source,
       false,
       "verl/workers/engine/megatron/transformer_impl.py:MegatronEngineWithLMHead.prepare_model_inputs",
       "0.8.0"},
      {"megatron.no-ulysses",
       Severity::error,
       {"actor_rollout_ref.actor.ulysses_sequence_parallel_size"},
       no_ulysses,
       false,
       "verl/workers/actor/megatron_actor.py:MegatronPPOActor._validate_config"},
      {"megatron.shuffle-needs-seed",
       Severity::error,
       {"actor_rollout_ref.actor.shuffle", "actor_rollout_ref.actor.data_loader_seed", "critic.shuffle",
        "critic.data_loader_seed"},
       shuffle_needs_seed,
       false,
       "verl/workers/actor/megatron_actor.py:MegatronPPOActor._validate_config"},
      {"megatron.mtp-needs-mbridge",
       Severity::error,
       {"actor_rollout_ref.model.mtp.enable", "actor_rollout_ref.actor.megatron.use_mbridge",
        "actor_rollout_ref.actor.megatron.vanilla_mbridge"},
       mtp_needs_mbridge,
       false,
       "verl/workers/megatron_workers.py:MegatronWorker._init_hf_config_and_tf_config"},
      {"model.mtp-needs-nextn-layers",
       Severity::error,
       {"actor_rollout_ref.model.mtp.enable"},
       mtp_needs_layers,
       true,
       "verl/workers/megatron_workers.py:MegatronWorker._init_hf_config_and_tf_config"},
      {"megatron.engine-needs-mbridge",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.use_mbridge", "critic.megatron.use_mbridge",
        "trainer.use_legacy_worker_impl"},
       engine_needs_mbridge},
      {"megatron.forward-micro-batch",
       Severity::error,
       {"critic.ppo_micro_batch_size_per_gpu", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
        "critic.use_dynamic_bsz", "actor_rollout_ref.actor.use_dynamic_bsz"},
       forward_micro_batch,
       false,
       "verl/workers/megatron_workers.py:CriticWorker.compute_values"},
      {"megatron.a2a-overlap-forward-step",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.override_transformer_config.overlap_moe_expert_parallel_comm",
        "actor_rollout_ref.model.use_fused_kernels", "actor_rollout_ref.actor.entropy_coeff"},
       a2a_overlap_forward_step},
      {"megatron.fp16-needs-mbridge",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.dtype", "actor_rollout_ref.actor.megatron.use_mbridge"},
       fp16_needs_mbridge,
       false,
       "verl/workers/megatron_workers.py:MegatronWorker._init_hf_config_and_tf_config"},
      {"megatron.lora-needs-bridge",
       Severity::error,
       {"actor_rollout_ref.model.lora.rank", "actor_rollout_ref.actor.megatron.use_mbridge",
        "actor_rollout_ref.actor.megatron.vanilla_mbridge"},
       lora_needs_bridge},
      {"megatron.ref-load-weight",
       Severity::error,
       {"actor_rollout_ref.ref.load_weight", "actor_rollout_ref.actor.load_weight"},
       ref_load_weight,
       false,
       "verl/workers/megatron_workers.py:ActorRolloutRefWorker._build_model_optimizer"},
      {"megatron.ref-micro-set",
       Severity::error,
       {"actor_rollout_ref.ref.log_prob_micro_batch_size",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"},
       ref_micro_set,
       false,
       "verl/workers/megatron_workers.py:ActorRolloutRefWorker.__init__"},
      {"megatron.dynamic-needs-budget",
       Severity::error,
       {"actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
        "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu",
        "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu", "critic.ppo_max_token_len_per_gpu"},
       dynamic_needs_budget,
       false,
       "verl/workers/actor/megatron_actor.py:MegatronPPOActor.forward_backward_batch"},
      {"megatron.vpp-micro-batches",
       Severity::error,
       {"actor_rollout_ref.actor.megatron.virtual_pipeline_model_parallel_size",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        "actor_rollout_ref.actor.ppo_mini_batch_size"},
       vpp_micro_batches},
  };
  return rules;
}

}  // namespace meshplan
