// `meshplan diagnose LOG... [--config SCRIPT_OR_YAML] [--model M] [--gpu TYPE] [--json]`: reads failed runs'
// logs (files, `-` for stdin, .gz), names the root cause and the fixes. Exit 0: no failure found;
// 1: a failure diagnosed; 2: unusable input (also an empty or binary log). Without --config,
// --model or --gpu the log's own facts stand in: verl's printed config or Hydra overrides, the
// model path in it, the GPUs of an nvidia-smi paste.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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

/// The catalog entry an nvidia-smi row names: "NVIDIA H100 80GB HBM3" -> H100-80GB (alias
/// H100-80GB-HBM3), "Tesla V100-SXM2-32GB" -> V100-32GB; trailing words dropped until one matches.
std::optional<GpuSpec> gpu_from_smi_name(std::string_view name) {
  for (const std::string_view vendor : {std::string_view("NVIDIA "), std::string_view("Tesla ")}) {
    if (name.starts_with(vendor)) name.remove_prefix(vendor.size());
  }
  std::string id(name);
  std::replace(id.begin(), id.end(), ' ', '-');
  while (!id.empty()) {
    if (auto gpu = find_gpu(builtin_gpu_catalog(), id); gpu.ok()) return *gpu;
    const std::size_t dash = id.rfind('-');
    if (dash == std::string::npos) break;
    id.resize(dash);
  }
  return std::nullopt;
}

/// The run's model from its config's model path (actor_rollout_ref.model.path), when its last
/// segment names an embedded preset ("Qwen/Qwen2.5-7B-Instruct" -> qwen2.5-7b-instruct).
std::optional<ModelSpec> model_from_config(const std::map<std::string, std::string, std::less<>>& config) {
  const auto path = config.find("actor_rollout_ref.model.path");
  if (path == config.end()) return std::nullopt;
  std::string name = path->second.substr(path->second.find_last_of('/') + 1);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name.empty() || std::filesystem::exists(name)) return std::nullopt;  // only presets, never a local file
  auto model = load_model_argument(name);
  if (!model.ok()) return std::nullopt;
  return std::move(*model);
}

/// The run as the cost model sees it: the config's strategy on its nodes of the given GPU; none
/// when the config leaves a value the mapping reads unknown (the estimate would be of a default).
std::optional<FixContext::Job> job_on(const VerlJob& job, const GpuSpec& gpu) {
  if (!job.unknown_key.empty()) return std::nullopt;
  return FixContext::Job{job.strategy, job.workload, Cluster{{NodeGroup{job.nnodes, job.gpus_per_node, gpu}}}};
}

/// Without --config: the config the log printed (verl's resolved config, else the Hydra
/// overrides), composed with verl's defaults; the model and GPU it names when not given.
void use_run_facts(const ScanOutput& scan, std::optional<GpuSpec>& gpu, FixContext& fix_context) {
  if (!gpu) {
    for (const std::string& name : scan.facts.gpu_names) {
      if ((gpu = gpu_from_smi_name(name))) break;
    }
    if (gpu) fix_context.gpu_memory_bytes = static_cast<double>(gpu->memory_bytes);
  }
  const bool printed = !scan.facts.resolved_config.empty();
  const auto& values = printed ? scan.facts.resolved_config : scan.overrides;
  const std::optional<Evidence>& where = printed ? scan.facts.resolved_config_line : scan.overrides_line;
  if (!fix_context.config.empty() || values.empty() || !where) return;
  auto run = run_config_from_values(values, "<log>");
  if (!run.ok()) return;
  fix_context.config = std::move(run->values);
  fix_context.config_source = fmt::format("{} at {}:{} (with verl's defaults)",
                                          printed ? "verl's printed config" : "the Hydra overrides", where->file,
                                          where->line);
  fix_context.known_keys = std::move(run->keys);
  fix_context.sections_by_class = std::move(run->sections_by_class);
  fix_context.choice_fixes = std::move(run->choice_fixes);
  if (!fix_context.model) fix_context.model = model_from_config(fix_context.config);
  if (fix_context.model && gpu) fix_context.job = job_on(run->job, *gpu);
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
  ConfigVocabulary base = verl_base_vocabulary();
  fix_context.known_keys = std::move(base.keys);
  fix_context.sections_by_class = std::move(base.sections_by_class);
  std::optional<RunConfig> run;
  if (!options.config.empty()) {
    auto text = read_text_file(options.config);
    if (!text.ok()) return context.fail(text.error());
    auto read = read_run_config(*text, options.config);
    if (!read.ok()) return context.fail(read.error());
    run = std::move(*read);
    fix_context.config = run->values;
    fix_context.config_source = "the config in " + options.config;
    fix_context.known_keys = run->keys;
    fix_context.sections_by_class = run->sections_by_class;
    fix_context.choice_fixes = run->choice_fixes;
  }
  LogScanner scanner;
  for (const std::string& path : options.logs) {
    if (Status status = scan_log(scanner, path); !status.ok()) return context.fail(status.error());
  }
  use_run_facts(scanner.output(), gpu, fix_context);
  if (run && fix_context.model && gpu) fix_context.job = job_on(run->job, *gpu);
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
