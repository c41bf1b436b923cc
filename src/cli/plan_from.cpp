#include "cli/plan_from.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>

#include "cli/cluster_input.hpp"
#include "cli/model_input.hpp"
#include "core/text.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "search/baseline.hpp"
#include "verl/fit/model_fit.hpp"
#include "verl/fit/to_strategy.hpp"

namespace meshplan {
namespace {

// Runs of letters, digits and '-': "qwen2_14b_grpo_4_h800_fsdp_vllm.sh" -> ..., "h800", ...
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') {
      word += c;
    } else if (!word.empty()) {
      out.push_back(word);
      word.clear();
    }
  }
  return out;
}

// The catalog ids a bare name stands at the head of: "h20" -> H20-96GB, H20-141GB.
std::vector<std::string> parts_named(const std::string& word, const std::vector<GpuSpec>& catalog) {
  std::vector<std::string> parts;
  const std::string head = to_lower(word) + "-";
  for (const GpuSpec& gpu : catalog) {
    if (to_lower(gpu.id).rfind(head, 0) == 0) parts.push_back(gpu.id);
  }
  return parts;
}

// The distinct catalog GPUs among the words of `text`, in order of appearance, each with the line
// it first appears on (`first_line` for the first line of `text`).
std::vector<NamedGpu> gpus_in(const std::string& text, const std::vector<GpuSpec>& catalog, int first_line) {
  std::vector<NamedGpu> found;
  int line = first_line;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    for (const std::string& word : words(text.substr(start, end - start))) {
      const bool has_letter = std::any_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      if (!has_letter) continue;  // a bare number ("4090") is a count more often than a GPU
      Result<GpuSpec> gpu = find_gpu(catalog, word);
      if (!gpu.ok()) continue;
      if (std::none_of(found.begin(), found.end(), [&](const NamedGpu& g) { return g.gpu.id == gpu->id; })) {
        found.push_back({std::move(gpu.value()), line, parts_named(word, catalog)});
        std::erase(found.back().same_name, found.back().gpu.id);
      }
    }
    start = end + 1;
    ++line;
  }
  return found;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Values as Hydra reads them: "True"/"true", "0.80"/"0.8" and "4"/"4.0" are the same.
bool same_value(const std::string& written, const ConfigNode& node) {
  if (node.is_number()) {
    try {
      std::size_t used = 0;
      const double value = std::stod(written, &used);
      return used == written.size() && value == node.as_double();
    } catch (const std::exception&) {
      return false;
    }
  }
  return lower(written) == lower(node.to_text());
}

// A launch that gives global micro-batches (actor.ppo_micro_batch_size, the log-prob ones) and no
// per-GPU ones: verl divides them by the data-parallel ranks (fsdp_workers.py: `//= device_mesh.size()
// // ulysses_sequence_parallel_size`; megatron_workers.py: `//= mpu.get_data_parallel_world_size()`).
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kGlobalMicroBatches = {{
    {"actor_rollout_ref.actor.ppo_micro_batch_size", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"},
    {"actor_rollout_ref.rollout.log_prob_micro_batch_size", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"},
    {"actor_rollout_ref.ref.log_prob_micro_batch_size", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"}}};

void apply_global_micro_batches(const ConfigNode& config, Strategy& strategy, Workload& workload) {
  const int ranks = std::max(1, strategy.backend == Backend::megatron ? strategy.dp : strategy.dp / strategy.ulysses_sp);
  auto per_gpu = [&](std::size_t index) -> std::optional<int> {
    const ConfigNode* global = find_path(config, kGlobalMicroBatches[index].first);
    const ConfigNode* own = find_path(config, kGlobalMicroBatches[index].second);
    if (!global || global->kind != NodeKind::integer || (own && own->kind != NodeKind::null)) return std::nullopt;
    return std::max<int>(1, static_cast<int>(global->integer / ranks));
  };
  if (const auto micro = per_gpu(0)) strategy.micro_batch = workload.rl.ppo_micro_batch_per_gpu = *micro;
  if (const auto micro = per_gpu(1)) workload.rl.log_prob_micro_batch_per_gpu = *micro;
}

}  // namespace

Result<std::optional<NamedGpu>> gpu_named_in(const std::string& path, const std::string& text,
                                             const std::vector<GpuSpec>& catalog) {
  for (const std::string* source : {&path, &text}) {
    const std::vector<NamedGpu> found = gpus_in(*source, catalog, source == &path ? 0 : 1);
    if (found.size() == 1) return std::optional<NamedGpu>(found.front());
    if (found.size() > 1) {
      std::string names;
      for (const NamedGpu& named : found) names += fmt::format("{}{} (line {})", names.empty() ? "" : ", ", named.gpu.id, named.line);
      return Error{path, 0, "--gpu", fmt::format("the launch names several GPU types ({}): give --gpu TYPE", names)};
    }
  }
  return std::optional<NamedGpu>();
}

Result<PlanLaunch> read_plan_launch(const std::vector<InputText>& inputs, const VerlReadOptions& read,
                                    const PlanLaunchArguments& arguments, const std::vector<GpuSpec>& catalog) {
  const std::string file = inputs.empty() ? "--from" : inputs.front().file_name;
  Result<VerlLaunch> launch = read_verl_launch(inputs, read);
  if (!launch) return launch.error();
  if (!launch->has_verl_launch) {
    return Error{file, 0, "--from", "no verl trainer launch (python3 -m verl.trainer.main_ppo ...) in the script"};
  }
  const VerlJob job = verl_to_strategy(*launch);
  if (job.workload.rl.rollout_gpus > 0) {
    // The one-step-off, fully-async or V1 separate-async trainer's launch: --from rewrites
    // colocated main_ppo launches only.
    const char* trainer = launch->trainer == VerlTrainer::fully_async  ? "fully-async trainer"
                          : launch->trainer == VerlTrainer::main_ppo ? "V1 trainer in separate-async mode"
                                                                       : "one-step-off trainer";
    return Error{file, launch->location.line, "--from",
                 fmt::format("the launch runs verl's {} (engines on a rollout pool of {} GPUs beside "
                             "the trainer's {} x {}); --from plans colocated verl.trainer.main_ppo launches: plan it with "
                             "--rollout-gpus {} --off-policy-steps 1 and the launch's sizes, or check it with meshplan check",
                             trainer, job.workload.rl.rollout_gpus, job.nnodes, job.gpus_per_node,
                             job.workload.rl.rollout_gpus)};
  }
  // A plan needs the launch's own sizes: a value the script leaves unknown (a `case` on a
  // variable from the environment or a `$(...)`) would be planned at verl's default instead.
  if (!job.unknown_key.empty()) {
    return Error{file, where_set(*launch, job.unknown_key).line, job.unknown_key,
                 fmt::format("not known statically ({}): give the variable with --env VAR=value or the value with "
                             "--set {}=VALUE",
                             job.unknown_reason, job.unknown_key)};
  }
  if (job.nnodes <= 0 || job.gpus_per_node <= 0) {
    return Error{file, launch->location.line, "trainer.n_gpus_per_node",
                 fmt::format("the launch places its trainer on {} x {} GPUs (trainer.nnodes x trainer.n_gpus_per_node): "
                             "nothing to plan",
                             job.nnodes, job.gpus_per_node)};
  }
  PlanLaunch plan;
  plan.launch = std::move(launch.value());
  plan.strategy = job.strategy;
  plan.workload = job.workload;
  plan.model_path = job.model_path;

  if (!arguments.model.empty()) {
    Result<ModelSpec> model = load_model_argument(arguments.model);
    if (!model) return model.error();
    plan.model = std::move(model.value());
  } else if (std::optional<ModelSpec> preset = model_from_path(job.model_path)) {
    plan.model = std::move(*preset);
  } else {
    return Error{file, plan.launch.set_at.count("actor_rollout_ref.model.path") ? plan.launch.set_at.at("actor_rollout_ref.model.path").line : 0,
                 "actor_rollout_ref.model.path",
                 fmt::format("'{}' is not a model preset (meshplan model --list): give --model PRESET or a config.json",
                             job.model_path)};
  }

  if (!arguments.cluster.empty()) {
    Result<Cluster> cluster = load_cluster_argument(arguments.cluster, catalog);
    if (!cluster) return cluster.error();
    if (cluster->heterogeneous() || cluster->total_gpus() != job.nnodes * job.gpus_per_node) {
      return Error{file, 0, "--cluster",
                   fmt::format("{} is not the launch's {} x {} GPUs of one type (trainer.nnodes x trainer.n_gpus_per_node)",
                               arguments.cluster, job.nnodes, job.gpus_per_node)};
    }
    plan.cluster = std::move(cluster.value());
  } else {
    std::optional<GpuSpec> gpu;
    if (!arguments.gpu.empty()) {
      Result<GpuSpec> named = find_gpu(catalog, arguments.gpu);
      if (!named) return named.error();
      gpu = std::move(named.value());
    } else {
      Result<std::optional<NamedGpu>> named = gpu_named_in(file, inputs.empty() ? "" : inputs.front().text, catalog);
      if (!named) return named.error();
      if (*named) {
        gpu = (*named)->gpu;
        const std::string where = (*named)->line == 0 ? std::string("in the script's path")
                                                      : fmt::format("at line {} of the script", (*named)->line);
        const std::vector<std::string>& others = (*named)->same_name;
        plan.gpu_source = others.empty() ? fmt::format("{}, named {} (--gpu for another)", gpu->id, where)
                                         : fmt::format("{}, named {}; {} {} the same name: --gpu {} if the launch ran there",
                                                       gpu->id, where, fmt::join(others, ", "),
                                                       others.size() == 1 ? "shares" : "share", others.front());
      }
    }
    if (!gpu) return Error{file, 0, "--gpu", "the launch names no GPU type (in its path or text): give --gpu TYPE"};
    // trainer.nnodes x trainer.n_gpus_per_node; a rack-scale part's hosts share their NVLink domain.
    plan.cluster.groups.push_back(make_node_group(job.nnodes, job.gpus_per_node, *gpu));
  }
  const NodeGroup& used = plan.cluster.groups.front();
  plan.cluster_text = fmt::format("{}x{}x{}", used.nodes, used.gpus_per_node, used.gpu.id);
  plan.workload.rl = with_given_lengths(plan.workload.rl, arguments.mean_prompt_len, arguments.mean_response_len);
  plan.workload.images_per_sample =
      arguments.images_per_sample >= 0 ? arguments.images_per_sample : (plan.model.vision ? 1 : 0);
  if (plan.workload.images_per_sample > 0) plan.workload.image_pixels = arguments.image_pixels;
  apply_global_micro_batches(plan.launch.config, plan.strategy, plan.workload);
  normalize_launch(plan.strategy, plan.workload, plan.model);
  return plan;
}

std::string verl_override_diff(const PlanLaunch& plan, const LaunchSpec& winner, const std::string& source,
                               double speedup) {
  const std::string rate = speedup > 0 ? fmt::format("{:.2f}x its predicted step rate", speedup)
                                       : std::string("the script's own layout cannot run as written");
  std::string text = fmt::format(
      "# meshplan plan --from {}: the best plan as changes to the script's overrides ({}).\n"
      "# Replace the lines named (the script's line and value are given) and add the new ones; a ~ line: delete the line it names.\n",
      source, rate);
  // The winner's settings, key -> (value, written with '+').
  std::map<std::string, std::pair<std::string, bool>> wanted;
  std::vector<std::string> order;
  for (const std::string& line : verl_overrides(winner)) {
    const std::size_t equals = line.find('=');
    std::string key = line.substr(0, equals);
    const bool append = !key.empty() && key.front() == '+';
    if (append) key.erase(0, 1);
    if (key == "actor_rollout_ref.model.path") continue;
    wanted[key] = {line.substr(equals + 1), append};
    order.push_back(key);
  }
  // A script that pins the reference model's parallel sizes (verl's default follows the actor's:
  // ref.megatron.* = ${oc.select:actor_rollout_ref.actor.megatron.*}) gets them changed alike.
  const std::string actor = "actor_rollout_ref.actor.megatron.", ref = "actor_rollout_ref.ref.megatron.";
  for (const char* size : {"tensor_model_parallel_size", "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size",
                           "context_parallel_size", "expert_model_parallel_size", "expert_tensor_parallel_size"}) {
    const auto it = wanted.find(actor + size);
    if (it != wanted.end() && plan.launch.set_at.count(ref + size) && !wanted.count(ref + size)) {
      wanted[ref + size] = it->second;
      order.push_back(ref + size);
    }
  }
  // A Megatron-FSDP launch whose best plan runs without it turns it off (verl's default).
  const std::string megatron_fsdp = actor + "use_megatron_fsdp";
  if (const ConfigNode* on = find_path(plan.launch.config, megatron_fsdp);
      !wanted.count(megatron_fsdp) && on != nullptr && on->kind == NodeKind::boolean && on->boolean) {
    wanted[megatron_fsdp] = {"False", false};
    order.push_back(megatron_fsdp);
  }
  auto where = [&](const std::string& key, const ConfigNode& current) {
    const auto at = plan.launch.set_at.find(key);
    return at != plan.launch.set_at.end() && at->second.line > 0
               ? fmt::format("{}:{} sets {}", at->second.file, at->second.line, current.to_text())
               : fmt::format("verl's default {}", current.to_text());
  };
  int changes = 0;
  for (const std::string& key : order) {
    const auto& [value, append] = wanted.at(key);
    const ConfigNode* current = find_path(plan.launch.config, key);
    if (current && same_value(value, *current)) continue;
    ++changes;
    text += fmt::format("{}{}={}  # {}\n", append && !current ? "+" : "", key, value,
                        current ? where(key, *current) : "not set by the script");
  }
  // Settings the script adds that the winner does without (its recompute, its stage split).
  const std::string transformer = actor + "override_transformer_config.";
  for (const char* name : {"recompute_granularity", "recompute_method", "recompute_num_layers",
                           "num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage",
                           "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split",
                           "pipeline_model_parallel_layout", "overlap_moe_expert_parallel_comm"}) {
    const std::string key = transformer + name;
    const ConfigNode* current = find_path(plan.launch.config, key);
    if (wanted.count(key) || !plan.launch.set_at.count(key) || !current || current->kind == NodeKind::null) continue;
    ++changes;
    text += fmt::format("~{}  # {}\n", key, where(key, *current));
  }
  // verl refuses a global and a per-GPU micro-batch together: the script's global one goes.
  for (const auto& [global, own] : kGlobalMicroBatches) {
    const ConfigNode* current = find_path(plan.launch.config, global);
    if (!wanted.count(std::string(own)) || !current || current->kind == NodeKind::null) continue;
    ++changes;
    text += fmt::format("{}=null  # {} (verl takes one of it and {})\n", global, where(std::string(global), *current), own);
  }
  if (changes == 0) text += "# no change: the script's own layout is the best plan\n";
  return text;
}

}  // namespace meshplan
