#include "verl/check.hpp"

#include "verl/config_loader.hpp"
#include "verl/megatron_arguments.hpp"
#include "verl/model_fit.hpp"
#include "verl/to_strategy.hpp"
#include "verl/passthrough_rules.hpp"
#include "verl/verl_rules.hpp"

namespace meshplan {
namespace {

// --cluster against trainer.*, then the memory fit when the GPU is known.
std::vector<Finding> memory_findings(const VerlLaunch& launch, const VerlJob& job, const ModelSpec& model,
                                     const CheckOptions& options) {
  std::vector<Finding> out;
  const int gpus = job.nnodes * job.gpus_per_node;
  if (options.cluster_gpus > 0 && options.cluster_gpus != gpus) {
    Finding mismatch;
    mismatch.severity = Severity::error;
    mismatch.rule = "memory.cluster-mismatch";
    mismatch.keys = {"trainer.nnodes", "trainer.n_gpus_per_node"};
    mismatch.value = std::to_string(gpus);
    mismatch.message = "--cluster has " + std::to_string(options.cluster_gpus) +
                       " GPUs but trainer.nnodes x trainer.n_gpus_per_node asks for " + std::to_string(gpus) +
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
  for (Finding& finding : check_memory_fit(launch, job, model, *options.gpu)) out.push_back(std::move(finding));
  return out;
}

}  // namespace

Result<CheckReport> check_launch(const std::vector<InputText>& inputs, const CheckOptions& options) {
  auto launch = read_verl_launch(inputs, options.read);
  if (!launch.ok()) return launch.error();
  CheckReport report;
  report.config_name = launch->config_name;
  report.verl_source = options.read.config_texts.empty() ? embedded_verl_source() : "--verl-config";
  report.findings = launch->findings;
  if (launch->has_verl_launch) {
    const VerlJob job = verl_to_strategy(launch->config);
    const std::optional<ModelSpec> model = options.model ? options.model : model_from_path(job.model_path);
    const ModelSpec* model_ptr = model ? &*model : nullptr;
    for (Finding& finding : check_verl_rules(launch.value(), model_ptr)) report.findings.push_back(std::move(finding));
    if (model) {
      for (Finding& finding : check_model_shape(launch.value(), job, *model)) report.findings.push_back(std::move(finding));
      for (Finding& finding : memory_findings(launch.value(), job, *model, options)) {
        report.findings.push_back(std::move(finding));
      }
    }
    for (Finding& finding : check_environment(launch->environment)) report.findings.push_back(std::move(finding));
  }
  for (const Launch& megatron : launch->megatron) {
    for (Finding& finding : check_megatron_arguments(megatron)) report.findings.push_back(std::move(finding));
    for (Finding& finding : check_environment(megatron.environment)) report.findings.push_back(std::move(finding));
  }
  for (const Finding& finding : report.findings) {
    if (finding.severity == Severity::error) ++report.errors;
    if (finding.severity == Severity::warning) ++report.warnings;
    if (finding.severity == Severity::info) ++report.infos;
  }
  return report;
}

}  // namespace meshplan
