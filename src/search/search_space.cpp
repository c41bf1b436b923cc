#include "search/search_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "core/text.hpp"

namespace meshplan {
namespace {

// The value lists the planner tries by default. Each list is short on purpose: the search visits
// their product, and every value is one a verl or Megatron-LM user would set.
constexpr int kMaxPowerOfTwo = 64;
constexpr int kMaxRolloutNodes = 4;
const std::vector<int> kMicroBatches = {1, 2, 4, 8};
const std::vector<int> kVirtualStages = {1, 2, 4};
const std::vector<int> kContextParallel = {1, 2, 4, 8};
const std::vector<int> kUlysses = {1, 2, 4, 8};
const std::vector<int> kLogProbMicroBatches = {1, 4, 16};
// verl's default is 0.5 (rollout.gpu_memory_utilization); its examples use 0.4-0.9, 0.85 in the
// large-model scripts (../shared/verl/examples_overrides.jsonl: 0.6, 0.8, 0.5, 0.7 most often).
const std::vector<double> kGpuMemoryUtilization = {0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9};
constexpr std::array<std::pair<OffloadChoice, std::string_view>, 4> kOffloadItems = {{
    {OffloadChoice::params, "params"}, {OffloadChoice::grads, "grads"}, {OffloadChoice::optimizer, "optimizer"},
    {OffloadChoice::ref, "ref"}}};

const std::vector<std::pair<std::string, std::string>> kDimensions = {
    {"backend", "megatron|fsdp"}, {"gpus", "int"}, {"tp", "int"}, {"pp", "int"}, {"vpp", "int"},
    {"cp", "int"}, {"ep", "int"}, {"etp", "int"}, {"dp", "int"}, {"sp", "0|1"}, {"distopt", "0|1"},
    {"ulysses", "int"}, {"fsdp_shard", "int"}, {"offload", "none|all|params+grads+optimizer+ref (any of them)"},
    {"first_stage", "int"}, {"last_stage", "int"}, {"mb", "int"},
    {"recompute", "none|selective|full_uniform|full_block|selective_moe"}, {"rollout_tp", "int"}, {"rollout_dp", "int"},
    {"gmu", "number in (0,1)"}, {"lp_mb", "int"}, {"dynamic_bsz", "0|1"}, {"a2a_overlap", "0|1"},
    {"megatron_fsdp", "0|1"}};

std::vector<int> powers_of_two_up_to(int limit) {
  std::vector<int> values;
  for (int value = 1; value <= std::min(limit, kMaxPowerOfTwo); value *= 2) values.push_back(value);
  return values;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(separator, start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::optional<int> parse_positive_int(const std::string& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<double> parse_fraction(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size() || !(value > 0 && value < 1)) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool value_matches(const std::string& kind, const std::string& value) {
  if (kind == "int") return parse_positive_int(value).has_value();
  if (kind.rfind("none|all|", 0) == 0) return parse_offload_choice(value).has_value();
  if (kind == "number in (0,1)") return parse_fraction(value).has_value();
  for (const std::string& choice : split(kind, '|')) {
    if (choice == value) return true;
  }
  return false;
}

int fixed_int(const Fixes& fixes, const std::string& name) { return *parse_positive_int(fixes.at(name)); }

void apply_int_fix(const Fixes& fixes, const std::string& name, std::vector<int>& values) {
  if (fixes.contains(name)) values = {fixed_int(fixes, name)};
}

void apply_bool_fix(const Fixes& fixes, const std::string& name, std::vector<bool>& values) {
  if (fixes.contains(name)) values = {fixes.at(name) == "1"};
}

}  // namespace

Dtype common_compute_dtype(const Cluster& cluster) {
  for (const NodeGroup& group : cluster.groups) {
    if (group.gpu.peak_flops(Dtype::bf16) <= 0) return Dtype::fp16;
  }
  return Dtype::bf16;
}

std::string offload_choice_name(OffloadChoice choice) {
  if (choice == OffloadChoice::none) return "none";
  if (choice == OffloadChoice::all) return "all";
  std::string name;
  for (const auto& [item, item_name] : kOffloadItems) {
    if ((static_cast<int>(choice) & static_cast<int>(item)) != 0) name += (name.empty() ? "" : "+") + std::string(item_name);
  }
  return name;
}

std::optional<OffloadChoice> parse_offload_choice(const std::string& text) {
  if (text == "none") return OffloadChoice::none;
  if (text == "all") return OffloadChoice::all;
  int bits = 0;
  for (const std::string& part : split(text, '+')) {
    const auto item = std::find_if(kOffloadItems.begin(), kOffloadItems.end(),
                                   [&](const auto& entry) { return entry.second == part; });
    if (item == kOffloadItems.end()) return std::nullopt;
    bits |= static_cast<int>(item->first);
  }
  return static_cast<OffloadChoice>(bits);
}

Offload to_offload(OffloadChoice choice) {
  const auto has = [&](OffloadChoice item) { return (static_cast<int>(choice) & static_cast<int>(item)) != 0; };
  Offload offload;
  offload.params = has(OffloadChoice::params);
  offload.grads = has(OffloadChoice::grads);
  offload.optimizer = has(OffloadChoice::optimizer);
  return offload;
}

OffloadChoice offload_choice(const Offload& offload, bool ref_param_offload) {
  int bits = 0;
  if (offload.params) bits |= static_cast<int>(OffloadChoice::params);
  if (offload.grads) bits |= static_cast<int>(OffloadChoice::grads);
  if (offload.optimizer) bits |= static_cast<int>(OffloadChoice::optimizer);
  if (ref_param_offload) bits |= static_cast<int>(OffloadChoice::ref);
  return static_cast<OffloadChoice>(bits);
}

void apply_offload(Strategy& strategy, Workload& workload, OffloadChoice choice) {
  Offload offload = to_offload(choice);
  // Megatron's CPU optimizer is a setting of the job, which the choice leaves as it is.
  if (strategy.offload.optimizer_on_cpu) {
    offload.optimizer_on_cpu = true;
    offload.optimizer_fraction = strategy.offload.optimizer_fraction;
  }
  strategy.offload = offload;
  workload.rl.ref_param_offload = (static_cast<int>(choice) & static_cast<int>(OffloadChoice::ref)) != 0;
}

std::string_view recompute_choice_name(RecomputeChoice choice) {
  switch (choice) {
    case RecomputeChoice::none: return "none";
    case RecomputeChoice::selective: return "selective";
    case RecomputeChoice::full_uniform: return "full_uniform";
    case RecomputeChoice::full_block: return "full_block";
    case RecomputeChoice::selective_moe: return "selective_moe";
  }
  return "?";
}

const std::vector<std::pair<std::string, std::string>>& fixable_dimensions() { return kDimensions; }

Result<Fixes> parse_fixes(const std::string& text) {
  Fixes fixes;
  if (text.empty()) return fixes;
  std::vector<std::string> names;
  for (const auto& [name, kind] : kDimensions) names.push_back(name);
  for (const std::string& item : split(text, ',')) {
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos) {
      return Error{"", 0, "--fix", fmt::format("'{}' is not NAME=VALUE (e.g. --fix tp=4,pp=2)", item)};
    }
    const std::string name = item.substr(0, equals);
    const std::string value = item.substr(equals + 1);
    const auto dimension = std::find_if(kDimensions.begin(), kDimensions.end(),
                                        [&](const auto& entry) { return entry.first == name; });
    if (dimension == kDimensions.end()) {
      const auto hint = nearest_match(name, names);
      return Error{"", 0, "--fix", fmt::format("unknown dimension '{}'{}; known: {}", name,
                                               hint ? fmt::format(" (did you mean '{}'?)", *hint) : "",
                                               fmt::join(names, ", "))};
    }
    if (fixes.contains(name)) return Error{"", 0, "--fix", fmt::format("'{}' is fixed twice", name)};
    if (!value_matches(dimension->second, value)) {
      return Error{"", 0, "--fix", fmt::format("{}={}: expected {}", name, value, dimension->second)};
    }
    if (dimension->second == "int" && value == "0" && name != "fsdp_shard") {
      return Error{"", 0, "--fix", fmt::format("{}=0: must be at least 1", name)};
    }
    fixes[name] = value;
  }
  return fixes;
}

Result<SearchSpace> build_search_space(const ModelSpec& model, const Cluster& cluster,
                                       const Workload& workload, const SpaceOptions& options) {
  if (cluster.groups.empty()) return Error{"", 0, "--cluster", "the cluster has no GPUs"};
  const NodeGroup& group = cluster.groups.front();
  const int total = cluster.total_gpus();
  const Fixes& fixes = options.fixes;
  SearchSpace space;

  space.world_sizes = {total};
  if (options.search_gpu_count) {
    space.world_sizes.clear();
    for (int gpus : powers_of_two_up_to(group.gpus_per_node - 1)) space.world_sizes.push_back(gpus);
    for (int nodes = 1; nodes <= group.nodes; ++nodes) space.world_sizes.push_back(nodes * group.gpus_per_node);
  }
  apply_int_fix(fixes, "gpus", space.world_sizes);

  space.backends = {Backend::megatron};
  if (workload.kind != WorkloadKind::pretrain) space.backends.push_back(Backend::fsdp);
  if (fixes.contains("backend")) {
    space.backends = {fixes.at("backend") == "fsdp" ? Backend::fsdp : Backend::megatron};
  }

  space.tp = powers_of_two_up_to(options.allow_cross_node_tp ? total : group.gpus_per_node);
  for (int pp = 1; pp <= std::min<std::int64_t>(model.num_layers, total); ++pp) space.pp.push_back(pp);
  space.vpp = kVirtualStages;
  space.cp = kContextParallel;
  space.ep = {1};
  space.etp = {1, 0};  // 0: expert TP = TP (Megatron's default when unset)
  if (model.moe) space.ep = powers_of_two_up_to(static_cast<int>(model.moe->num_experts));
  if (!model.moe) space.etp = {1};
  // Sequence parallel with TP > 1 keeps the same communication volume (an all-reduce is a
  // reduce-scatter plus an all-gather) and divides the replicated activations by TP
  // (Korthikanti et al. 2022 §4.2.2), so "off" is dominated; the distributed optimizer likewise
  // moves the same bytes as an all-reduce (ZeRO §7) and shards the optimizer states. The
  // dominated values are searched only when pinned with --fix.
  space.sequence_parallel = {true};
  space.distributed_optimizer = {true};
  // Megatron-FSDP shards the weights and gradients too, for an all-gather of each layer's weights
  // in the forward and backward and a reduce-scatter of its gradients (cost/time/parallel_comm.cpp).
  space.megatron_fsdp = {false, true};
  space.ulysses = kUlysses;
  space.fsdp_shard_size = {0};
  if (total > group.gpus_per_node) space.fsdp_shard_size.push_back(group.gpus_per_node);
  space.offload = {OffloadChoice::none, OffloadChoice::optimizer, OffloadChoice::all};
  space.micro_batch = kMicroBatches;
  space.recompute = {RecomputeChoice::none, RecomputeChoice::selective, RecomputeChoice::full_uniform,
                     RecomputeChoice::full_block};
  // MoE layers hold most of a MoE model's activations (routed copies of every token): recomputing
  // them alone (Megatron-core recompute_modules=[moe]) sits between selective and full.
  if (model.moe) space.recompute.push_back(RecomputeChoice::selective_moe);
  // EP all-to-all overlap hides the dispatch and combine behind another micro-batch's compute;
  // Megatron-core refuses it without EP, without interleaving under PP, with full recompute or
  // with the MoE layer recomputed (the moe.a2a-overlap-* rules prune those).
  space.moe_a2a_overlap = model.moe ? std::vector<bool>{false, true} : std::vector<bool>{false};
  if (workload.kind == WorkloadKind::rl) {
    // An RL plan is a verl launch, whose trainer cannot run the overlap as Megatron-core schedules it
    // (combined 1F1B calls forward_step with return_schedule_plan=True): the Megatron engine of verl
    // 0.8.0 on takes no such argument, and 0.6.1 .. 0.7.1 need fused kernels and no entropy term
    // (check's megatron.a2a-overlap-forward-step).
    if (fixes.contains("a2a_overlap") && fixes.at("a2a_overlap") == "1") {
      return Error{"", 0, "--fix",
                   "a2a_overlap=1: an RL plan is a verl launch, and verl's Megatron engine (0.8.0 on) cannot run "
                   "the EP all-to-all overlap (its forward_step takes no return_schedule_plan)"};
    }
    space.moe_a2a_overlap = {false};
    // Replicas of up to four whole nodes (verl R53; vLLM >= 0.11.1 for multi-node TP, R54), on
    // the engines' own GPUs when they have them.
    const int rollout_total = workload.rl.rollout_gpus > 0 ? workload.rl.rollout_gpus : total;
    space.rollout_tp = powers_of_two_up_to(std::min(rollout_total, kMaxRolloutNodes * group.gpus_per_node));
    space.rollout_dp =
        model.moe ? powers_of_two_up_to(std::min(rollout_total, group.gpus_per_node)) : std::vector<int>{1};
    space.gpu_memory_utilization = kGpuMemoryUtilization;
    space.log_prob_micro_batch = kLogProbMicroBatches;
  }

  const std::pair<const char*, std::vector<int>*> int_dimensions[] = {
      {"tp", &space.tp}, {"pp", &space.pp}, {"vpp", &space.vpp}, {"cp", &space.cp}, {"ep", &space.ep},
      {"etp", &space.etp}, {"dp", &space.dp}, {"ulysses", &space.ulysses}, {"mb", &space.micro_batch}};
  for (const auto& [name, values] : int_dimensions) apply_int_fix(fixes, name, *values);
  apply_int_fix(fixes, "fsdp_shard", space.fsdp_shard_size);
  apply_bool_fix(fixes, "sp", space.sequence_parallel);
  apply_bool_fix(fixes, "distopt", space.distributed_optimizer);
  apply_bool_fix(fixes, "a2a_overlap", space.moe_a2a_overlap);
  apply_bool_fix(fixes, "megatron_fsdp", space.megatron_fsdp);
  if (fixes.contains("offload")) space.offload = {*parse_offload_choice(fixes.at("offload"))};
  if (fixes.contains("first_stage") || fixes.contains("last_stage")) {
    const int first = fixes.contains("first_stage") ? fixed_int(fixes, "first_stage") : 0;
    const int last = fixes.contains("last_stage") ? fixed_int(fixes, "last_stage") : 0;
    space.stage_splits = {{first, last}};
    space.balanced_split = false;
  }
  if (fixes.contains("recompute")) {
    for (RecomputeChoice choice : {RecomputeChoice::none, RecomputeChoice::selective, RecomputeChoice::full_uniform,
                                   RecomputeChoice::full_block, RecomputeChoice::selective_moe}) {
      if (recompute_choice_name(choice) == fixes.at("recompute")) space.recompute = {choice};
    }
  }
  const bool rl = workload.kind == WorkloadKind::rl;
  for (const char* name : {"rollout_tp", "rollout_dp", "gmu", "lp_mb"}) {
    if (fixes.contains(name) && !rl) {
      return Error{"", 0, "--fix", fmt::format("{} applies to --workload rl only", name)};
    }
  }
  apply_int_fix(fixes, "rollout_tp", space.rollout_tp);
  apply_int_fix(fixes, "rollout_dp", space.rollout_dp);
  apply_int_fix(fixes, "lp_mb", space.log_prob_micro_batch);
  if (fixes.contains("gmu")) space.gpu_memory_utilization = {*parse_fraction(fixes.at("gmu"))};
  space.compute_dtype = common_compute_dtype(cluster);
  space.dynamic_bsz = fixes.contains("dynamic_bsz") ? fixes.at("dynamic_bsz") == "1" : workload.rl.use_dynamic_bsz;
  if (space.dynamic_bsz) {
    const std::int64_t width = workload.rl.prompt_len + workload.rl.response_len;
    for (int micro : space.micro_batch) space.ppo_token_budgets.push_back(micro * width);
    for (int micro : space.log_prob_micro_batch) space.log_prob_token_budgets.push_back(micro * width);
  }
  return space;
}

}  // namespace meshplan
