#include "fuzz_targets.hpp"

#include <sstream>
#include <string>

#include "cost/calibration/nccl_calibration.hpp"
#include "cost/calibration/verl_metrics.hpp"
#include "diagnose/line_reader.hpp"
#include "diagnose/log_line.hpp"
#include "diagnose/log_scanner.hpp"
#include "diagnose/root_cause.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "strategy/pipeline_layout.hpp"
#include "verl/check.hpp"
#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/verl_base.hpp"
#include "verl/hydra/hydra_override.hpp"
#include "verl/hydra/interpolation.hpp"
#include "verl/shell/shell_expansion.hpp"
#include "verl/shell/shell_lexer.hpp"
#include "verl/shell/shell_script.hpp"

namespace meshplan::fuzz {
namespace {

void shell_lexer(std::string_view text) { (void)lex_shell(text, "fuzz.sh"); }

void shell_script(std::string_view text) { (void)evaluate_shell_script(text, "fuzz.sh", {}); }

// With a few variables set, one of them referring to another and one to itself.
void shell_arithmetic(std::string_view text) {
  static const ShellVariables variables = [] {
    ShellVariables v;
    v["N"].values = {"8"};
    v["M"].values = {"N * 2"};
    v["SELF"].values = {"SELF + 1"};
    return v;
  }();
  std::string why;
  (void)evaluate_arithmetic(text, variables, why);
}

void shell_expansion(std::string_view text) {
  ShellVariables variables;
  variables["N"].values = {"8"};
  variables["A"].values = {"x", "y"};
  (void)expand_shell_word(text, variables);
}

// The Hydra override grammar, applied to verl's base config.
void hydra_override(std::string_view text) {
  static const ConfigNode base = embedded_verl_base(newest_verl_version(), "ppo_trainer", {}).value();
  auto parsed = parse_override(text, SourceLocation{"fuzz", 1});
  if (!parsed.ok()) return;
  ConfigNode config = base;
  (void)apply_override(config, parsed.value());
}

void interpolation(std::string_view text) {
  auto config = config_from_yaml(text, "fuzz.yaml");
  if (config.ok()) (void)resolve_interpolations(config.value());
}

void yaml_config(std::string_view text) { (void)config_from_yaml(text, "fuzz.yaml"); }


void hf_config(std::string_view text) { (void)parse_model_config(text, "config.json"); }

void cluster_spec(std::string_view text) {
  const auto& catalog = builtin_gpu_catalog();
  (void)parse_cluster_file(text, "cluster.yaml", catalog);
  (void)parse_cluster_spec(text, catalog);
}

void gpu_catalog(std::string_view text) { (void)parse_gpu_catalog(text, "gpus.json"); }

void nccl_tests(std::string_view text) {
  auto sweep = parse_nccl_tests(text, "nccl.txt");
  if (sweep.ok()) (void)fit_alpha_beta(sweep.value());
}

void verl_metrics(std::string_view text) { (void)parse_verl_metrics(text, "verl.log"); }

// The bounded line reader with a small line limit, then the cleaner and prefix parser per line.
void line_reader(std::string_view text) {
  std::istringstream in{std::string(text)};
  LineReader reader(in, 256);
  std::string_view line;
  std::string scratch;
  while (reader.next(line)) (void)parse_prefix(clean_line(line, scratch));
}

// diagnose end to end: the scanner, then the root-cause report.
void diagnose(std::string_view text) {
  std::istringstream in{std::string(text)};
  LogScanner scanner;
  if (scanner.scan(in, "fuzz.log").ok()) (void)build_report(scanner.output(), FixContext{});
}

// Megatron-core's pipeline layout string: the parser, then the validation and per-rank counts for
// each pipeline size that divides it.
void pipeline_layout(std::string_view text) {
  const auto layout = parse_pipeline_layout(text);
  if (!layout) return;
  for (int pp : {1, 2, 3, 4, 8, 16}) {
    (void)pipeline_layout_error(*layout, pp, 0, 61, 1);
    (void)layout_rank_layers(*layout, pp);
    (void)layout_vpp(*layout, pp);
  }
}

// check end to end on a launch script: shell walk, overrides, composition, every rule.
void check(std::string_view text) {
  (void)check_launch({InputText{"fuzz.sh", std::string(text)}}, CheckOptions{});
}

}  // namespace

const std::vector<Target>& targets() {
  static const std::vector<Target> list = {
      {"shell_lexer", shell_lexer},   {"shell_script", shell_script}, {"shell_arithmetic", shell_arithmetic},
      {"shell_expansion", shell_expansion}, {"hydra_override", hydra_override}, {"interpolation", interpolation},
      {"yaml_config", yaml_config},   {"hf_config", hf_config},
      {"cluster_spec", cluster_spec}, {"gpu_catalog", gpu_catalog},   {"nccl_tests", nccl_tests},
      {"verl_metrics", verl_metrics}, {"line_reader", line_reader},   {"diagnose", diagnose},
      {"check", check},               {"pipeline_layout", pipeline_layout},
  };
  return list;
}

bool run_target(std::string_view name, std::string_view input) {
  for (const Target& target : targets()) {
    if (target.name != name) continue;
    target.run(input);
    return true;
  }
  return false;
}

}  // namespace meshplan::fuzz
