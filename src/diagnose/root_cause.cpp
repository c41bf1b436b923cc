#include "diagnose/root_cause.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace meshplan {

namespace {

constexpr std::size_t kEvidencePerDiagnosis = 5;

struct Group {
  std::string category;
  std::vector<std::size_t> events;            ///< indices into scan.events, in time order
  std::optional<std::size_t> first_primary;   ///< index into scan.events: the earliest primary event
  std::optional<std::size_t> key;             ///< the primary event of the most specific signature
};

/// Event indices in time order: by stamp when every event has one (stamps of different files are
/// comparable), else by file order then line.
std::vector<std::size_t> time_order(const std::vector<LogEvent>& events) {
  std::vector<std::size_t> order(events.size());
  std::iota(order.begin(), order.end(), 0);
  const bool all_stamped =
      std::all_of(events.begin(), events.end(), [](const LogEvent& e) { return e.time_seconds.has_value(); });
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const LogEvent& x = events[a];
    const LogEvent& y = events[b];
    if (all_stamped && *x.time_seconds != *y.time_seconds) return *x.time_seconds < *y.time_seconds;
    if (x.file_index != y.file_index) return x.file_index < y.file_index;
    return x.line < y.line;
  });
  return order;
}

std::string join_ranks(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string text;
  for (const int rank : ranks) text += (text.empty() ? "" : ", ") + std::to_string(rank);
  return text;
}

void add_fixes(const std::vector<FixTemplate>& templates, const Numbers& numbers, std::string_view phase,
               const FixContext& context, std::vector<Fix>& fixes) {
  for (const FixTemplate& fix_template : templates) {
    auto fix = render_fix(fix_template, numbers, phase, context);
    if (!fix) continue;
    const bool duplicate = std::any_of(fixes.begin(), fixes.end(), [&](const Fix& f) { return f.text == fix->text; });
    if (!duplicate) fixes.push_back(std::move(*fix));
  }
}

Evidence evidence_of(const ScanOutput& scan, const LogEvent& event) {
  return Evidence{scan.files[event.file_index], event.line, event.text};
}

Diagnosis diagnose_group(const ScanOutput& scan, const Group& group, const FixContext& context) {
  const auto all = signatures();
  const LogEvent& key = scan.events[group.key.value_or(group.events.front())];
  const Signature& signature = all[key.signature];
  Diagnosis diagnosis;
  diagnosis.category = group.category;
  diagnosis.signature_id = std::string(signature.id);
  diagnosis.phase = key.phase;
  const Category* category = find_category(group.category);
  diagnosis.severity = category != nullptr ? category->severity : Severity::error;

  diagnosis.numbers = key.numbers;
  std::vector<int> ranks;
  for (const std::size_t index : group.events) {
    const LogEvent& event = scan.events[index];
    for (const auto& [name, value] : event.numbers) diagnosis.numbers.emplace(name, value);
    ranks.insert(ranks.end(), event.ranks.begin(), event.ranks.end());
    diagnosis.occurrences += event.occurrences;
  }
  if (!key.phase.empty()) diagnosis.numbers["phase"] = NumberValue{0, key.phase, true};
  if (key.rank >= 0) diagnosis.numbers["rank"] = NumberValue{static_cast<double>(key.rank), "", false};
  const std::string rank_list = join_ranks(ranks);
  if (rank_list.find(',') != std::string::npos) diagnosis.numbers["ranks"] = NumberValue{0, rank_list, true};

  diagnosis.evidence.push_back(evidence_of(scan, key));
  for (const std::size_t index : group.events) {
    if (diagnosis.evidence.size() >= kEvidencePerDiagnosis) break;
    if (&scan.events[index] != &key) diagnosis.evidence.push_back(evidence_of(scan, scan.events[index]));
  }

  const auto detail = signature.detail.empty()
                          ? std::nullopt
                          : fill_placeholders(signature.detail, key.numbers, key.phase, context);
  diagnosis.explanation = detail ? *detail : std::string(signature.summary);
  if (key.rank >= 0 && rank_list.find(',') == std::string::npos) {
    std::string& text = diagnosis.explanation;
    const bool period = !text.empty() && text.back() == '.';
    if (period) text.pop_back();
    text += fmt::format(" (rank {}){}", key.rank, period ? "." : "");
  } else if (!rank_list.empty() && rank_list.find(',') != std::string::npos) {
    diagnosis.explanation += fmt::format(" Seen on ranks {}.", rank_list);
  }
  add_fixes(signature.fixes, key.numbers, key.phase, context, diagnosis.fixes);
  if (category != nullptr) add_fixes(category->fixes, diagnosis.numbers, key.phase, context, diagnosis.fixes);
  return diagnosis;
}

std::string where(const Diagnosis& diagnosis) {
  const Evidence& first = diagnosis.evidence.front();
  return fmt::format("{}:{}", first.file, first.line);
}

std::optional<bool> config_flag(const FixContext& context, std::string_view key) {
  const auto it = context.config.find(key);
  if (it == context.config.end()) return std::nullopt;
  return it->second == "True" || it->second == "true";
}

/// What the run has, from its config (verl/trainer/ppo/ray_trainer.py: a critic only for GAE
/// advantages unless critic.enable; a reference policy for a KL loss or KL in the reward) and from
/// what its log shows.
void infer_run_roles(const RunFacts& facts, FixContext& context) {
  if (const auto it = context.config.find("algorithm.adv_estimator"); it != context.config.end()) {
    context.has_critic = it->second == "gae" || config_flag(context, "critic.enable").value_or(false);
  }
  if (facts.critic) context.has_critic = true;
  const auto kl_loss = config_flag(context, "actor_rollout_ref.actor.use_kl_loss");
  const auto kl_reward = config_flag(context, "algorithm.use_kl_in_reward");
  if (kl_loss && kl_reward) context.has_reference = *kl_loss || *kl_reward;
  // verl's rollout defaults to vLLM with free_cache_engine=True: both vLLM and SGLang then run
  // with sleep mode (verl/workers/rollout/vllm_rollout, sglang_rollout).
  const bool verl_run = facts.verl || context.config.count("actor_rollout_ref.rollout.name") > 0;
  const auto name = context.config.find("actor_rollout_ref.rollout.name");
  const bool sleeping_engine = name == context.config.end() || name->second == "vllm" || name->second == "sglang";
  const bool cache_freed = config_flag(context, "actor_rollout_ref.rollout.free_cache_engine").value_or(true);
  context.sleep_mode_engine = facts.sleep_mode || (verl_run && sleeping_engine && cache_freed);
}

/// "(run facts from the log: NCCL 2.21.5+cuda12.4 over NET/IB …; GPUs NVIDIA H100 80GB HBM3)".
std::optional<std::string> facts_note(const RunFacts& facts) {
  std::vector<std::string> parts;
  std::vector<std::string_view> frameworks;
  if (facts.verl) frameworks.push_back("verl");
  if (facts.vllm) frameworks.push_back("vLLM");
  if (facts.sglang) frameworks.push_back("SGLang");
  if (facts.sleep_mode) frameworks.push_back("sleep mode");
  if (!frameworks.empty()) parts.push_back(fmt::format("{}", fmt::join(frameworks, " + ")));
  if (!facts.nccl_version.empty()) parts.push_back(fmt::format("NCCL {}", facts.nccl_version));
  if (!facts.nccl_networks.empty()) parts.push_back(fmt::format("NCCL network: {}", fmt::join(facts.nccl_networks, "; ")));
  if (!facts.gpu_names.empty()) parts.push_back(fmt::format("GPUs: {}", fmt::join(facts.gpu_names, ", ")));
  if (!facts.driver_version.empty()) {
    parts.push_back(fmt::format("driver {} (CUDA {})", facts.driver_version, facts.cuda_version));
  }
  if (parts.size() <= (frameworks.empty() ? 0U : 1U)) return std::nullopt;  // frameworks alone say little
  return fmt::format("run facts from the log: {}", fmt::join(parts, "; "));
}

std::string summarize(const DiagnosisReport& report) {
  if (report.diagnoses.empty()) return "No failure signature found.";
  const Diagnosis& root = report.diagnoses.front();
  std::string text = fmt::format("{}: {} ({})", report.failure_found ? "Root cause" : "Slow run", root.category,
                                 where(root));
  std::vector<std::string> consequences;
  std::vector<std::string> others;
  for (std::size_t i = 1; i < report.diagnoses.size(); ++i) {
    (report.diagnoses[i].consequence ? consequences : others).push_back(report.diagnoses[i].category);
  }
  if (!consequences.empty()) text += fmt::format("; consequences: {}", fmt::join(consequences, ", "));
  if (!others.empty()) text += fmt::format("; also: {}", fmt::join(others, ", "));
  return text + ".";
}

}  // namespace

DiagnosisReport build_report(const ScanOutput& scan, FixContext context) {
  DiagnosisReport report;
  report.lines_read = scan.lines_read;
  const bool had_config = !context.config.empty();
  for (const auto& [key, value] : scan.overrides) context.config.emplace(key, value);
  for (const auto& [key, value] : scan.facts.resolved_config) context.config.emplace(key, value);
  infer_run_roles(scan.facts, context);
  if (auto note = facts_note(scan.facts)) report.notes.push_back(std::move(*note));
  if (!context.config_source.empty()) {
    report.notes.push_back(fmt::format("fixes computed for {}", context.config_source));
  } else if (!had_config && scan.facts.resolved_config_line) {
    report.notes.push_back(fmt::format("fixes computed for verl's printed config at {}:{}",
                                       scan.facts.resolved_config_line->file, scan.facts.resolved_config_line->line));
  } else if (!had_config && scan.overrides_line) {
    report.notes.push_back(fmt::format("fixes computed from the Hydra overrides at {}:{}",
                                       scan.overrides_line->file, scan.overrides_line->line));
  }

  const auto all = signatures();
  std::vector<Group> groups;
  for (const std::size_t index : time_order(scan.events)) {
    const LogEvent& event = scan.events[index];
    auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.category == event.category; });
    if (group == groups.end()) group = groups.insert(groups.end(), Group{event.category, {}, std::nullopt, std::nullopt});
    group->events.push_back(index);
    if (all[event.signature].role != EventRole::primary) continue;
    if (!group->first_primary) group->first_primary = index;
    // Table order is specificity order: "Killed process ... anon-rss" explains more than
    // "invoked oom-killer" printed a moment earlier.
    if (!group->key || event.signature < scan.events[*group->key].signature) group->key = index;
  }

  if (groups.empty()) {
    report.diagnoses = find_bottlenecks(scan.metrics);
    for (Diagnosis& diagnosis : report.diagnoses) {
      if (const Category* category = find_category(diagnosis.category)) {
        add_fixes(category->fixes, diagnosis.numbers, "", context, diagnosis.fixes);
      }
    }
    if (!report.diagnoses.empty()) report.diagnoses.front().root_cause = true;
    report.summary = summarize(report);
    return report;
  }

  // The root: the failure group whose first primary event is earliest; with no primary event at
  // all, the earliest group (a lone watchdog timeout is its own root cause).
  const std::vector<std::size_t> order = time_order(scan.events);
  const auto position = [&](std::size_t event_index) {
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), event_index) - order.begin());
  };
  // An error no signature explains is the root cause only when no known failure is found; known
  // failures are ranked among themselves by time.
  const auto unclassified = [&](std::size_t g) { return groups[g].category == "unclassified"; };
  std::size_t root = 0;
  bool root_is_primary = false;
  for (const bool known : {true, false}) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].first_primary || unclassified(g) == known) continue;
      if (!root_is_primary || position(*groups[g].first_primary) < position(*groups[root].first_primary)) root = g;
      root_is_primary = true;
    }
    if (root_is_primary) break;
  }
  if (!root_is_primary) {  // only echoes: the earliest one, a known failure's echo first
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (unclassified(root) && !unclassified(g)) root = g;
    }
    // A watchdog timeout takes its process down (ProcessGroupNCCL.cpp: "To avoid data
    // inconsistency, we are taking the entire process down"), which Ray and torchrun then report
    // as a dead worker: with no host-memory line (a primary event), the timeout is the root,
    // whichever of the interleaved lines came first.
    // A signal line (SIGABRT / SIGSEGV received) says how the worker died, where "actor died"
    // only says that it did: the OOM killer's SIGKILL prints none.
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[root].category == "host_oom" && groups[g].category == "native_crash") root = g;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const bool died = groups[root].category == "host_oom" || groups[root].category == "native_crash";
      if (died && groups[g].category == "nccl_timeout") root = g;
    }
  }

  Diagnosis root_diagnosis = diagnose_group(scan, groups[root], context);
  root_diagnosis.root_cause = true;
  std::vector<Diagnosis> independent;
  std::vector<Diagnosis> consequences;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g == root) continue;
    // Unexplained errors after a known root cause, and echoes, add nothing to it.
    if (unclassified(g) && (!groups[g].first_primary || !unclassified(root))) {
      const bool earlier = groups[g].first_primary && groups[root].first_primary &&
                           position(*groups[g].first_primary) < position(*groups[root].first_primary);
      if (!earlier) continue;
    }
    Diagnosis diagnosis = diagnose_group(scan, groups[g], context);
    if (root_is_primary && !groups[g].first_primary) {
      diagnosis.consequence = true;
      diagnosis.severity = Severity::warning;
      diagnosis.explanation += fmt::format(" This is a consequence of the {} at {}.", root_diagnosis.category,
                                           where(root_diagnosis));
      diagnosis.fixes = {Fix{FixKind::action, fmt::format("fix the root cause ({}) first; this follows from it",
                                                          root_diagnosis.category)}};
      consequences.push_back(std::move(diagnosis));
    } else {
      independent.push_back(std::move(diagnosis));
    }
  }
  report.diagnoses.push_back(std::move(root_diagnosis));
  for (auto* list : {&independent, &consequences}) {
    for (Diagnosis& diagnosis : *list) report.diagnoses.push_back(std::move(diagnosis));
  }
  report.failure_found = std::any_of(report.diagnoses.begin(), report.diagnoses.end(), [](const Diagnosis& d) {
    const Category* category = find_category(d.category);
    return category == nullptr || category->is_failure;
  });
  report.summary = summarize(report);
  return report;
}

}  // namespace meshplan
