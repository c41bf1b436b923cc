#include "verl/check.hpp"

#include <algorithm>

#include "cost/memory/memory_tiers.hpp"
#include "model/model_presets.hpp"
#include "verl/rules/megatron_arguments.hpp"
#include "verl/fit/eager_rollout.hpp"
#include "verl/fit/model_fit.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/rules/passthrough_rules.hpp"
#include "verl/rules/verl_rules.hpp"

namespace meshplan {
namespace {

// --cluster against trainer.*, then the memory fit when the GPU is known.
std::vector<Finding> memory_findings(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                     const CheckOptions& options) {
  std::vector<Finding> out;
  const int gpus = job.nnodes * job.gpus_per_node;
  const int rollout_pool = job.workload.rl.rollout_gpus;  // the engines' own pool (one-step-off, async)
  if (options.cluster_gpus > 0 && options.cluster_gpus != gpus + rollout_pool) {
    Finding mismatch;
    mismatch.severity = Severity::error;
    mismatch.rule = "memory.cluster-mismatch";
    mismatch.keys = {"trainer.nnodes", "trainer.n_gpus_per_node"};
    mismatch.value = std::to_string(gpus + rollout_pool);
    mismatch.message = "--cluster has " + std::to_string(options.cluster_gpus) +
                       " GPUs but trainer.nnodes x trainer.n_gpus_per_node asks for " + std::to_string(gpus) +
                       (rollout_pool > 0 ? " and the rollout pool (its nnodes x n_gpus_per_node) for " +
                                               std::to_string(rollout_pool) + " more"
                                         : "") +
                       ": Ray would wait for the missing GPUs or leave some idle";
    mismatch.location = launch.location;
    out.push_back(std::move(mismatch));
  }
  if (gpus <= 0) return out;  // nothing placed on GPUs (trainer.nnodes or n_gpus_per_node is 0)
  if (!options.gpu) {
    Finding note;
    note.severity = Severity::info;
    note.rule = "memory.skipped";
    note.message = "memory fit skipped: give --gpu TYPE or --cluster to check every RL phase against GPU memory";
    out.push_back(std::move(note));
    return out;
  }
  for (Finding& finding : check_gpu_support(launch, job, model, *options.gpu)) out.push_back(std::move(finding));
  VerlJob at_lengths = job;
  at_lengths.workload.rl = with_given_lengths(job.workload.rl, options.mean_prompt_len, options.mean_response_len);
  bool fits = true;
  for (Finding& finding : check_memory_fit(launch, at_lengths, model, *options.gpu)) {
    fits = fits && finding.severity != Severity::error && finding.rule != "memory.not-evaluated";
    out.push_back(std::move(finding));
  }
  // What graphs would save is said only of a launch whose memory was fit and fits.
  if (fits) {
    if (auto eager = eager_rollout_finding(launch, at_lengths, model, *options.gpu)) out.push_back(std::move(*eager));
  }
  return out;
}

// A verl older than every embedded version: bash and its own config tree (Hydra's parser and
// struct mode, OmegaConf interpolation, which its main_ppo resolves) decide for certain; a rule of
// the oldest embedded verl may not exist in it, so what that rule finds is a warning.
void soften_for_older_verl(std::vector<Finding>& findings, const VerlLaunch& launch) {
  if (launch.older_verl.empty()) return;
  for (Finding& finding : findings) {
    const bool certain = finding.rule.starts_with("shell.") || finding.rule.starts_with("hydra.") ||
                         finding.rule == "config.interpolation";
    if (finding.severity != Severity::error || certain) continue;
    finding.severity = Severity::warning;
    finding.message += " (a rule of verl " + launch.verl_version.id + "; verl " + launch.older_verl +
                       " may not have it)";
  }
}

// trainer.device as the launch sets it; empty when it leaves it to verl's default ("cuda", while
// verl/utils/device.py detects the platform the workers run on) or its value is not known.
std::string launch_device(const VerlLaunch& launch) {
  if (launch.set_at.count("trainer.device") == 0) return "";
  const ConfigNode* device = find_path(launch.config, "trainer.device");
  return device != nullptr && device->kind == NodeKind::string ? device->text : "";
}

// Every finding about one composed verl launch.
std::vector<Finding> verl_findings(const VerlLaunch& launch, const CheckOptions& options) {
  std::vector<Finding> out = launch.findings;
  if (!launch.has_verl_launch) return out;
  const VerlJob job = verl_to_strategy(launch);
  const std::optional<ModelSpec> model = options.model ? options.model : model_from_path(job.model_path);
  const ModelSpec* model_ptr = model ? &*model : nullptr;
  if (!options.model && model) {
    if (const auto preset = model_preset_for_path(job.model_path); preset && preset->variant) {
      Finding info;
      info.severity = Severity::info;
      info.rule = "model.preset";
      info.keys = {"actor_rollout_ref.model.path"};
      info.message = "the model path " + job.model_path + " is read as the preset " + preset->preset +
                     " (a checkpoint of the same architecture and dtype" +
                     (preset->dated ? "; a dated re-release, whose context length is not taken from the preset" : "") +
                     "); give --model for another";
      info.location = where_set(launch, "actor_rollout_ref.model.path");
      out.push_back(std::move(info));
    }
  }
  for (Finding& finding : check_verl_rules(launch, model_ptr)) out.push_back(std::move(finding));
  if (model) {
    for (Finding& finding : check_model_shape(launch, job, *model)) out.push_back(std::move(finding));
    for (Finding& finding : memory_findings(launch, job, *model, options)) out.push_back(std::move(finding));
  }
  EnvironmentContext environment{launch_device(launch), launch.verl_version.id, launch.verl_version.engines,
                                 launch.verl_version_assumed};
  if (const auto read = launch.registry_names.find("env_read"); read != launch.registry_names.end()) {
    environment.read_by_checkout = read->second;
  }
  for (Finding& finding : check_environment(launch.environment, environment)) out.push_back(std::move(finding));
  for (Finding& finding : check_sleep_mode_allocator(launch)) out.push_back(std::move(finding));
  soften_for_older_verl(out, launch);
  return out;
}

bool same_finding(const Finding& a, const Finding& b) {
  return a.rule == b.rule && a.message == b.message && a.location.file == b.location.file &&
         a.location.line == b.location.line;
}

}  // namespace

Result<CheckReport> check_launch(const std::vector<InputText>& inputs, const CheckOptions& options) {
  auto launch = read_verl_launch(inputs, options.read);
  if (!launch.ok()) return launch.error();
  CheckReport report;
  report.config_name = launch->config_name;
  const VerlVersion& version = launch->verl_version;
  const VerlReadOptions& given = options.read;
  const std::string tree = given.config_texts.empty()      ? ""
                           : !given.verl_found_at.empty()  ? "; config tree of the verl in " + given.verl_found_at
                           : given.config_texts_from_verl ? "; config tree from --verl-path"
                                                          : "; config tree from --verl-config";
  // Megatron-LM launches alone consult no verl: no schema is named.
  if (launch->has_verl_launch) {
    report.verl_source = (launch->older_verl.empty() ? "" : "verl " + launch->older_verl + ", rules of ") +
                         "verl " + version.id + " (verl-project/verl@" + version.commit + ", " + version.date + ")" +
                         tree;
  }
  report.findings = verl_findings(launch.value(), options);
  // Scripts with a launch in each branch of an if: every launch is composed and checked; what
  // the launches share (the script's shell findings, the same rule at the same line) is said once.
  for (int index = 1; index < launch->verl_launch_count; ++index) {
    VerlReadOptions read = options.read;
    read.launch_index = index;
    auto other = read_verl_launch(inputs, read);
    if (!other.ok()) return other.error();
    for (Finding& finding : verl_findings(other.value(), options)) {
      const bool seen = std::any_of(report.findings.begin(), report.findings.end(),
                                    [&](const Finding& f) { return same_finding(f, finding); });
      if (!seen) report.findings.push_back(std::move(finding));
    }
  }
  for (const Launch& megatron : launch->megatron) {
    for (Finding& finding : check_megatron_arguments(megatron)) report.findings.push_back(std::move(finding));
    // A Megatron-LM launch names no device (MindSpeed runs the same arguments on Ascend).
    for (Finding& finding : check_environment(megatron.environment, EnvironmentContext{})) report.findings.push_back(std::move(finding));
  }
  for (const Finding& finding : report.findings) {
    if (finding.severity == Severity::error) ++report.errors;
    if (finding.severity == Severity::warning) ++report.warnings;
    if (finding.severity == Severity::info) ++report.infos;
  }
  return report;
}

}  // namespace meshplan
