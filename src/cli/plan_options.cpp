#include "cli/plan_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>

#include "cli/rl_flag_group.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "strategy/rollout_engine.hpp"

namespace meshplan {

void add_plan_flags(CLI::App& command, PlanOptions& o) {
  command.add_option("--from", o.from,
                     "a verl launch script: model, cluster, workload and its own layout (the baseline) come from it");
  command.add_option("--gpu", o.gpu, "with --from: the GPU type (default: the one named in the script or its path)");
  command.add_option("--env", o.from_env, "with --from: an environment variable VAR=value set before the script")->take_all();
  command.add_option("--set", o.from_set, "with --from: an extra override key=value, applied last")->take_all();
  command.add_option("--model", o.model, "preset name, config.json or its directory (with --from: instead of the script's)");
  command.add_option("--model-path", o.model_path, "model path or HF id written into emitted launches (default: --model)");
  command.add_option("--cluster", o.cluster, "NODESxGPUSxTYPE[+...] or a cluster YAML/JSON file");
  command.add_option("--gpu-catalog", o.gpu_catalog, "GPU catalog file instead of the built-in one");
  command.add_option("--workload", o.workload, "pretrain | sft | rl");
  command.add_option("--seq-len", o.seq_len, "tokens per sequence (pretrain/sft; rl: prompt + response)");
  command.add_option("--global-batch", o.global_batch, "sequences per step; rl: data.train_batch_size (prompts)");
  command.add_option("--images-per-sample", o.images_per_sample, "images per sample (VL models; default 1 for them)");
  command.add_option("--image-pixels", o.image_pixels, "pixels per image (VL models; default 200704 = 448x448)");
  command.add_option("--cpu-ms-per-image", o.cpu_ms_per_image,
                     "CPU milliseconds to decode+preprocess one image (default: 0.4 s per megapixel)");
  const std::size_t first_rl_flag = registered_options(command);
  command.add_option("--rollout-tp", o.rollout_tp, "rl: pin rollout.tensor_model_parallel_size");
  command.add_option("--rollout-n", o.rollout_n, "rl: rollout.n, responses per prompt");
  command.add_option("--prompt-len", o.prompt_len, "rl: data.max_prompt_length");
  command.add_option("--response-len", o.response_len, "rl: data.max_response_length");
  command.add_option("--mean-prompt-len", o.mean_prompt_len,
                     "rl: expected real prompt tokens (default: a quarter of --prompt-len)");
  command.add_option("--mean-response-len", o.mean_response_len,
                     "rl: expected real response tokens (default: a quarter of --response-len); the headroom "
                     "applies here, the maximum lengths are shown");
  command.add_option("--mini-batch", o.mini_batch, "rl: actor.ppo_mini_batch_size in prompts (default: global batch)");
  command.add_option("--gpu-memory-utilization", o.gpu_memory_utilization, "rl: pin rollout.gpu_memory_utilization");
  command.add_option("--rollout-engine", o.rollout_engine, "rl: vllm | sglang | trtllm");
  command.add_option("--rollout-quantization", o.rollout_quantization,
                     "rl: fp8 holds the engines' linear layers and experts in fp8 (verl rollout.quantization)")
      ->check(CLI::IsMember({"none", "fp8"}));
  add_rollout_placement_flags(command, o.placement);
  add_rollout_split_flag(command, o.placement);
  group_rl_flags_from(command, first_rl_flag);
  command.add_option("--fix", o.fix, "pin dimensions, e.g. tp=4,pp=2,recompute=selective (see docs/tour/plan.md)");
  command.add_option("--objective", o.objective, "throughput | memory | gpus");
  command.add_option("--headroom", o.headroom, "fraction of GPU memory kept free (default 0.1)");
  command.add_option("--top", o.top, "how many plans to show (default 5)");
  command.add_flag("--allow-cross-node-tp", o.allow_cross_node_tp, "let TP span nodes");
  command.add_flag("--mtp", o.mtp,
                   "every plan trains the model's multi-token-prediction layers (Megatron --mtp-num-layers; verl "
                   "model.mtp.enable_train)");
  add_cuda_graph_flags(command, o.cuda_graphs);
  add_moe_dispatcher_flags(command, o.moe_dispatcher);
  command.add_flag("--json", o.json, "machine-readable output (docs/json.md)");
  command.add_option("--html", o.html, "write a self-contained HTML report to FILE");
  command.add_option("--emit", o.emit, "print the winner's launch: verl | megatron | env | slurm");
  command.add_flag("--explain", o.explain, "say why the winner beats the runner-ups");
  command.add_flag("--min-gpus", o.min_gpus, "find the smallest number of these GPUs on which it fits");
}

const std::vector<LaunchSetFlag>& flags_a_launch_sets() {
  static const std::vector<LaunchSetFlag> flags = {
      {"--workload", ""},  // a verl launch is an RL workload
      {"--seq-len", "data.max_prompt_length and data.max_response_length"},
      {"--global-batch", "data.train_batch_size"},
      {"--rollout-n", "actor_rollout_ref.rollout.n"},
      {"--prompt-len", "data.max_prompt_length"},
      {"--response-len", "data.max_response_length"},
      {"--mini-batch", "actor_rollout_ref.actor.ppo_mini_batch_size"},
      {"--rollout-engine", "actor_rollout_ref.rollout.name"},
  };
  return flags;
}

Result<Workload> plan_workload(const PlanOptions& o, const ModelSpec& model) {
  Workload w;
  if (o.workload == "pretrain") {
    w.kind = WorkloadKind::pretrain;
  } else if (o.workload == "sft") {
    w.kind = WorkloadKind::sft;
  } else if (o.workload == "rl") {
    w.kind = WorkloadKind::rl;
  } else {
    return Error{"", 0, "--workload", fmt::format("'{}': expected pretrain, sft or rl", o.workload)};
  }
  // An RL flag in pre-training or SFT, or --seq-len in RL, would be silently ignored.
  if (o.from.empty() && w.kind != WorkloadKind::rl && !o.rl_flag_given.empty()) {
    return Error{"", 0, o.rl_flag_given, fmt::format("applies with --workload rl only (the workload is {})", o.workload)};
  }
  if (w.kind == WorkloadKind::rl && o.seq_len_given) {
    return Error{"", 0, "--seq-len", "does not apply with --workload rl: a sequence is --prompt-len + --response-len"};
  }
  auto positive = [](std::int64_t value, const char* flag, std::int64_t limit) -> std::optional<Error> {
    if (value < 1 || value > limit) return Error{"", 0, flag, fmt::format("must be between 1 and {}, got {}", limit, value)};
    return std::nullopt;
  };
  for (const auto& check : {positive(o.seq_len, "--seq-len", 10'000'000), positive(o.global_batch, "--global-batch", 100'000'000),
                            positive(o.rollout_n, "--rollout-n", 1024), positive(o.prompt_len, "--prompt-len", 10'000'000),
                            positive(o.response_len, "--response-len", 10'000'000), positive(o.top, "--top", 1000)}) {
    if (check) return *check;
  }
  if (!(o.headroom >= 0 && o.headroom < 1)) return Error{"", 0, "--headroom", fmt::format("must be in [0, 1), got {}", o.headroom)};
  if (o.mini_batch < 0 || o.mini_batch > o.global_batch) {
    return Error{"", 0, "--mini-batch", fmt::format("must be between 1 and --global-batch ({}), got {}", o.global_batch, o.mini_batch)};
  }
  if (o.cpu_ms_per_image && !(*o.cpu_ms_per_image > 0)) return Error{"", 0, "--cpu-ms-per-image", "must be positive"};
  if (o.image_pixels <= 0) return Error{"", 0, "--image-pixels", "must be positive"};
  if (!parse_rollout_engine(o.rollout_engine)) {
    return Error{"", 0, "--rollout-engine", fmt::format("'{}': expected vllm, sglang or trtllm", o.rollout_engine)};
  }
  w.seq_len = o.seq_len;
  w.global_batch = o.global_batch;
  w.images_per_sample = o.images_per_sample >= 0 ? o.images_per_sample : (model.vision ? 1 : 0);
  if (w.images_per_sample > 0 && !model.vision) {
    return Error{"", 0, "--images-per-sample", fmt::format("{} is not a vision-language model", model.name)};
  }
  if (w.images_per_sample > 0) w.image_pixels = o.image_pixels;
  if (w.kind == WorkloadKind::rl) {
    RlSettings& rl = w.rl;
    rl.engine = parse_rollout_engine(o.rollout_engine).value_or(RolloutEngine::vllm);
    rl.rollout_fp8 = o.rollout_quantization == "fp8";
    rl.n = o.rollout_n;
    rl.prompt_len = o.prompt_len;
    rl.response_len = o.response_len;
    rl.ppo_mini_batch = static_cast<int>(o.mini_batch);
    apply_rollout_placement(o.placement, rl);
    if (o.mean_prompt_len < 0 || o.mean_response_len < 0) {
      return Error{"", 0, o.mean_prompt_len < 0 ? "--mean-prompt-len" : "--mean-response-len", "must be positive"};
    }
    // use_remove_padding (verl's default): micro-batches hold the expected real lengths.
    rl.mean_prompt_len = std::min(o.mean_prompt_len, o.prompt_len);
    rl.mean_response_len = std::min(o.mean_response_len, o.response_len);
    rl = with_expected_lengths(rl);
    w.seq_len = o.prompt_len + o.response_len;
  }
  return w;
}

Result<Fixes> plan_fixes(const PlanOptions& o) {
  Result<Fixes> fixes = parse_fixes(o.fix);
  if (!fixes) return fixes;
  auto pin = [&](const char* name, const std::string& value, const char* flag) -> std::optional<Error> {
    if (fixes->contains(name)) return Error{"", 0, flag, fmt::format("also given as --fix {}=...", name)};
    (*fixes)[name] = value;
    return std::nullopt;
  };
  if (o.rollout_tp) {
    if (*o.rollout_tp < 1) return Error{"", 0, "--rollout-tp", "must be at least 1"};
    if (auto e = pin("rollout_tp", std::to_string(*o.rollout_tp), "--rollout-tp")) return *e;
  }
  if (o.gpu_memory_utilization) {
    if (!(*o.gpu_memory_utilization > 0 && *o.gpu_memory_utilization < 1)) {
      return Error{"", 0, "--gpu-memory-utilization", "must be in (0, 1)"};
    }
    if (auto e = pin("gmu", fmt::format("{}", *o.gpu_memory_utilization), "--gpu-memory-utilization")) return *e;
  }
  return fixes;
}

Result<Objective> plan_objective(const PlanOptions& o) {
  if (o.objective == "throughput") return Objective::throughput;
  if (o.objective == "memory") return Objective::memory;
  if (o.objective == "gpus") return Objective::gpus;
  return Error{"", 0, "--objective", fmt::format("'{}': expected throughput, memory or gpus", o.objective)};
}

}  // namespace meshplan
