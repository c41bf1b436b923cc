#include "verl/fit/eager_rollout.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "verl/fit/memory_fixes.hpp"
#include "verl/fit/model_fit.hpp"
#include "verl/rules/eager_assertion.hpp"
#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

// Smaller gains are within the model's noise and not worth a line.
constexpr double kLeastStepGain = 0.01;

std::string config_text(const VerlLaunch& launch, const std::string& key, const std::string& fallback) {
  const ConfigNode* node = find_path(launch.config, key);
  return node != nullptr && node->kind == NodeKind::string ? node->text : fallback;
}

}  // namespace

std::optional<Finding> eager_rollout_finding(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                             const GpuSpec& gpu) {
  const RlSettings& rl = job.workload.rl;
  const std::string key = R("enforce_eager");
  const bool engine_with_graphs = rl.engine == RolloutEngine::vllm || rl.engine == RolloutEngine::sglang;
  if (!rl.enforce_eager || !engine_with_graphs || launch.set_at.count(key) != 0 || launch.opaque_argument) {
    return std::nullopt;
  }
  VerlJob graphed = job;
  graphed.workload.rl.enforce_eager = false;
  std::vector<std::string> lines = {key + "=False"};
  const std::string name = config_text(launch, R("name"), "vllm");
  const std::string mode = config_text(launch, R("mode"), "sync");
  const bool keep_cache = rl.free_cache_engine && asserts_eager_with_free_cache(launch.verl_version, name, mode);
  if (keep_cache) {
    graphed.workload.rl.free_cache_engine = false;
    lines.push_back(R("free_cache_engine") + "=False");
  }
  const Cluster cluster = job_cluster(job, gpu);
  const double capacity = double(gpu.memory_bytes);
  // A launch that does not fit as it is gets the memory findings' fixes first.
  if (!evaluate_fix({}, job, model, cluster, capacity).fits) return std::nullopt;
  const MemoryFix fix = evaluate_fix(lines, graphed, model, cluster, capacity);
  const TimeEstimate eager = job_time(job, model, cluster);
  const TimeEstimate graphs = job_time(graphed, model, cluster);
  if (fix.step_seconds > (1.0 - kLeastStepGain) * eager.step_seconds) return std::nullopt;

  const std::string verl = launch.older_verl.empty() ? launch.verl_version.id : launch.older_verl;
  Finding finding;
  finding.severity = Severity::info;
  finding.rule = "rollout.eager-by-default";
  finding.keys = {key};
  finding.value = "True";
  finding.location = where_set(launch, R("name"));
  finding.message = fmt::format(
      "the rollout decodes without CUDA graphs: {} is True by verl {}'s default (False from verl 0.6.0, PR #2956) "
      "and the launch does not set it, so each decode step waits for the host to launch every kernel; "
      "re-estimated with graphs{} at the expected lengths: generation {:.1f} s -> {:.1f} s, step {:.1f} s -> "
      "{:.1f} s ({:+.0f}%), peak {:.1f} GiB in {} ",
      key, verl,
      keep_cache ? fmt::format(" and the cache kept between steps (verl {} asserts eager while free_cache_engine; "
                               "rule rollout.cuda-graphs-free-cache)",
                               verl)
                 : "",
      eager.breakdown.rollout, graphs.breakdown.rollout, eager.step_seconds, fix.step_seconds,
      100.0 * (fix.step_seconds / eager.step_seconds - 1.0), bytes_to_gib(fix.peak_bytes),
      memory_phase_name(fix.peak_phase));
  const double headroom = 1.0 - fix.peak_bytes / capacity;
  if (fix.fits && headroom >= kLowHeadroomShare) {
    finding.message += fmt::format("of {}'s {:.1f} GiB (fits)", gpu.id, bytes_to_gib(capacity));
    finding.fix = lines;
  } else if (fix.fits) {
    finding.message += fmt::format("of {}'s {:.1f} GiB: {:.1f}% headroom, under check's {:.0f}% "
                                   "(memory.low-headroom), so not offered",
                                   gpu.id, bytes_to_gib(capacity), 100.0 * headroom, 100.0 * kLowHeadroomShare);
  } else {
    finding.message += fmt::format("over {}'s {:.1f} GiB: graphs do not fit this launch", gpu.id,
                                   bytes_to_gib(capacity));
  }
  return finding;
}

}  // namespace meshplan
