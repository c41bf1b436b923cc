#include "diagnose/step_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "diagnose/fix_renderer.hpp"

namespace meshplan {

namespace {

bool kept_key(std::string_view key) {
  return key.starts_with("timing_s/") || key.starts_with("perf/") || key.starts_with("response_length/");
}

std::optional<double> parse_value(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// verl's timing keys (verl/trainer/ppo/ray_trainer.py, marked_timer names), grouped by which part
// of the system does the work.
constexpr std::array<std::string_view, 3> kGenerationKeys = {"timing_s/gen", "timing_s/update_weights",
                                                             "timing_s/sync_rollout_weights"};
constexpr std::array<std::string_view, 5> kTrainingKeys = {"timing_s/old_log_prob", "timing_s/ref",
                                                           "timing_s/values", "timing_s/update_critic",
                                                           "timing_s/update_actor"};
constexpr std::array<std::string_view, 2> kHostKeys = {"timing_s/reward", "timing_s/adv"};
// Periodic work that is not part of a training step's steady state.
constexpr std::array<std::string_view, 2> kPeriodicKeys = {"timing_s/testing", "timing_s/save_checkpoint"};

template <std::size_t N>
double sum_of(const StepMetrics& metrics, const std::array<std::string_view, N>& keys) {
  double total = 0;
  for (const std::string_view key : keys) total += metrics.mean(key).value_or(0.0);
  return total;
}

NumberValue value(double number) { return NumberValue{number, "", false}; }

}  // namespace

bool StepMetrics::add(std::string_view body, const Evidence& where) {
  if (!body.starts_with("step:")) return false;
  bool any = false;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find(" - ", pos);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view item = body.substr(pos, end - pos);
    pos = end + 3;
    const std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = item.substr(0, colon);
    const auto number = parse_value(item.substr(colon + 1));
    if (!number || !kept_key(key)) continue;
    any = true;
    auto it = sums_.find(key);
    if (it == sums_.end()) {
      if (sums_.size() >= kMaxKeys) continue;
      sums_.emplace(std::string(key), Sum{*number, 0, 0});
    } else {
      it->second.later += *number;
      ++it->second.later_count;
    }
  }
  if (!any) return false;
  ++steps_;
  last_line_ = where;
  return true;
}

std::optional<double> StepMetrics::mean(std::string_view key) const {
  const auto it = sums_.find(key);
  if (it == sums_.end()) return std::nullopt;
  if (it->second.later_count == 0) return it->second.first;
  return it->second.later / static_cast<double>(it->second.later_count);
}

std::vector<Diagnosis> find_bottlenecks(const StepMetrics& metrics) {
  const auto step = metrics.mean("timing_s/step");
  if (!step || !metrics.last_line()) return {};
  const double steady_step = *step - sum_of(metrics, kPeriodicKeys);
  if (steady_step <= 0) return {};
  const double generation = sum_of(metrics, kGenerationKeys);
  const double training = sum_of(metrics, kTrainingKeys);
  // Host-side work: the reward and advantage timers plus the part of the step no timer covers
  // (data loading, batching, balancing, metrics).
  const double untimed = std::max(0.0, steady_step - generation - training - sum_of(metrics, kHostKeys));
  const double host = sum_of(metrics, kHostKeys) + untimed;

  struct Part {
    std::string_view category;
    double seconds;
    double threshold;  ///< share of the step above which the part is reported
    std::string_view what;
  };
  // Generation and training normally share the step; host work should be small, so it is
  // reported from a quarter of the step.
  const std::array<Part, 3> parts = {{
      {"bottleneck_generation", generation, 0.5, "Generation (rollout and weight sync)"},
      {"bottleneck_training", training, 0.5, "Training passes (log-prob, ref, values, updates)"},
      {"bottleneck_data", host, 0.25, "Host-side steps (reward, advantages, data loading, untimed gaps)"},
  }};
  std::vector<Diagnosis> found;
  for (const Part& part : parts) {
    const double share = part.seconds / steady_step;
    if (share < part.threshold) continue;
    Diagnosis diagnosis;
    diagnosis.category = std::string(part.category);
    diagnosis.signature_id = "verl_step_metrics";
    diagnosis.severity = Severity::info;
    diagnosis.evidence.push_back(*metrics.last_line());
    diagnosis.occurrences = metrics.steps();
    diagnosis.numbers["steps"] = value(static_cast<double>(metrics.steps()));
    diagnosis.numbers["step_seconds"] = value(std::round(*step * 100) / 100);
    diagnosis.numbers["part_seconds"] = value(std::round(part.seconds * 100) / 100);
    diagnosis.numbers["share_of_step"] = value(std::round(share * 100) / 100);
    for (const std::string_view key : {"perf/mfu/actor", "perf/throughput", "response_length/mean",
                                       "response_length/clip_ratio"}) {
      if (const auto mean = metrics.mean(key)) diagnosis.numbers[std::string(key)] = value(*mean);
    }
    diagnosis.explanation = fmt::format("{} account for {}% of each step ({} s of {} s, mean over {} steps).", part.what,
                                        format_number(std::round(share * 100)), format_number(part.seconds),
                                        format_number(steady_step), metrics.steps());
    found.push_back(std::move(diagnosis));
  }
  std::sort(found.begin(), found.end(), [](const Diagnosis& a, const Diagnosis& b) {
    return a.numbers.at("share_of_step").value > b.numbers.at("share_of_step").value;
  });
  return found;
}

}  // namespace meshplan
