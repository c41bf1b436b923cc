// meshplan check FILE... : a static dry run of verl launches (and Megatron-LM arguments).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <set>
#include <ostream>

#include "cli/cluster_input.hpp"
#include "cli/command.hpp"
#include "cli/config_dirs.hpp"
#include "cli/model_input.hpp"
#include "cli/script_values.hpp"
#include "core/std_regex.hpp"
#include "hardware/gpu_catalog.hpp"
#include "verl/check.hpp"
#include "verl/schema/registry_sources.hpp"

namespace meshplan {
namespace {

struct CheckArguments {
  std::vector<std::string> files;
  std::string model;
  std::string gpu;
  std::string cluster;
  std::vector<std::string> set;
  std::vector<std::string> env;
  std::string verl_config;
  std::string verl_version;
  std::string verl_path;
  std::string config_name;
  bool json = false;
  std::int64_t mean_prompt_len = 0;
  std::int64_t mean_response_len = 0;
};

std::string location_text(const SourceLocation& where, const std::string& fallback) {
  if (where.file.empty()) return fallback;
  return where.line > 0 ? where.file + ":" + std::to_string(where.line) : where.file;
}

void print_text(std::ostream& out, const CheckReport& report, const std::string& fallback) {
  for (const Finding& f : report.findings) {
    out << location_text(f.location, fallback) << ": " << severity_name(f.severity) << "[" << f.rule << "]: " << f.message
        << "\n";
    for (const std::string& line : f.fix) out << "    fix: " << line << "\n";
  }
  out << report.errors << " error(s), " << report.warnings << " warning(s), " << report.infos << " note(s)\n";
}

void print_json(std::ostream& out, const CheckReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : report.findings) {
    findings.push_back({{"severity", severity_name(f.severity)},
                        {"rule", f.rule},
                        {"keys", f.keys},
                        {"value", f.value},
                        {"message", f.message},
                        {"fix", f.fix},
                        {"location", {{"file", f.location.file}, {"line", f.location.line}}}});
  }
  out << nlohmann::json{{"schema_version", 1},
                        {"schema", "meshplan.check/1"},
                        {"config_name", report.config_name},
                        {"verl_schema", report.verl_source},
                        {"errors", report.errors},
                        {"warnings", report.warnings},
                        {"findings", findings}}
             .dump(1)
      << "\n";
}

// A verl package: its config tree and its version file, or, where a repository dropped the version
// file (Stellaris167/RAC), its __init__.py and trainer/main_ppo.py.
bool is_verl_package(const std::filesystem::path& package) {
  std::error_code ec;
  if (!std::filesystem::is_directory(package / "trainer" / "config", ec)) return false;
  return std::filesystem::is_regular_file(package / "version" / "version", ec) ||
         (std::filesystem::is_regular_file(package / "__init__.py", ec) &&
          std::filesystem::is_regular_file(package / "trainer" / "main_ppo.py", ec));
}

// The one child directory of `dir` that holds a verl package (ARPO's verl_arpo_entropy/verl, a
// fork checked out under its own name); empty when none does or several do.
std::filesystem::path only_child_verl(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path found;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec) || !is_verl_package(entry.path() / "verl")) continue;
    if (!found.empty()) return {};
    found = entry.path() / "verl";
  }
  return found;
}

// The package directory (holding version/version and trainer/config) of a verl next to `script`:
// in a directory above it up to its repository's root, `verl/` (the package, as research
// repositories vendor it), `src/verl/` (Python's src layout), `verl/verl/` or `src/verl/verl/` (a
// checkout named verl, Tool-Star's under src/) or, failing those, `<one child>/verl` (a fork under its own name). Empty when there is none.
std::filesystem::path verl_next_to(const std::string& script) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(script, ec).parent_path();
  for (; !ec && !dir.empty(); dir = dir.parent_path()) {
    for (const auto& package :
         {dir / "verl", dir / "src" / "verl", dir / "verl" / "verl", dir / "src" / "verl" / "verl"}) {
      if (is_verl_package(package)) return package;
    }
    if (const std::filesystem::path package = only_child_verl(dir); !package.empty()) return package;
    if (std::filesystem::exists(dir / ".git", ec) || dir == dir.parent_path()) break;
  }
  return {};
}

// The inference engines a repository ships next to its verl (Sparrow's sglang/python/sglang):
// each copy's path relative to `root` and the fields of the dataclass its arguments become.
void read_vendored_engines(const std::filesystem::path& root, VerlReadOptions& read) {
  struct VendoredEngine {
    const char* name;
    const char* arguments_file;  ///< relative to the package
    const char* dataclass;
  };
  constexpr VendoredEngine kEngines[] = {{"sglang", "srt/server_args.py", "ServerArgs"},
                                         {"vllm", "engine/arg_utils.py", "EngineArgs"}};
  std::error_code ec;
  for (const VendoredEngine& engine : kEngines) {
    for (const std::filesystem::path& package :
         {std::filesystem::path(engine.name) / "python" / engine.name, std::filesystem::path(engine.name) / engine.name,
          std::filesystem::path(engine.name)}) {
      if (!std::filesystem::is_regular_file(root / package / engine.arguments_file, ec)) continue;
      read.vendored_engines[engine.name] = package.generic_string();
      if (auto text = read_text_file((root / package / engine.arguments_file).string()); text.ok()) {
        read.vendored_engine_arguments[engine.name] = dataclass_field_names(text.value(), engine.dataclass);
      }
      break;
    }
  }
}

// The checkout's sources its registries are read from (verl/schema/registry_sources.hpp): path
// relative to the package -> text; a path ending in '/' stands for the directory's *.py files, one
// ending in '/**/' for those of the directory and its subdirectories.
std::map<std::string, std::string> registry_sources(const std::filesystem::path& package) {
  std::map<std::string, std::string> sources;
  std::error_code ec;
  const auto read = [&](const std::string& directory, const std::filesystem::path& file) {
    if (file.extension() != ".py") return;
    const std::string relative = std::filesystem::relative(file, package / directory, ec).generic_string();
    if (auto text = read_text_file(file.string())) sources[directory + relative] = std::move(text.value());
  };
  for (const std::string& path : registry_source_paths()) {
    if (path.back() != '/') {
      if (auto text = read_text_file((package / path).string())) sources[path] = std::move(text.value());
      continue;
    }
    const bool recursive = path.ends_with("**/");
    const std::string directory = recursive ? path.substr(0, path.size() - 3) : path;
    if (!std::filesystem::is_directory(package / directory, ec)) continue;
    if (recursive) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(package / directory, ec)) {
        read(directory, entry.path());
      }
    } else {
      for (const auto& entry : std::filesystem::directory_iterator(package / directory, ec)) read(directory, entry.path());
    }
  }
  return sources;
}

// The environment variables the Python sources under `root` read (os.environ.get("X"), os.environ["X"],
// os.getenv("X"), "X" in os.environ): a fork's own knobs, and those of the engines its repository
// ships (Weigaa/qwen30b_tpu_verl's vllm_rollout_spmd.py reads VLLM_ENABLE_EPLB, its vllm_ascend
// VLLM_CHUNK_MOE_SIZE). Read, never run; bounded to 20,000 files.
void collect_env_reads(const std::filesystem::path& root, std::set<std::string>& names) {
  static const std::regex read(R"re((?:environ\.get|getenv|environ\.setdefault)\(\s*["']([A-Z][A-Z0-9_]+)["']|environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]|["']([A-Z][A-Z0-9_]+)["']\s+in\s+os\.environ)re");
  std::error_code ec;
  std::size_t files = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(root, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator() && files < 20000; it.increment(ec)) {
    if (it->path().filename().string().starts_with(".")) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() != ".py" || !it->is_regular_file(ec)) continue;
    ++files;
    auto text = read_text_file(it->path().string());
    if (!text.ok() || (text->find("environ") == std::string::npos && text->find("getenv") == std::string::npos)) continue;
    for (std::sregex_iterator match(text->begin(), text->end(), read), end; match != end; ++match) {
      for (std::size_t group = 1; group <= 3; ++group) {
        if ((*match)[group].matched) names.insert((*match)[group].str());
      }
    }
  }
}

// The verl package of a checkout root (`root/verl`) or of the package directory itself.
std::filesystem::path verl_package_of(const std::filesystem::path& root) {
  return is_verl_package(root / "verl") ? root / "verl" : root;
}

// A verl checkout or installed package (--verl-path, or one found next to the script): its
// version file, its config tree and its registries' names, read, never run.
std::optional<Error> read_verl_tree(const std::string& given, const std::filesystem::path& root, VerlReadOptions& read) {
  const std::filesystem::path package = verl_package_of(root);
  if (!is_verl_package(package)) {
    return Error{given, 0, "--verl-path",
                 "not a verl checkout: no verl/trainer/config with verl/version/version (or verl/__init__.py and "
                 "verl/trainer/main_ppo.py)"};
  }
  // Without a version file the checkout's own config tree and registries are read, and the newest
  // embedded verl's rules apply as to a launch that names no version.
  if (auto version = read_text_file((package / "version" / "version").string()); version.ok()) {
    std::string text = version.value();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.pop_back();
    read.verl_version = text;
  }
  auto texts = read_config_dir((package / "trainer" / "config").string());
  if (!texts.ok()) return texts.error();
  read.config_texts = std::move(texts.value());
  // The one-step-off and fully-async trainers' own config directories (their overlays compose over
  // trainer/config): verl/experimental/<trainer>/config, recipe/<trainer>/config before v0.8.
  for (const auto& overlay : {package / "experimental" / "one_step_off_policy" / "config",
                              package.parent_path() / "recipe" / "one_step_off_policy" / "config",
                              package / "experimental" / "fully_async_policy" / "config",
                              package.parent_path() / "recipe" / "fully_async_policy" / "config"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(overlay, ec)) continue;
    auto more = read_config_dir(overlay.string());
    if (!more.ok()) return more.error();
    read.config_texts.insert(more->begin(), more->end());
  }
  read.config_texts_from_verl = true;
  read.registry_names = registry_names_from_sources(registry_sources(package));
  read_vendored_engines(package.parent_path(), read);
  // The repository around a vendored package too (its engines); an installed package alone.
  std::set<std::string> env_read;
  std::error_code ec;
  const std::filesystem::path repository = package.parent_path();
  const bool in_repository = std::filesystem::exists(repository / ".git", ec) ||
                             std::filesystem::exists(repository / "setup.py", ec) ||
                             std::filesystem::exists(repository / "pyproject.toml", ec);
  collect_env_reads(in_repository ? repository : package, env_read);
  if (!env_read.empty()) read.registry_names["env_read"].assign(env_read.begin(), env_read.end());
  return std::nullopt;
}

void run_check(const CheckArguments& args, CommandContext& context) {
  CheckOptions options;
  auto environment = parse_env_arguments(args.env);
  if (!environment) return context.fail(environment.error());
  options.read.environment = std::move(environment.value());
  options.read.set_overrides = args.set;
  options.mean_prompt_len = args.mean_prompt_len;
  options.mean_response_len = args.mean_response_len;
  if (!args.config_name.empty()) options.read.config_name = args.config_name;
  if (!args.verl_path.empty()) {
    if (auto error = read_verl_tree(args.verl_path, args.verl_path, options.read)) return context.fail(*error);
  } else if (args.verl_version.empty() && !args.files.empty()) {
    // No verl named: the one a research repository vendors next to its scripts, if any.
    if (const std::filesystem::path found = verl_next_to(args.files.front()); !found.empty()) {
      if (auto error = read_verl_tree(found.string(), found, options.read)) return context.fail(*error);
      options.read.verl_found_at = found.parent_path().string();
    }
  }
  if (!args.verl_version.empty()) options.read.verl_version = args.verl_version;
  if (!args.verl_config.empty()) {
    auto texts = read_config_dir(args.verl_config);
    if (!texts.ok()) return context.fail(texts.error());
    if (options.read.config_texts_from_verl) {
      // The launch's own config directory over the checkout's tree, as Hydra's search path has it.
      for (auto& [config, text] : texts.value()) options.read.config_texts[config] = std::move(text);
    } else {
      options.read.config_texts = std::move(texts.value());
    }
  }
  if (!args.model.empty()) {
    auto model = load_model_argument(args.model);
    if (!model.ok()) return context.fail(model.error());
    options.model = std::move(model.value());
  }
  if (!args.gpu.empty() || !args.cluster.empty()) {
    auto catalog = load_gpu_catalog_argument("");
    if (!catalog.ok()) return context.fail(catalog.error());
    if (!args.cluster.empty()) {
      auto cluster = load_cluster_argument(args.cluster, catalog.value());
      if (!cluster.ok()) return context.fail(cluster.error());
      options.gpu = cluster->groups.front().gpu;
      options.cluster_gpus = cluster->total_gpus();
    }
    if (!args.gpu.empty()) {
      auto gpu = find_gpu(catalog.value(), args.gpu);
      if (!gpu.ok()) return context.fail(gpu.error());
      if (options.gpu && options.gpu->id != gpu->id) {
        return context.fail(Error{"", 0, "--gpu", "--gpu " + args.gpu + " and --cluster " + args.cluster + " disagree"});
      }
      options.gpu = gpu.value();
    }
  }
  if (!args.files.empty()) {
    // The launch's own --config-path directory, found from the script's place.
    const std::filesystem::path script = args.files.front();
    const std::filesystem::path package =
        !options.read.config_texts_from_verl ? std::filesystem::path()
        : !args.verl_path.empty()            ? std::filesystem::path(args.verl_path)
                                             : verl_next_to(args.files.front());
    options.read.find_config_path = [script, verl = verl_package_of(package)](const std::string& written) {
      return find_launch_config_dir(script, verl, written);
    };
    const std::filesystem::path repository = package.empty() ? package : verl_package_of(package).parent_path();
    options.read.find_entry_point = [script, repository, verl = verl_package_of(package)](
                                        const std::string& entry, const std::string& config_path) {
      return find_entry_point_config(script, repository, verl, entry, config_path);
    };
  }
  std::vector<InputText> inputs;
  for (const std::string& file : args.files) {
    auto text = read_text_file(file);
    if (!text.ok()) return context.fail(text.error());
    inputs.push_back(InputText{file, std::move(text.value())});
  }
  auto report = check_launch(inputs, options);
  if (!report.ok()) return context.fail(report.error());
  if (args.json) {
    print_json(context.out, report.value());
  } else {
    print_text(context.out, report.value(), args.files.empty() ? "--set" : args.files.front());
  }
  context.exit_code = report->errors > 0 ? 1 : 0;
}

}  // namespace

void register_check_command(CLI::App& app, CommandContext& context) {
  auto args = std::make_shared<CheckArguments>();
  auto* command = app.add_subcommand("check", "Static dry run of a verl launch script / config (and Megatron-LM "
                                              "arguments): every start-up rule, before any GPU is used");
  command->add_option("files", args->files, "launch scripts, YAML configs or files of override lines")->required();
  command->add_option("--model", args->model, "model preset or config.json for the shape rules");
  command->add_option("--gpu", args->gpu, "GPU type for the memory fit (node counts from trainer.*)");
  command->add_option("--cluster", args->cluster, "cluster (NODESxGPUSxTYPE or file) for the memory fit; must match trainer.*");
  command->add_option("--set", args->set, "an extra override key=value, applied last")->take_all();
  command->add_option("--env", args->env, "an environment variable VAR=value set before the script")->take_all();
  command->add_option("--verl-config", args->verl_config, "your verl config directory (instead of the embedded schema)");
  command->add_option("--verl-version", args->verl_version,
                      "the verl the launch runs (0.4.0 .. 0.9.0, main@<commit>; default: a verl vendored next to "
                      "the script, else a verl==X pin in the script, else the newest embedded)");
  command->add_option("--verl-path", args->verl_path,
                      "a verl checkout or installed package: its version file and config tree are read");
  command->add_option("--config-name", args->config_name, "base config: ppo_trainer | ppo_megatron_trainer | yours");
  command->add_option("--mean-prompt-len", args->mean_prompt_len,
                      "expected real prompt tokens for the memory fit (default: a quarter of the maximum)")
      ->check(CLI::PositiveNumber);
  command->add_option("--mean-response-len", args->mean_response_len,
                      "expected real response tokens for the memory fit (default: a quarter of the maximum)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--json", args->json, "findings as JSON");
  command->callback([args, &context] { run_check(*args, context); });
}

}  // namespace meshplan
