#include "cost/calibration/rl_calibration_runs.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

#include "cost/calibration/calibration_cluster.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "hardware/cluster_spec.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

/// What each source leaves unstated, from the source's own text (no per-row settings).
struct RlSourceConventions {
  const char* id_prefix;
  const char* source;
  /// Prompt tokens when the row gives none: math word problems with a chat template (verl's
  /// sources: assumed; NeMo RL: what its own tables' throughput formula gives, below).
  std::int64_t mean_prompt_tokens;
  /// NeMo RL's table gives T-Max Seq len (prompt + generation: vLLM max_model_len =
  /// max_total_sequence_length) and G-Average Seq len, the mean generated length.
  bool max_is_total;
  /// NeMo RL's mini-batch (T-GBS) counts samples; verl's ppo_mini_batch_size counts prompts.
  bool mini_batch_in_samples;
  /// NeMo RL packs sequences into micro-batches of max_total_sequence_length x micro-batch tokens
  /// (policy.sequence_packing.train_mb_tokens / logprob_mb_tokens in its recipes).
  bool sequence_packing;
  double gpu_memory_utilization;  ///< NeMo RL vllm_cfg 0.6; verl rollout default 0.5
  bool framework_grads_in_fp32;   ///< Megatron main grads in fp32 (NeMo RL: 16 bits; verl: fp32)
  /// Engines on GPUs of their own get the weights by a pipelined broadcast at the link's rate
  /// (NeMo RL packed_broadcast_producer), not verl's checkpoint engine.
  bool link_rate_weight_broadcast;
  /// The source's vLLM runs async scheduling on engines of one GPU (RlSettings::vllm_async_scheduling):
  /// NeMo RL v0.6 pins vLLM 0.17.1, where it is on by default for the uni executor NeMo RL gives
  /// single-GPU engines (vllm_worker.py: distributed_executor_backend None) and off for the Ray
  /// executor it gives the others ("ray"). NeMo RL v0.3 and v0.5 pin vLLM 0.9.0 and 0.11.2, from
  /// before the default; verl's sources ran engines on its own executor, which does not support it.
  bool async_scheduling_single_gpu_engines;
  /// The MoE token dispatcher the source's Megatron model runs (strategy.hpp MoeDispatcher).
  MoeDispatcher moe_dispatcher;
  /// Whose trainer ran the rows (strategy.hpp RlFramework): its colocated weight update and paging.
  RlFramework framework;
};

constexpr RlSourceConventions kRlSources[] = {
    // NeMo RL docs/about/performance-summary.md: step times are the mean of 5 steps; T-Max Seq len
    // is prompt + generation (the maximum the recipe allows), G-Average Seq len the mean
    // generation (max_is_total); T-GBS counts samples; DP is derived (GPUs / TP·CP·PP).
    // MoE dispatcher: grpo_math_1B.yaml sets megatron_cfg.moe_token_dispatcher_type "alltoall" at
    // v0.6.0 (:156) and "allgather" at 108bffdab (:120), which megatron_policy_worker.py:662 hands to
    // Megatron-core; v0.4 (cff17f83b) sets none, and Megatron-Bridge's Qwen3 MoE and DeepSeek-V3
    // bridges set "alltoall"; v0.3 (NeMo 2 model configs) is taken as "alltoall", not checked.
    {"nemorl_v06_", "NeMo RL v0.6 performance summary", 110, true, true, true, 0.6, false, true, true, MoeDispatcher::alltoall, RlFramework::nemo_rl},
    {"nemorl_v05_", "NeMo RL v0.5 performance summary", 110, true, true, true, 0.6, false, true, false, MoeDispatcher::allgather, RlFramework::nemo_rl},
    // v0.4 (the summary's first version, cff17f83b): the same table and conventions; vLLM 0.10-0.11.
    {"nemorl_v04_", "NeMo RL v0.4 performance summary", 110, true, true, true, 0.6, false, true, false, MoeDispatcher::alltoall, RlFramework::nemo_rl},
    // NeMo RL v0.3 blog (2025-07-21), Table 1: means over steps 22-29; max sequence length 4096
    // (prompt + generation); avg. generated tokens per sample is the mean response; global batch
    // 512 samples; sequence packing.
    {"nemorl_v03_", "NeMo RL v0.3 blog", 110, true, true, true, 0.6, false, true, false, MoeDispatcher::alltoall, RlFramework::nemo_rl},
    // verl docs/advance/one_step_off.md and fully_async.md: per-stage times are run means over
    // hundreds of steps while the response length grows; lengths are the configured maxima; the
    // layouts come from the shell scripts at HEAD (config_provenance), not from the run.
    {"verl_onestepoff_", "verl docs/advance/one_step_off.md", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
    {"verl_fullyasync_", "verl docs/advance/fully_async.md", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
    // verl docs/perf/dpsk.md: perf/mfu/actor only (no times); lengths are the example script's maxima.
    {"verl_dpsk_", "verl docs/perf/dpsk.md", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
    // verl GitHub issues: console logs of single steps; lengths are maxima unless the log's
    // response_length/mean is quoted.
    {"verl_issue", "verl GitHub issues", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
    // OpenRLHF README (2024) and benchmark/README.md: PPO with actor, critic, reference and reward
    // models; the time is that of 1024 prompts with one PPO epoch; lengths are maxima (1024/1024).
    {"openrlhf_readme_", "OpenRLHF README performance table", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
    {"openrlhf_bench_", "OpenRLHF benchmark/README.md", 256, false, false, false, 0.5, true, false, false, MoeDispatcher::alltoall, RlFramework::verl},
};

/// What a row's own recipe sets beyond its source's conventions: the NeMo RL performance recipes
/// the table names, read at the release the row was measured with (v0.6 rows at tag v0.6.0, v0.5
/// rows at 108bffdab), with their `defaults:` chain resolved down to examples/configs/grpo_math_1B.yaml
/// (gpu_memory_utilization 0.6, activation_checkpointing false). These are the runs' inputs, not
/// fitted values.
struct RlRecipeFacts {
  const char* id;
  const char* recipe;               ///< NVIDIA-NeMo/RL <ref>:<path>
  double gpu_memory_utilization;    ///< policy.generation.vllm_cfg.gpu_memory_utilization
  bool activation_checkpointing;    ///< policy.megatron_cfg.activation_checkpointing
  int first_stage_layers;           ///< megatron_cfg.num_layers_in_first_pipeline_stage (0: even split)
  int last_stage_layers;            ///< megatron_cfg.num_layers_in_last_pipeline_stage
  int logprob_batch_size;           ///< policy.logprob_batch_size: log-prob micro-batches of that many x max length tokens
};

// NeMo RL nemo_rl/models/megatron/setup.py (v0.6.0): activation_checkpointing sets
// recompute_granularity "full", recompute_method "uniform", recompute_num_layers 1.
constexpr RlRecipeFacts kRlRecipes[] = {
    {"nemorl_v06_gb200_deepseek_v3_128gpu_on",
     "v0.6.0:examples/configs/recipes/llm/performance/grpo-deepseek-v3-32n4g.yaml (<- grpo-deepseek-v3-32n8g.yaml)", 0.3,
     true, 7, 6, 1},
    {"nemorl_v06_gb200_deepseek_v3_256gpu_on",
     "v0.6.0:examples/configs/recipes/llm/performance/grpo-deepseek-v3-64n4g.yaml (<- grpo-deepseek-v3-32n4g.yaml)", 0.3,
     true, 7, 6, 1},
    {"nemorl_v06_gb200_qwen3_235b_a22b_64gpu_on",
     "v0.6.0:examples/configs/recipes/llm/performance/grpo-qwen3-235b-16n4g.yaml (<- grpo-qwen3-235b-16n8g.yaml)", 0.4,
     true, 23, 23, 1},
    {"nemorl_v06_gb200_qwen3_235b_a22b_128gpu_on",
     "v0.6.0:examples/configs/recipes/llm/performance/grpo-qwen3-235b-32n4g.yaml (<- grpo-qwen3-235b-16n4g.yaml)", 0.6,
     true, 23, 23, 1},
    {"nemorl_v06_gb200_qwen3_30b_a3b_16gpu_on", "v0.6.0:examples/configs/recipes/llm/performance/grpo-qwen3-30ba3b-4n4g.yaml",
     0.6, false, 0, 0, 2},
    {"nemorl_v05_gb200_llama_31_8b_instruct_8gpu_on",
     "108bffdab:examples/configs/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n4g.yaml", 0.6, true, 0, 0, 2},
    {"nemorl_v05_gb200_qwen3_32b_16gpu_on",
     "108bffdab:examples/configs/recipes/llm/performance/grpo-qwen3-32b-4n4g.yaml (<- grpo_math_1B.yaml)", 0.6, false, 0, 0, 4},
};

const RlRecipeFacts* recipe_of(const std::string& id) {
  for (const RlRecipeFacts& recipe : kRlRecipes) {
    if (id == recipe.id) return &recipe;
  }
  return nullptr;
}

/// The presets whose layer shapes the row's model has (fine-tunes keep their base's shape:
/// Qwen2.5-Math-7B has Qwen2.5-7B's 28 x 3584 layers and 152064 vocabulary).
constexpr std::pair<const char*, const char*> kModelPresets[] = {
    {"DeepSeek-V3", "deepseek-v3"},     {"Qwen3-235B-A22B", "qwen3-235b-a22b"}, {"Qwen3-30B-A3B", "qwen3-30b-a3b"},
    {"Llama-3.1-8B", "llama-3.1-8b"},   {"Llama-3.1-70B", "llama-3.1-70b"}, {"Qwen2.5-Math-7B", "qwen2.5-7b-instruct"},
    {"Qwen2.5-7B", "qwen2.5-7b-instruct"}, {"Qwen3-8B", "qwen3-8b"}, {"Qwen3-32B", "qwen3-32b"}, {"Qwen3.5-9B", "qwen3.5-9b"},
};

const json& object_at(const json& object, const char* key) {
  static const json empty = json::object();
  const auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : empty;
}

/// A number after `label` in a free-text field ("ppo_micro_batch_size_per_gpu=2, log_prob micro 4").
std::optional<int> number_after(const std::string& text, const char* label) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t at = text.find(label); at != std::string::npos; at = text.find(label, at + 1)) {
    std::size_t i = at + std::string_view(label).size();
    while (i < text.size() && is_space(text[i])) ++i;
    if (i < text.size() && text[i] == '=') ++i;
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t digits = i;
    while (i < text.size() && is_digit(text[i]) && i - digits < 9) ++i;
    if (i > digits) return std::stoi(text.substr(digits, i - digits));
  }
  return std::nullopt;
}

Result<ModelSpec> preset_for(const std::string& model_name) {
  for (const auto& [prefix, preset] : kModelPresets) {
    if (model_name.rfind(prefix, 0) != 0) continue;
    const auto config = find_model_preset_config(preset);
    if (!config) break;
    return parse_model_config(*config, preset);
  }
  return Error{"", 0, "model", "no preset with the shape of " + model_name};
}

Result<RlCalibrationRun> build_rl_run(const json& row, const EfficiencyConstants& constants) {
  RlCalibrationRun run;
  run.id = json_string(row, "id");
  const RlSourceConventions* source = source_of(run.id, kRlSources);
  const auto skip = [&](const std::string& reason) { return Error{"", 0, run.id, reason}; };
  if (source == nullptr) return skip("unknown source (no conventions recorded for it)");
  run.source = source->source;
  const auto step = object_at(row, "measured").find("step_s");
  if (step == object_at(row, "measured").end() || !step->is_number()) return skip("step time not measured");
  run.measured_step_s = step->get<double>();
  const json& measured = object_at(row, "measured");
  const json& other_measured = object_at(measured, "other");
  const auto phase = [&](const json& object, const char* key) { return json_number(object, key).value_or(0.0); };
  run.measured_gen_s = phase(measured, "gen_s");
  if (run.measured_gen_s > 0) run.measured_gen_s += phase(other_measured, "refit_s");
  run.measured_log_prob_s = phase(measured, "old_log_prob_s") + phase(measured, "ref_s") + phase(other_measured, "logprobs_s");
  run.measured_update_s = phase(measured, "update_actor_s");
  // "colocated_sync", "colocated", "colocated (DeepSpeed HE)": one set of GPUs, one phase after
  // the other. "async ...": generation on GPUs of its own, off_policy_steps ahead of the trainer
  // (RlSettings::rollout_gpus); a row must say how many GPUs generate. Other disaggregated
  // placements are not modelled.
  const std::string mode = json_string(row, "mode");
  const bool colocated = mode.rfind("colocated", 0) == 0;
  const auto generation_gpus = json_int(row, "generation_gpus");
  if (!colocated && mode.rfind("async", 0) != 0) return skip("not colocated and synchronous");
  if (!colocated && (!generation_gpus || *generation_gpus <= 0)) return skip("async, the generation GPUs not stated");
  const std::string engine = json_string(row, "rollout_engine");
  if (engine.empty()) return skip("rollout engine not stated");
  if (engine.rfind("vllm", 0) != 0 && engine.rfind("sglang", 0) != 0) {
    return skip("rollout engine '" + engine + "' is not modelled (vLLM and SGLang are)");
  }
  auto model = preset_for(json_string(row, "model"));
  if (!model) return skip(model.error().message);
  run.model = std::move(model.value());
  auto gpu = calibration_gpu(json_string(row, "gpu_type"));
  if (!gpu) return skip("unknown GPU '" + json_string(row, "gpu_type") + "'");
  const auto gpus = json_int(row, "num_gpus");
  // The trainer's GPUs: all of them, less those that only generate.
  const std::int64_t trainer_gpus = gpus.value_or(0) - (colocated ? 0 : *generation_gpus);
  if (trainer_gpus <= 0) return skip("no GPUs left to the trainer");
  auto nodes = calibration_nodes(*gpu, trainer_gpus);
  if (!nodes) return skip(nodes.error().message);
  run.cluster.groups.push_back(std::move(nodes.value()));

  Strategy& strategy = run.strategy;
  const json& parallel = object_at(row, "actor_parallel");
  const std::string backend = json_string(row, "train_backend");
  const auto tp = json_int(parallel, "tp");
  const auto pp = json_int(parallel, "pp");
  if (backend.rfind("megatron", 0) == 0) {
    if (!tp || !pp) return skip("actor TP/PP not stated");
    strategy.backend = Backend::megatron;
    strategy.tp = static_cast<int>(*tp);
    strategy.pp = static_cast<int>(*pp);
    strategy.cp = static_cast<int>(json_int(parallel, "cp").value_or(1));
    strategy.ep = static_cast<int>(json_int(parallel, "ep").value_or(1));
    strategy.sequence_parallel = strategy.tp > 1;
    // NeMo RL keeps Megatron's main grads in 16 bits (policy.megatron_cfg.
    // distributed_data_parallel_config.grad_reduce_in_fp32: false in examples/configs/
    // grpo_math_1B.yaml at v0.5.0 and v0.6.0, grpo_math_1B_megatron.yaml at v0.3.0); verl's
    // Megatron workers keep them in fp32 (utils/megatron_utils.py).
    strategy.grad_reduce_in_fp32 = source->framework_grads_in_fp32;
    strategy.moe_dispatcher = source->moe_dispatcher;
  } else if (backend.rfind("fsdp", 0) == 0) {
    // verl fsdp_workers.py ActorRolloutRefWorker.__init__: create_device_mesh(world_size,
    // fsdp_size) shards the actor over all its GPUs (FULL_SHARD; HYBRID_SHARD over groups of
    // fsdp_size when 0 < fsdp_size < world), and ulysses_device_mesh splits each sequence over
    // ulysses_sequence_parallel_size of them.
    strategy.backend = Backend::fsdp;
    strategy.zero = ZeroStage::zero3;
    strategy.ulysses_sp = static_cast<int>(json_int(parallel, "sp_ulysses").value_or(1));
    const auto fsdp_size = json_int(parallel, "fsdp_size").value_or(-1);
    strategy.fsdp_shard_size = fsdp_size > 0 && fsdp_size < trainer_gpus ? static_cast<int>(fsdp_size) : 0;
  } else {
    return skip("actor layout not stated for backend '" + backend + "'");
  }
  const std::int64_t model_parallel = std::int64_t{strategy.tp} * strategy.pp * strategy.cp;
  if (trainer_gpus % model_parallel != 0) return skip("GPU count is not a multiple of TP x PP x CP");
  strategy.dp = static_cast<int>(trainer_gpus / model_parallel);

  RlSettings& rl = run.workload.rl;
  run.workload.kind = WorkloadKind::rl;
  const auto rollout_tp = json_int(row, "rollout_tp");
  if (!rollout_tp) return skip("rollout TP not stated");
  rl.rollout_tp = static_cast<int>(*rollout_tp);
  rl.engine = engine.rfind("sglang", 0) == 0 ? RolloutEngine::sglang : RolloutEngine::vllm;
  rl.vllm_async_scheduling = source->async_scheduling_single_gpu_engines && rl.rollout_tp == 1;
  rl.framework = source->framework;
  if (!colocated) {
    rl.rollout_gpus = static_cast<int>(*generation_gpus);
    if (source->link_rate_weight_broadcast) rl.standalone_weight_sync = StandaloneWeightSync::link_rate;
    rl.off_policy_steps = static_cast<int>(json_int(row, "off_policy_steps").value_or(0));
    const auto in_flight = row.find("in_flight_weight_updates");
    rl.in_flight_weight_updates = in_flight != row.end() && in_flight->is_boolean() && in_flight->get<bool>();
  }
  // The row's own settings where it states them, else its recipe's (kRlRecipes), else the
  // source's convention.
  rl.gpu_memory_utilization = json_number(row, "gpu_memory_utilization").value_or(source->gpu_memory_utilization);
  // Where the recipe says so (tools/extract_nemo_rl_async_rows.py: NeMo RL's FP8 tables): the
  // engine's weights in fp8 (vllm_cfg.precision), Megatron's GEMMs in fp8 (fp8_cfg.enabled), the
  // engine's batch limit (vllm_kwargs.max_num_seqs).
  rl.rollout_fp8 = json_string(row, "generation_precision") == "fp8";
  if (json_string(row, "training_precision") == "fp8") strategy.compute_dtype = Dtype::fp8;
  rl.max_num_seqs = static_cast<int>(json_int(row, "max_num_seqs").value_or(rl.max_num_seqs));
  const auto checkpointing = row.find("gradient_checkpointing");
  bool recompute = checkpointing != row.end() && checkpointing->is_boolean() && checkpointing->get<bool>();
  if (const RlRecipeFacts* recipe = recipe_of(run.id)) {
    rl.gpu_memory_utilization = recipe->gpu_memory_utilization;
    recompute = recipe->activation_checkpointing;
    strategy.first_stage_layers = recipe->first_stage_layers;
    strategy.last_stage_layers = recipe->last_stage_layers;
  } else {
    strategy.first_stage_layers = static_cast<int>(json_int(row, "first_stage_layers").value_or(0));
    strategy.last_stage_layers = static_cast<int>(json_int(row, "last_stage_layers").value_or(0));
  }
  // Every layer recomputed: NeMo RL's activation_checkpointing (full, uniform, 1 layer per chunk)
  // and Hugging Face gradient checkpointing under FSDP (one checkpoint per decoder layer).
  if (recompute) {
    strategy.recompute = Recompute::full;
    strategy.recompute_method = RecomputeMethod::uniform;
    strategy.recompute_num_layers = 1;
  }
  const auto n = json_int(row, "rollout_n");
  const auto batch = json_int(row, "train_batch_size");
  const auto mini = json_int(row, "ppo_mini_batch_size");
  if (!n || !batch || !mini) return skip("train batch, rollout.n or mini-batch not stated");
  rl.n = static_cast<int>(*n);
  run.workload.global_batch = *batch;
  rl.ppo_mini_batch = static_cast<int>(source->mini_batch_in_samples ? *mini / *n : *mini);

  const json& other = object_at(row, "other_config");
  if (source->max_is_total) {
    // G-Average Seq len is the generation's mean: the table's Tokens/sec/GPU = total tokens /
    // (step x GPUs) (performance-summary.md, Performance Metrics) exceeds G-GBS x G-Average by
    // 103-127 tokens a sample on every row, the prompt (OpenMathInstruct-2 problems in NeMo RL's
    // math prompt). A row with its throughput gets its own prompt length from that formula.
    const auto max_total = json_int(other, "T_max_seq_len");
    const auto mean_generated = json_int(other, "G_avg_seq_len");
    const auto mean_response = json_int(object_at(row, "response_len"), "mean");
    if (!max_total || (!mean_generated && !mean_response)) return skip("sequence lengths not stated");
    rl.mean_response_len = mean_response ? *mean_response : *mean_generated;
    std::int64_t prompt = source->mean_prompt_tokens;
    const auto throughput = json_number(object_at(row, "measured"), "throughput_tokens_per_s");
    const auto samples = json_int(other, "G_GBS_samples_per_step");
    if (throughput && samples && *samples > 0) {
      const double per_sample = *throughput * run.measured_step_s * static_cast<double>(*gpus) / static_cast<double>(*samples);
      const auto derived = static_cast<std::int64_t>(std::lround(per_sample)) - rl.mean_response_len;
      if (derived > 0 && derived < *max_total - rl.mean_response_len) prompt = derived;
    }
    rl.prompt_len = rl.mean_prompt_len = prompt;
    rl.response_len = *max_total - prompt;
  } else {
    const json& prompt = object_at(row, "prompt_len");
    const json& response = object_at(row, "response_len");
    const auto prompt_max = json_int(prompt, "max");
    const auto response_max = json_int(response, "max");
    if (!prompt_max || !response_max) return skip("maximum prompt or response length not stated");
    rl.prompt_len = *prompt_max;
    rl.response_len = *response_max;
    // The step scales with the mean response; RL responses average 0.1-0.8 of their maximum
    // (and grow during a run), so a row without it cannot be predicted.
    const auto response_mean = json_int(response, "mean");
    if (!response_mean) return skip("mean response length not stated");
    rl.mean_prompt_len = json_int(prompt, "mean").value_or(std::min(source->mean_prompt_tokens, *prompt_max));
    rl.mean_response_len = *response_mean;
  }
  run.workload.seq_len = rl.prompt_len + rl.response_len;
  // A recipe that turns packing off (policy.sequence_packing.enabled: false) runs micro-batches of
  // whole sequences, as the row's micro_batches field states them.
  const auto packing = row.find("sequence_packing");
  if (packing != row.end() && packing->is_boolean() ? packing->get<bool>() : source->sequence_packing) {
    // NeMo RL packs train micro-batches of max_total_sequence_length x train_micro_batch_size (1
    // in every row) tokens and log-prob micro-batches of max_total_sequence_length x
    // logprob_batch_size (policy.sequence_packing.train_mb_tokens / logprob_mb_tokens).
    const auto logprob_batch = json_int(row, "logprob_batch_size");
    const RlRecipeFacts* recipe = recipe_of(run.id);
    const std::int64_t logprob_sequences = logprob_batch ? *logprob_batch : recipe ? recipe->logprob_batch_size : 1;
    rl.use_dynamic_bsz = true;
    rl.ppo_max_token_len_per_gpu = run.workload.seq_len;
    rl.log_prob_max_token_len_per_gpu = run.workload.seq_len * logprob_sequences;
  }
  const std::string micro = json_string(row, "micro_batches");
  if (auto update = number_after(micro, "ppo_micro_batch_size_per_gpu")) rl.ppo_micro_batch_per_gpu = *update;
  if (auto log_prob = number_after(micro, "log_prob micro")) rl.log_prob_micro_batch_per_gpu = *log_prob;

  run.options.constants = constants;
  const MemoryEstimate memory = estimate_memory(run.model, run.cluster, strategy, run.workload, MemoryOptions{}, nullptr);
  run.options.rollout_concurrent_sequences = memory.rollout.concurrent_sequences_per_replica;
  return run;
}

}  // namespace

RlPhaseSeconds rl_phase_seconds(const TimeEstimate& estimate) {
  RlPhaseSeconds phases;
  for (int i = 0; i < estimate.num_phases; ++i) {
    const std::string_view name = estimate.phases[i].name;
    const double seconds = estimate.phases[i].seconds;
    const bool generation =
        name == "timing_s/gen" || name == "timing_s/update_weights" || name == "timing_s/sync_rollout_weights";
    if (generation) phases.gen += seconds;
    else if (name.find("update") != std::string_view::npos) phases.update += seconds;
    else phases.log_prob += seconds;
  }
  return phases;
}

Result<RlCalibrationSet> read_rl_calibration_runs(const std::vector<CalibrationFile>& files,
                                                  const EfficiencyConstants& constants) {
  RlCalibrationSet all;
  for (const CalibrationFile& file : files) {
    auto set = read_calibration_rows<RlCalibrationRun>(file.text, file.name, "RL runs",
                                                       [&](const json& row) { return build_rl_run(row, constants); });
    if (!set) return set.error();
    for (RlCalibrationRun& run : set->runs) all.runs.push_back(std::move(run));
    for (SkippedRun& skipped : set->skipped) all.skipped.push_back(std::move(skipped));
  }
  return all;
}

}  // namespace meshplan
