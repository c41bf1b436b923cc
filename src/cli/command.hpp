#pragma once
// What every subcommand gets: the output streams and a place to leave its exit code.
// Each subcommand lives in its own file and registers itself with register_*_command().
#include <iosfwd>
#include <string>

#include "core/result.hpp"

namespace CLI {
class App;
}

namespace meshplan {

struct CommandContext {
  std::ostream& out;
  std::ostream& err;
  bool terminal = false;  ///< out is a TTY: colour and progress lines allowed
  int exit_code = 0;

  /// Prints "meshplan: error: <file:line: key: message>" to err and sets exit code 2.
  void fail(const Error& error);
};

/// Reads a whole text file; an Error naming the file when it is missing or unreadable.
Result<std::string> read_text_file(const std::string& path);

void register_model_command(CLI::App& app, CommandContext& context);
void register_calibrate_command(CLI::App& app, CommandContext& context);
void register_check_command(CLI::App& app, CommandContext& context);
void register_gpus_command(CLI::App& app, CommandContext& context);
void register_estimate_command(CLI::App& app, CommandContext& context);
void register_diagnose_command(CLI::App& app, CommandContext& context);
void register_plan_command(CLI::App& app, CommandContext& context);

}  // namespace meshplan
