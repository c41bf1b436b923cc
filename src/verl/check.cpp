#include "verl/check.hpp"

#include "verl/config_loader.hpp"
#include "verl/megatron_arguments.hpp"
#include "verl/passthrough_rules.hpp"
#include "verl/verl_rules.hpp"

namespace meshplan {

Result<CheckReport> check_launch(const std::vector<InputText>& inputs, const CheckOptions& options) {
  auto launch = read_verl_launch(inputs, options.read);
  if (!launch.ok()) return launch.error();
  CheckReport report;
  report.config_name = launch->config_name;
  report.verl_source = options.read.config_texts.empty() ? embedded_verl_source() : "--verl-config";
  report.findings = launch->findings;
  if (!options.model.empty()) {
    Finding note;
    note.severity = Severity::info;
    note.rule = "model.unknown";
    note.keys = {"--model"};
    note.message = "--model " + options.model + ": model presets are not available to check in this build; "
                   "model-shape rules are skipped";
    report.findings.push_back(std::move(note));
  }
  if (launch->has_verl_launch) {
    // Model presets land with the model reader; until then shape rules are skipped (info).
    for (Finding& finding : check_verl_rules(launch.value(), nullptr)) report.findings.push_back(std::move(finding));
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
