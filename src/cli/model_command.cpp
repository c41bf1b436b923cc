#include <CLI/CLI.hpp>

#include "cli/command.hpp"

namespace meshplan {

// Placeholder until the model reader lands (issue 2).
void register_model_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("model", "Show a model's shape, parameter counts, FLOPs and KV cache");
  command->callback([&context] { context.fail(Error{"", 0, "", "model: not built yet"}); });
}

}  // namespace meshplan
