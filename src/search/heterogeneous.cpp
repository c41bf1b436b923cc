#include "search/heterogeneous.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "search/search_space.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

// Bytes per parameter of mixed-precision Adam: 2 weights + 2 grads + 12 fp32 master/m/v
// (ZeRO, Rajbhandari et al. 2020 §3.1).
constexpr double kStateBytesPerParam = 16;

double params_per_layer(const ModelSpec& model) {
  double experts = 0;
  if (model.moe && model.num_layers > 0) {
    experts = static_cast<double>(model.params.routed_experts + model.params.shared_experts + model.params.routers +
                                  model.params.latent_projections) /
              static_cast<double>(model.num_layers);
  }
  const double dense = model.num_layers > 0 ? static_cast<double>(model.params.dense_mlp) / model.num_layers : 0;
  return static_cast<double>(model.attention_params_per_layer + model.norm_params_per_layer) + dense + experts;
}

double phase_seconds(const PlanCandidate& candidate, PlanPhase phase) { return candidate.time.phase_seconds(phase); }

}  // namespace

std::vector<GroupShare> split_layers(const ModelSpec& model, const Cluster& cluster, Dtype dtype, double headroom) {
  std::vector<GroupShare> shares;
  const double layer_bytes = kStateBytesPerParam * params_per_layer(model);
  std::int64_t capacity = 0;
  for (const NodeGroup& group : cluster.groups) {
    GroupShare share;
    share.gpu = group.gpu.id;
    share.gpus = group.gpus();
    share.speed_flops = group.gpus() * group.gpu.peak_flops(dtype);
    const double usable = static_cast<double>(group.gpus()) * static_cast<double>(group.gpu.memory_bytes) * (1 - headroom);
    share.max_layers = layer_bytes > 0 ? static_cast<std::int64_t>(std::floor(usable / layer_bytes)) : model.num_layers;
    capacity += share.max_layers;
    shares.push_back(share);
  }
  if (capacity < model.num_layers) return {};
  for (std::int64_t layer = 0; layer < model.num_layers; ++layer) {
    GroupShare* best = nullptr;
    double best_time = 0;
    for (GroupShare& share : shares) {
      if (share.layers >= share.max_layers || share.speed_flops <= 0) continue;
      const double time = static_cast<double>(share.layers + 1) / share.speed_flops;
      if (!best || time < best_time) {
        best = &share;
        best_time = time;
      }
    }
    if (!best) return {};
    ++best->layers;
  }
  return shares;
}

double split_stage_seconds(const std::vector<GroupShare>& shares) {
  double slowest = 0;
  for (const GroupShare& share : shares) {
    if (share.layers > 0) slowest = std::max(slowest, static_cast<double>(share.layers) / share.speed_flops);
  }
  return slowest;
}

HeterogeneousPlan plan_heterogeneous(const ModelSpec& model, const Cluster& cluster, const Workload& workload,
                                     double headroom,
                                     const std::function<std::optional<PlanCandidate>(std::size_t)>& best_on) {
  HeterogeneousPlan plan;
  plan.compute_dtype = common_compute_dtype(cluster);
  const std::string dtype = plan.compute_dtype == Dtype::bf16 ? "bf16" : "fp16";
  if (plan.compute_dtype == Dtype::fp16) {
    plan.explanation.push_back("compute dtype fp16: a group lacks bf16 (V100), so every group runs fp16");
  }
  for (std::size_t i = 0; i < cluster.groups.size(); ++i) {
    plan.alone.push_back(best_on(i));
    const auto& alone = plan.alone.back();
    const NodeGroup& group = cluster.groups[i];
    if (!alone) {
      plan.explanation.push_back(fmt::format("{} x {} alone: nothing fits", group.gpus(), group.gpu.id));
      continue;
    }
    plan.explanation.push_back(fmt::format("{} x {} alone: {:.2f} s/step, {:.0f} tokens/s", group.gpus(), group.gpu.id,
                                           alone->step_seconds, alone->tokens_per_second));
    if (plan.best_alone < 0 || alone->step_seconds < plan.alone[plan.best_alone]->step_seconds) {
      plan.best_alone = static_cast<int>(i);
    }
  }
  plan.pipeline = split_layers(model, cluster, plan.compute_dtype, headroom);
  if (plan.best_alone >= 0 && !plan.pipeline.empty()) {
    // The best single group's step, scaled by the speed of the slowest stage of the split
    // relative to that group running every layer.
    const NodeGroup& best = cluster.groups[plan.best_alone];
    const double alone_stage = static_cast<double>(model.num_layers) / (best.gpus() * best.gpu.peak_flops(plan.compute_dtype));
    plan.pipeline_step_seconds = plan.alone[plan.best_alone]->step_seconds * split_stage_seconds(plan.pipeline) / alone_stage;
    std::string layers;
    for (const GroupShare& share : plan.pipeline) {
      layers += fmt::format("{}{} layers on {} x {} ({:.0f} {} TFLOP/s, memory for {})", layers.empty() ? "" : ", ",
                            share.layers, share.gpus, share.gpu, share.speed_flops / 1e12, dtype, share.max_layers);
    }
    plan.explanation.push_back(fmt::format("pipeline across groups: {}: {:.2f} s/step", layers, plan.pipeline_step_seconds));
  }
  if (workload.kind == WorkloadKind::rl) {
    for (std::size_t a = 0; a < plan.alone.size(); ++a) {
      for (std::size_t b = 0; b < plan.alone.size(); ++b) {
        if (a == b || !plan.alone[a] || !plan.alone[b]) continue;
        // verl runs the phases one after another, so with separate pools the step is the
        // rollout of pool a plus the log-prob and update phases of pool b.
        const double seconds = phase_seconds(*plan.alone[a], PlanPhase::rollout) +
                               phase_seconds(*plan.alone[b], PlanPhase::log_prob) +
                               phase_seconds(*plan.alone[b], PlanPhase::update);
        if (plan.rollout_group < 0 || seconds < plan.pool_split_step_seconds) {
          plan.rollout_group = static_cast<int>(a);
          plan.train_group = static_cast<int>(b);
          plan.pool_split_step_seconds = seconds;
        }
      }
    }
    if (plan.rollout_group >= 0) {
      plan.explanation.push_back(fmt::format("rollout on {} and training on {}: {:.2f} s/step",
                                             cluster.groups[plan.rollout_group].gpu.id,
                                             cluster.groups[plan.train_group].gpu.id, plan.pool_split_step_seconds));
    }
  }
  if (plan.best_alone < 0) {
    plan.choice = plan.pipeline.empty() ? "none" : "pipeline";
    return plan;
  }
  const double alone = plan.alone[plan.best_alone]->step_seconds;
  double chosen = alone;
  plan.choice = "alone";
  if (!plan.pipeline.empty() && plan.pipeline_step_seconds < chosen) {
    chosen = plan.pipeline_step_seconds;
    plan.choice = "pipeline";
  }
  if (plan.rollout_group >= 0 && plan.pool_split_step_seconds < chosen) {
    chosen = plan.pool_split_step_seconds;
    plan.choice = "pool_split";
  }
  plan.gain_over_alone = alone / chosen - 1;
  plan.explanation.push_back(
      plan.choice == "alone"
          ? fmt::format("best: {} alone, the other groups idle (splitting would not be faster)",
                        cluster.groups[plan.best_alone].gpu.id)
          : fmt::format("best: {}, {:+.0f}% throughput over {} alone", plan.choice, plan.gain_over_alone * 100,
                        cluster.groups[plan.best_alone].gpu.id));
  return plan;
}

std::optional<Strategy> cross_group_pipeline(const HeterogeneousPlan& plan, const Cluster& cluster,
                                             const ModelSpec& model) {
  constexpr std::size_t kMaxStagesWithOwnCounts = 3;  // first, one middle, last
  if (plan.choice != "pipeline" || plan.best_alone < 0 || !plan.alone[plan.best_alone]) return std::nullopt;
  const std::size_t groups = cluster.groups.size();
  if (groups < 2 || groups > kMaxStagesWithOwnCounts || plan.pipeline.size() != groups) return std::nullopt;
  const NodeGroup& front = cluster.groups.front();
  for (std::size_t i = 0; i < groups; ++i) {
    const NodeGroup& group = cluster.groups[i];
    if (group.gpus() != front.gpus() || group.gpus_per_node != front.gpus_per_node || plan.pipeline[i].layers < 1) {
      return std::nullopt;
    }
  }
  Strategy s = plan.alone[plan.best_alone]->strategy;
  const int stage_parallel = s.tp * s.cp;
  if (s.backend != Backend::megatron || s.pp != 1 || front.gpus() % stage_parallel != 0) return std::nullopt;
  s.pp = static_cast<int>(groups);
  s.vpp = 1;
  s.dp = front.gpus() / stage_parallel;
  s.first_stage_layers = static_cast<int>(plan.pipeline.front().layers);
  s.last_stage_layers = static_cast<int>(plan.pipeline.back().layers);
  s.compute_dtype = plan.compute_dtype;
  if (!stage_layer_counts(model.num_layers, s)) return std::nullopt;
  return s;
}

}  // namespace meshplan
