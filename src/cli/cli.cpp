#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/command.hpp"
#include "cli/version.hpp"

namespace meshplan {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal) {
  CLI::App app{"meshplan: plan, check and debug distributed training configurations "
               "(verl, Megatron-LM)", "meshplan"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text);
  CommandContext context{out, err, terminal, 0};

  register_model_command(app, context);
  register_calibrate_command(app, context);
  register_check_command(app, context);
  register_gpus_command(app, context);
  register_estimate_command(app, context);
  register_diagnose_command(app, context);
  register_plan_command(app, context);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    // --help / --version are successes; every other parse error is bad input.
    return code == 0 ? kExitOk : kExitBadInput;
  }
  return context.exit_code;
}

}  // namespace meshplan
