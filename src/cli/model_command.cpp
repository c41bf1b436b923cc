// `meshplan model MODEL [--json] [--seq-len N]` and `meshplan model --list`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "cli/command.hpp"
#include "cli/model_input.hpp"
#include "cli/model_report.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

namespace {

struct ModelOptions {
  std::string model;
  bool json = false;
  bool list = false;
  std::int64_t seq_len = 4096;
};

void list_presets(CommandContext& context) {
  context.out << "Model presets (pass one as MODEL, or a path to a config.json / its directory):\n";
  const std::vector<std::string> names = model_preset_names();
  std::size_t width = 0;
  for (const std::string& name : names) width = std::max(width, name.size());
  for (const std::string& name : names) {
    const Result<ModelSpec> model = load_model_argument(name);
    if (!model) {
      context.fail(model.error());
      return;
    }
    context.out << fmt::format("  {:<{}} {:<12} {:>10} total  {:>10} active\n", name, width, model->model_type,
                               human_count(model->total_params), human_count(model->active_params));
  }
}

void run_model(const ModelOptions& options, CommandContext& context) {
  if (options.list) {
    list_presets(context);
    return;
  }
  if (options.model.empty()) {
    context.fail(Error{"", 0, "MODEL", "missing: pass a preset name, a config.json or its directory "
                                       "(`meshplan model --list` shows the presets)"});
    return;
  }
  if (options.seq_len < 1 || options.seq_len > 100'000'000) {
    context.fail(Error{"", 0, "--seq-len", fmt::format("must be between 1 and 100000000, got {}", options.seq_len)});
    return;
  }
  const Result<ModelSpec> model = load_model_argument(options.model);
  if (!model) {
    context.fail(model.error());
    return;
  }
  if (options.json) {
    context.out << model_json(*model, options.seq_len) << "\n";
  } else {
    print_model_table(*model, options.seq_len, context.out);
  }
}

}  // namespace

void register_model_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ModelOptions>();
  auto* command = app.add_subcommand("model", "Show a model's shape, parameter counts, FLOPs and KV cache");
  command->add_option("MODEL", options->model,
                      "Preset name (e.g. qwen3-8b, Qwen/Qwen3-8B), a config.json, or a directory holding one");
  command->add_flag("--json", options->json, "Print JSON instead of a table");
  command->add_flag("--list", options->list, "List the embedded model presets");
  command->add_option("--seq-len", options->seq_len, "Sequence length for the attention FLOPs (default 4096)");
  command->callback([options, &context] { run_model(*options, context); });
}

}  // namespace meshplan
