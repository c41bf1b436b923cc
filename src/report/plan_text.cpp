#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "report/plan_report.hpp"
#include "report/table.hpp"
#include "report/time_report.hpp"
#include "search/dimension.hpp"
#include "search/search_space.hpp"

namespace meshplan {
namespace {

constexpr int kBarWidth = 40;
constexpr const char* kReset = "\033[0m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kRed = "\033[31m";
constexpr const char* kBold = "\033[1m";

std::string paint(const std::string& text, const char* code, bool colour) {
  return colour ? std::string(code) + text + kReset : text;
}

std::string bar(double bytes, double scale_bytes) {
  const int cells = scale_bytes > 0 ? static_cast<int>(std::lround(kBarWidth * bytes / scale_bytes)) : 0;
  std::string text;
  for (int i = 0; i < std::clamp(cells, 0, kBarWidth); ++i) text += "█";
  return text;
}

std::string thousands(double value) {
  std::string digits = fmt::format("{:.0f}", value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0 && digits[i - 1] != '-'; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string gib(double bytes) { return fmt::format("{:.1f}", bytes_to_gib(bytes)); }

std::string summary(const PlanView& view) {
  const SearchResult& r = *view.result;
  std::string text = fmt::format("meshplan plan: {} on {}, workload {}, objective {}, headroom {:.0f}%\n",
                                 view.model_name, view.cluster_text, view.workload_name, view.objective_name,
                                 view.headroom * 100);
  for (const std::string& note : view.cluster_notes) text += "cluster: " + note + "\n";
  std::vector<std::pair<std::string, std::int64_t>> rejected(r.rejected.begin(), r.rejected.end());
  std::sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string reasons;
  for (const auto& [rule, count] : rejected) reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", rule, thousands(count));
  text += fmt::format("searched {} candidates in {:.0f} ms: {} fit{}\n", thousands(r.searched), view.elapsed_ms,
                      thousands(r.feasible), reasons.empty() ? "" : "; rejected: " + reasons);
  return text;
}

std::string top_table(const PlanView& view) {
  const bool rl = view.workload_name == "rl";
  std::vector<TableColumn> columns = {{"#", Align::right}, {"backend"}, {"TP", Align::right}, {"PP", Align::right},
                                      {"VPP", Align::right}, {"CP", Align::right}, {"EP", Align::right},
                                      {"DP", Align::right}, {"mb", Align::right}, {"recompute"}, {"offload"}};
  // EP all-to-all overlap (Megatron overlap_moe_expert_parallel_comm), where a plan has EP.
  const std::vector<PlanCandidate>& top = view.result->top;
  const bool expert_parallel = std::any_of(top.begin(), top.end(), [](const PlanCandidate& c) { return c.strategy.ep > 1; });
  if (expert_parallel) columns.push_back({"a2a overlap"});
  if (rl) {
    for (const char* name : {"rollout TPxDP", "gmu", "lp mb"}) columns.push_back({name, Align::right});
  }
  // RL plans show the actor update's MFU (verl perf/mfu/actor), not the whole step's.
  for (const char* name : {"peak GiB", "in phase", "step s", "tokens/s", "tok/s/GPU", rl ? "update MFU" : "MFU", "comm"}) {
    columns.push_back({name, std::string(name) == "in phase" ? Align::left : Align::right});
  }
  if (view.baseline) columns.push_back({"vs yours", Align::right});
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < view.result->top.size(); ++i) {
    const PlanCandidate& c = view.result->top[i];
    const Strategy& s = c.strategy;
    const DimensionValues values = dimension_values(c);
    std::vector<std::string> row = {
        std::to_string(i + 1),
        s.backend == Backend::fsdp                     ? fmt::format("fsdp sp={}", s.ulysses_sp)
        : values[static_cast<std::size_t>(Dimension::megatron_fsdp)] ? std::string("megatron-fsdp")
                                                       : std::string("megatron"),
        std::to_string(s.tp), std::to_string(s.pp), std::to_string(s.vpp), std::to_string(s.cp), std::to_string(s.ep),
        std::to_string(s.dp), std::to_string(s.micro_batch),
        std::string(recompute_choice_name(static_cast<RecomputeChoice>(values[static_cast<std::size_t>(Dimension::recompute)]))),
        offload_choice_name(static_cast<OffloadChoice>(values[static_cast<std::size_t>(Dimension::offload)]))};
    if (expert_parallel) row.push_back(s.ep == 1 ? "-" : s.moe_a2a_overlap ? "yes" : "no");
    if (rl) {
      const RlSettings& rollout = c.workload.rl;
      row.push_back(rollout.rollout_dp > 1 ? fmt::format("{}x{}", rollout.rollout_tp, rollout.rollout_dp)
                                           : std::to_string(rollout.rollout_tp));
      row.push_back(fmt::format("{:.2f}", c.workload.rl.gpu_memory_utilization));
      row.push_back(std::to_string(c.workload.rl.log_prob_micro_batch_per_gpu));
    }
    row.push_back(gib(c.peak_bytes));
    row.push_back(std::string(plan_phase_name(c.peak_phase)));
    row.push_back(fmt::format("{:.2f}", c.step_seconds));
    row.push_back(thousands(c.tokens_per_second));
    row.push_back(thousands(c.tokens_per_second / std::max(1, c.gpus)));
    row.push_back(c.time.update_mfu > 0 ? fmt::format("{:.0f}%", c.time.update_mfu * 100) : "-");
    row.push_back(fmt::format("{:.0f}%", comm_fraction(c) * 100));
    if (view.baseline) row.push_back(speedup_text(*view.baseline, c));
    rows.push_back(std::move(row));
  }
  return render_table(columns, rows);
}

std::string memory_bars(const PlanView& view, bool colour) {
  if (view.top_memory.empty() || view.top_memory.front().empty()) return "";
  const double usable = view.result->usable_bytes;
  std::string text = fmt::format("\nwinner's memory per GPU by phase (capacity {} GiB, usable {} GiB):\n",
                                 gib(view.capacity_bytes), gib(usable));
  for (const PhaseBreakdown& phase : view.top_memory.front()) {
    const double share = usable > 0 ? phase.peak_bytes / usable : 0;
    const char* code = share > 1 ? kRed : share > 0.9 ? kYellow : kGreen;
    text += fmt::format("  {:<22} {:>7} GiB  {}\n", phase.name, gib(phase.peak_bytes),
                        paint(bar(phase.peak_bytes, view.capacity_bytes), code, colour));
    for (const auto& [name, bytes] : phase.components) {
      if (bytes < 0.05 * kGiB) continue;
      text += fmt::format("    {:<20} {:>7} GiB  {}\n", name, gib(bytes), bar(bytes, view.capacity_bytes));
    }
  }
  return text;
}

std::string pareto_section(const PlanView& view) {
  std::string text = fmt::format("\nPareto frontier, memory vs throughput ({} plans):\n", view.result->pareto.size());
  std::vector<std::vector<std::string>> rows;
  for (const PlanCandidate& c : view.result->pareto) {
    rows.push_back({gib(c.peak_bytes), thousands(c.tokens_per_second), describe_strategy(c)});
  }
  return text + render_table({{"peak GiB", Align::right}, {"tokens/s", Align::right}, {"plan"}}, rows);
}

// "your launch (run.sh): megatron TP=1 PP=16 ...: 312.4 s/step, 40,110 tokens/s, peak 70.2 GiB in
// rollout: fits", then what the search cannot express of it.
std::string baseline_section(const PlanView& view, bool colour) {
  const LaunchBaseline& launch = *view.baseline;
  const PlanCandidate& c = launch.baseline.candidate;
  std::string text = fmt::format("\nyour launch ({}): {}\n", launch.source, describe_strategy(c));
  if (!launch.baseline.broken_rule.empty()) {
    // It cannot start as written: no time or memory is estimated for it.
    const std::string why = launch.broken_message.empty() ? "" : " (" + launch.broken_message + ")";
    text += paint(fmt::format("  breaks {}{}: it cannot run as written, so it is not estimated\n",
                              launch.baseline.broken_rule, why),
                  kRed, colour);
  } else {
    const std::string verdict =
        launch.baseline.fits
            ? paint("fits", kGreen, colour)
            : paint(fmt::format("does not fit ({} GiB usable)", gib(view.result->usable_bytes)), kRed, colour);
    text += fmt::format("  {:.2f} s/step, {} tokens/s, peak {} GiB in {}: {}\n", c.step_seconds,
                        thousands(c.tokens_per_second), gib(c.peak_bytes), plan_phase_name(c.peak_phase), verdict);
  }
  if (!launch.outside_space.empty()) {
    std::string settings;
    for (const std::string& s : launch.outside_space) settings += (settings.empty() ? "" : ", ") + s;
    text += "  the search cannot express (compared only as the baseline): " + settings + "\n";
  }
  return text;
}

std::string no_fit_section(const PlanView& view, bool colour) {
  const SearchResult& r = *view.result;
  std::string text = paint("\nnothing fits", kRed, colour);
  if (!r.closest_miss) return text + ": no candidate passed the rules (see the rejections above)\n";
  const PlanCandidate& miss = *r.closest_miss;
  text += fmt::format(". Closest miss: {}\n  peak {} GiB in phase {}, usable {} GiB: over by {} GiB\n",
                      describe_strategy(miss), gib(miss.peak_bytes), plan_phase_name(miss.peak_phase), gib(r.usable_bytes),
                      gib(miss.peak_bytes - r.usable_bytes));
  text += "what would make it fit (each change alone, re-estimated; only those that lower the peak):\n";
  if (view.remedies.empty()) {
    text += "  nothing tried lowers the peak (more GPUs, offload, full recompute, micro-batch 1, rollout TP, gmu): "
            "a smaller model or larger GPUs\n";
  }
  for (const Remedy& remedy : view.remedies) {
    text += fmt::format("  {} {:<70} peak {} GiB\n", remedy.fits ? paint("fits", kGreen, colour) : "  no",
                        remedy.change, gib(remedy.peak_bytes));
  }
  return text;
}

}  // namespace

std::string describe_strategy(const PlanCandidate& c) {
  const DimensionValues values = dimension_values(c);
  const Strategy& s = c.strategy;
  std::string text;
  for (std::size_t d = 0; d < kDimensionCount; ++d) {
    const auto dimension = static_cast<Dimension>(d);
    const bool rl_dimension = is_rl_dimension(dimension);
    // Leave out what does not apply or is at its neutral value.
    if (rl_dimension && c.workload.kind != WorkloadKind::rl) continue;
    if (dimension == Dimension::ulysses && s.backend != Backend::fsdp) continue;
    if ((dimension == Dimension::vpp || dimension == Dimension::cp || dimension == Dimension::ep ||
         dimension == Dimension::rollout_dp) &&
        values[d] == 1) {
      continue;
    }
    if (dimension == Dimension::etp && s.ep == 1) continue;
    if ((dimension == Dimension::a2a_overlap || dimension == Dimension::megatron_fsdp) && values[d] == 0) continue;
    if (s.backend == Backend::fsdp && (dimension == Dimension::tp || dimension == Dimension::pp)) continue;
    text += (text.empty() ? "" : " ") + format_dimension(dimension, values[d]);
    if (dimension == Dimension::pp && (s.first_stage_layers > 0 || s.last_stage_layers > 0)) {
      text += fmt::format(" (first/last stage {}/{} layers)", s.first_stage_layers, s.last_stage_layers);
    }
    if (dimension == Dimension::pp && s.pipeline_counts_embedding && s.pipeline_counts_loss) {
      text += " (embedding and loss counted as layers)";
    }
    if (dimension == Dimension::offload && s.offload.optimizer_on_cpu) {
      text += fmt::format(" cpu_optimizer={:g}", s.offload.optimizer_fraction);
    }
  }
  return text + fmt::format(" DP={}", s.dp);
}

double comm_fraction(const PlanCandidate& c) {
  double comm = 0;
  for (TimeComponent t : {TimeComponent::tp_comm, TimeComponent::pp_comm, TimeComponent::dp_comm_exposed,
                          TimeComponent::cp_comm, TimeComponent::ep_comm, TimeComponent::weight_sync}) {
    comm += c.time.of(t);
  }
  return c.step_seconds > 0 ? comm / c.step_seconds : 0;
}

double speedup_over_baseline(const LaunchBaseline& baseline, const PlanCandidate& candidate) {
  const double base = baseline.baseline.candidate.step_seconds;
  if (!baseline.baseline.broken_rule.empty() || base <= 0 || candidate.step_seconds <= 0) return 0;
  return base / candidate.step_seconds;
}

std::string speedup_text(const LaunchBaseline& baseline, const PlanCandidate& candidate) {
  const double speedup = speedup_over_baseline(baseline, candidate);
  return speedup > 0 ? fmt::format("{:.2f}x", speedup) : "-";
}

// plan --rollout-split: each placement's best, colocated first.
std::string placement_section(const PlanView& view) {
  if (view.placements.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const PlanView::Placement& p : view.placements) {
    const std::string where = p.engine_gpus == 0 ? "colocated" : fmt::format("{} engine GPUs, one step off", p.engine_gpus);
    if (!p.best) {
      rows.push_back({where, std::to_string(p.trainer_gpus), "-", "-", "nothing fits"});
      continue;
    }
    const int gpus = p.trainer_gpus + p.engine_gpus;
    rows.push_back({where, std::to_string(p.trainer_gpus), fmt::format("{:.2f}", p.best->step_seconds),
                    fmt::format("{:.0f}", p.best->tokens_per_second / std::max(gpus, 1)), describe_strategy(*p.best)});
  }
  return "\nplacements (--rollout-split; the shortest step is planned below):\n" +
         render_table({{"placement"}, {"trainer GPUs", Align::right}, {"step s", Align::right},
                       {"tok/s/GPU", Align::right}, {"best layout"}},
                      rows);
}

std::string render_plan_text(const PlanView& view, bool colour) {
  std::string text = summary(view);
  if (view.baseline) text += baseline_section(view, colour);
  text += placement_section(view);
  if (view.min_gpus) text += fmt::format("smallest GPU count that fits: {}\n", *view.min_gpus);
  if (view.result->top.empty()) return text + no_fit_section(view, colour);
  text += "\n" + top_table(view);
  text += view.moe_routing;
  if (!view.attention_caveat.empty()) text += view.attention_caveat + "\n";
  if (!view.host_cpu.empty()) text += view.host_cpu + "\n";
  if (view.accuracy) text += render_time_accuracy(*view.accuracy);
  text += memory_bars(view, colour);
  text += pareto_section(view);
  if (view.explanation) {
    text += paint("\nwhy the winner:", kBold, colour) + "\n";
    for (const Comparison& comparison : view.explanation->comparisons) text += "  - " + comparison.sentence + "\n";
    if (!view.explanation->indifferent.empty()) {
      std::string settings;
      for (const std::string& s : view.explanation->indifferent) settings += (settings.empty() ? "" : ", ") + s;
      text += "  - within 0.5% of the winner (no measurable difference): " + settings + "\n";
    }
    text += "  - " + view.explanation->rule_of_thumb + "\n";
  }
  if (view.data_loader.workers > 0) {
    text += fmt::format("\ndata loader: {} images per step x {:.0f} ms of CPU each = {:.1f} CPU-s per {:.1f} s step: "
                        "data.dataloader_num_workers >= {}\n",
                        view.data_loader.images_per_step,
                        1000 * view.data_loader.cpu_seconds_per_step / static_cast<double>(view.data_loader.images_per_step),
                        view.data_loader.cpu_seconds_per_step, view.result->top.front().step_seconds,
                        view.data_loader.workers);
  }
  if (view.heterogeneous) {
    text += "\nheterogeneous cluster:\n";
    for (const std::string& line : view.heterogeneous->explanation) text += "  " + line + "\n";
  }
  return text;
}

}  // namespace meshplan
