// `meshplan diagnose LOG... [--config SCRIPT_OR_YAML] [--model M] [--gpu TYPE] [--json]`: reads failed runs'
// logs (files, `-` for stdin, .gz), names the root cause and the fixes. Exit 0: no failure found;
// 1: a failure diagnosed; 2: unusable input.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/gzip_stream.hpp"
#include "cli/model_input.hpp"
#include "diagnose/log_scanner.hpp"
#include "diagnose/root_cause.hpp"
#include "diagnose/run_config.hpp"
#include "hardware/gpu_catalog.hpp"
#include "report/diagnose_report.hpp"

namespace meshplan {

namespace {

struct DiagnoseOptions {
  std::vector<std::string> logs;
  std::string config;
  std::string model;
  std::string gpu;
  bool json = false;
};

/// Scans one log named on the command line; an Error when it cannot be read.
Status scan_log(LogScanner& scanner, const std::string& path) {
  if (path == "-") return scanner.scan(std::cin, "<stdin>");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{path, 0, "", "is a directory, expected a log file"};
  if (path.ends_with(".gz")) {
    GzipInputStream gz(path);
    if (!gz.is_open()) return Error{path, 0, "", "cannot open log (missing, unreadable or not gzip)"};
    Status status = scanner.scan(gz, path);
    if (status.ok() && gz.failed()) return Error{path, 0, "", "corrupt gzip data"};
    return status;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "", "cannot open log (missing or unreadable)"};
  return scanner.scan(in, path);
}

void run_diagnose(const DiagnoseOptions& options, CommandContext& context) {
  FixContext fix_context;
  if (!options.model.empty()) {
    auto model = load_model_argument(options.model);
    if (!model.ok()) return context.fail(model.error());
    fix_context.model = std::move(*model);
  }
  std::optional<GpuSpec> gpu;
  if (!options.gpu.empty()) {
    auto found = find_gpu(builtin_gpu_catalog(), options.gpu);
    if (!found.ok()) return context.fail(Error{"", 0, "--gpu", found.error().message});
    gpu = *found;
    fix_context.gpu_memory_bytes = static_cast<double>(gpu->memory_bytes);
  }
  fix_context.known_keys = verl_base_config_keys();
  if (!options.config.empty()) {
    auto text = read_text_file(options.config);
    if (!text.ok()) return context.fail(text.error());
    auto run = read_run_config(*text, options.config);
    if (!run.ok()) return context.fail(run.error());
    fix_context.config = std::move(run->values);
    fix_context.config_source = options.config;
    fix_context.known_keys = std::move(run->keys);
    if (fix_context.model && gpu) {
      const VerlJob& job = run->job;
      fix_context.job = FixContext::Job{job.strategy, job.workload,
                                        Cluster{{NodeGroup{job.nnodes, job.gpus_per_node, *gpu}}}};
    }
  }
  LogScanner scanner;
  for (const std::string& path : options.logs) {
    if (Status status = scan_log(scanner, path); !status.ok()) return context.fail(status.error());
  }
  const DiagnosisReport report = build_report(scanner.output(), std::move(fix_context));
  context.out << (options.json ? diagnosis_json(report) : diagnosis_text(report));
  context.exit_code = report.failure_found ? 1 : 0;
}

}  // namespace

void register_diagnose_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiagnoseOptions>();
  auto* command = app.add_subcommand("diagnose", "Find the root cause of a failed (or slow) verl run in its logs");
  command->add_option("LOG", options->logs, "log files of the driver and the workers; - for stdin; .gz accepted")
      ->required();
  command->add_option("--config", options->config,
                      "the run's launch script or YAML config: fixes computed for its values");
  command->add_option("--model", options->model,
                      "the run's model (preset, config.json or its directory): valid parallel sizes, logits size");
  command->add_option("--gpu", options->gpu, "the run's GPU type (see `meshplan gpus`): memory shares");
  command->add_flag("--json", options->json, "machine-readable output");
  command->callback([options, &context] { run_diagnose(*options, context); });
}

}  // namespace meshplan
