#pragma once
// What `meshplan plan` reports, assembled by the CLI from the search and the cost models, and
// its terminal and HTML renderings (pure: they return strings).
#include <optional>
#include <string>
#include <vector>

#include "cost/calibration/time_accuracy.hpp"
#include "search/advice.hpp"
#include "search/baseline.hpp"
#include "search/data_loader.hpp"
#include "search/explain.hpp"
#include "search/heterogeneous.hpp"
#include "search/search.hpp"

namespace meshplan {

/// `plan --from SCRIPT`: the script's own layout, estimated.
struct LaunchBaseline {
  std::string source;                      ///< the script as given
  Baseline baseline;
  std::vector<std::string> outside_space;  ///< its settings the search cannot express (empty: none)
  std::string broken_message;              ///< what breaks baseline.broken_rule, with the numbers ("" when none)
};

struct PlanView {
  std::string model_name;
  std::string cluster_text;   ///< as given, e.g. "4x8xA100-40GB"
  std::vector<std::string> cluster_notes;  ///< how the cluster was read (cluster_topology_notes)
  std::string workload_name;  ///< pretrain | sft | rl
  std::string objective_name;
  double headroom = 0.1;
  double capacity_bytes = 0;
  double elapsed_ms = 0;
  const SearchResult* result = nullptr;
  std::vector<std::vector<PhaseBreakdown>> top_memory;  ///< per result->top entry (may be empty)
  std::optional<Explanation> explanation;                ///< with --explain
  std::vector<Remedy> remedies;                          ///< when nothing fits
  DataLoaderNeed data_loader;
  std::optional<HeterogeneousPlan> heterogeneous;
  std::optional<int> min_gpus;
  std::optional<LaunchBaseline> baseline;  ///< with --from
  /// plan --rollout-split: the best candidate of each placement tried (0 engine GPUs: colocated).
  struct Placement {
    int engine_gpus = 0;
    int trainer_gpus = 0;
    std::optional<PlanCandidate> best;  ///< none fits
  };
  std::vector<Placement> placements;
  /// How far step times of the winner's kind were from held-out measured runs (or why unchecked).
  std::optional<TimeAccuracyMatch> accuracy;
  /// The MoE routing the winner's time assumes (time_report.hpp render_moe_routing); empty for a
  /// dense model or EP 1.
  std::string moe_routing;
  /// What the winner's attention time assumes where the installed software decides it
  /// (time_report.hpp attention_caveat); empty for a model without attention sinks.
  std::string attention_caveat;
  /// The winner's step at its host CPU's measured per-op time (time_report.hpp
  /// render_host_cpu_sensitivity); empty where the part or the launch has none.
  std::string host_cpu;
};

/// "1.23x": the baseline's step time over the candidate's (how much faster the candidate is).
std::string speedup_text(const LaunchBaseline& baseline, const PlanCandidate& candidate);
/// The launch's step time over `candidate`'s (> 1: the candidate is faster); 0 when the launch
/// breaks a rule (it cannot run, so it has no step time) or either time is unknown.
double speedup_over_baseline(const LaunchBaseline& baseline, const PlanCandidate& candidate);

/// One-line strategy description: "megatron TP=2 PP=1 ... mb=2 recompute=selective ...".
std::string describe_strategy(const PlanCandidate& candidate);

/// Sum of the communication components over the step time.
double comm_fraction(const PlanCandidate& candidate);

/// The terminal report: summary, top-K table, the winner's memory bars per phase and
/// component, Pareto frontier, explanation, data loader, heterogeneous split, or the closest
/// miss and its remedies. ANSI colour only when `colour`.
std::string render_plan_text(const PlanView& view, bool colour);

/// One self-contained HTML page (no scripts or network) with inline SVG charts.
std::string render_plan_html(const PlanView& view);

}  // namespace meshplan
