#include "verl/shell/launch.hpp"

#include <algorithm>
#include <array>

#include "verl/hydra/hydra_flags.hpp"

namespace meshplan {
namespace {

constexpr std::array<std::string_view, 6> kPrefixes = {"nohup", "exec", "time", "env", "stdbuf", "srun"};
constexpr std::array<std::string_view, 6> kNotLaunchers = {"echo", "printf", "logger", "cat", "grep", "tee"};
// torchrun options that take no value (torch/distributed/run.py).
constexpr std::array<std::string_view, 6> kTorchrunFlags = {"--standalone", "--no-python", "--no_python",
                                                            "--run-path", "--run_path", "--module"};

std::string basename(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_python(const std::string& word) {
  const std::string name = basename(word);
  return name == "python" || name.rfind("python3", 0) == 0;
}

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Index of the entry (module name or script) in args starting at `i`, or npos.
std::size_t entry_index(const std::vector<ShellArgument>& args, std::size_t i, bool& is_module) {
  while (i < args.size() && std::find(kPrefixes.begin(), kPrefixes.end(), basename(args[i].text)) != kPrefixes.end()) {
    ++i;
    while (i < args.size() && (args[i].text.find('=') != std::string::npos || args[i].text.rfind("-", 0) == 0)) ++i;
  }
  if (i >= args.size()) return std::string::npos;
  const std::string name = basename(args[i].text);
  if (name == "ray") {
    for (std::size_t k = i + 1; k < args.size(); ++k) {
      if (args[k].text == "--") return entry_index(args, k + 1, is_module);
    }
    return std::string::npos;
  }
  // `python -m torch.distributed.run` / `.launch` is torchrun: its options, then the script.
  const bool torch_module = is_python(args[i].text) && i + 2 < args.size() && args[i + 1].text == "-m" &&
                            (args[i + 2].text == "torch.distributed.run" || args[i + 2].text == "torch.distributed.launch");
  if (torch_module) i += 2;
  const bool torchrun = name == "torchrun" || torch_module;
  // Programs that print or filter a command line rather than run it (`printf '%q ' "${CMD[@]}"`).
  if (std::find(kNotLaunchers.begin(), kNotLaunchers.end(), name) != kNotLaunchers.end()) return std::string::npos;
  if (!torchrun && !is_python(args[i].text)) {
    // A wrapper in front of the interpreter (`uv run --extra vllm python3 -m ...`,
    // `conda run -n env python ...`): the launch starts at the interpreter.
    // `uv run [options] -m module` runs the module itself (uv's -m / --module).
    const bool uv_run = name == "uv" && i + 1 < args.size() && args[i + 1].text == "run";
    for (std::size_t k = i + 1; k < args.size(); ++k) {
      if (is_python(args[k].text) || basename(args[k].text) == "torchrun") return entry_index(args, k, is_module);
      if (uv_run && (args[k].text == "-m" || args[k].text == "--module") && k + 1 < args.size()) {
        is_module = true;
        return k + 1;
      }
    }
    // A launcher held in a variable whose value is not known statically ("${LAUNCH[@]}" -m ...).
    if (args[i].unknown) {
      for (std::size_t k = i + 1; k + 1 < args.size(); ++k) {
        if (args[k].text == "-m") {
          is_module = true;
          return k + 1;
        }
      }
    }
    return std::string::npos;
  }
  for (std::size_t k = i + 1; k < args.size(); ++k) {
    const std::string& arg = args[k].text;
    if (arg == "-m" || (torchrun && arg == "--module")) {
      is_module = true;
      return k + 1 < args.size() ? k + 1 : std::string::npos;
    }
    if (arg.rfind("-", 0) == 0) {
      const bool takes_value = torchrun ? (arg.find('=') == std::string::npos &&
                                           std::find(kTorchrunFlags.begin(), kTorchrunFlags.end(), arg) == kTorchrunFlags.end())
                                        : (arg == "-X" || arg == "-W" || arg == "-c");
      if (takes_value) ++k;
      continue;
    }
    is_module = false;
    return k;
  }
  return std::string::npos;
}

void take_hydra_flags(Launch& launch, const std::vector<ShellArgument>& args, std::size_t start) {
  for (std::size_t k = start; k < args.size(); ++k) {
    const std::string& arg = args[k].text;
    bool unknown_value = false;
    // argparse takes an abbreviation that names one of Hydra's flags for that flag (`--config-n`).
    const std::vector<std::string_view> named = hydra_long_flags_named(arg);
    auto value_of = [&](std::string_view long_name, std::string_view short_name) -> std::optional<std::string> {
      const bool abbreviated = named.size() == 1 && named.front() == long_name && arg.find('=') == std::string::npos;
      if (arg == long_name || arg == short_name || abbreviated) {
        if (k + 1 >= args.size()) return std::string();
        unknown_value = args[++k].unknown.has_value();
        // A value known in part ("$(pwd)/configs" for "$CONFIG_PATH") says more than its name.
        return unknown_value && !args[k].partial.empty() ? args[k].partial : args[k].text;
      }
      const std::string with_eq =
          (named.size() == 1 && named.front() == long_name ? arg.substr(0, arg.find('=')) : std::string(long_name)) + "=";
      unknown_value = args[k].unknown.has_value();
      if (arg.rfind(with_eq, 0) == 0) {
        const std::string& whole = unknown_value && args[k].partial.starts_with(with_eq) ? args[k].partial : arg;
        return whole.substr(with_eq.size());
      }
      return std::nullopt;
    };
    if (auto name = value_of("--config-name", "-cn")) {
      // A name not known statically (a script argument, an unset variable) is given as "".
      launch.config_name = unknown_value ? std::string() : *name;
    } else if (auto path = value_of("--config-path", "-cp")) {
      launch.config_path = *path;
    } else {
      launch.arguments.push_back(args[k]);
    }
  }
}

// The one-step-off trainer (recipe/one_step_off_policy from v0.5.0, verl/experimental/ from
// main@b178a3cd): main_ppo.py there is `@hydra.main(config_name="one_step_off_ppo_trainer")`.
bool is_one_step_off_entry(const std::string& entry) {
  return entry == "verl.experimental.one_step_off_policy.main_ppo" || entry == "recipe.one_step_off_policy.main_ppo" ||
         ends_with(entry, "one_step_off_policy/main_ppo.py");
}

// The fully-async trainer (recipe/fully_async_policy in v0.6.1 and v0.7.0, verl/experimental/ from
// v0.7.1): fully_async_main.py is `@hydra.main(config_name="fully_async_ppo_trainer")`.
bool is_fully_async_entry(const std::string& entry) {
  return entry == "verl.experimental.fully_async_policy.fully_async_main" ||
         entry == "recipe.fully_async_policy.fully_async_main" || ends_with(entry, "fully_async_policy/fully_async_main.py");
}

}  // namespace

std::vector<Launch> find_launches(const ShellScript& script) {
  std::vector<Launch> launches;
  for (const ShellInvocation& call : script.invocations) {
    bool is_module = false;
    const std::size_t entry = entry_index(call.args, 0, is_module);
    if (entry == std::string::npos) continue;
    Launch launch;
    launch.entry = call.args[entry].text;
    launch.environment = call.environment;
    launch.location = call.location;
    launch.uses_script_arguments = call.uses_script_arguments;
    const std::string script_name = basename(launch.entry);
    if (launch.entry == "verl.trainer.main_ppo" || ends_with(launch.entry, "verl/trainer/main_ppo.py")) {
      launch.kind = LaunchKind::verl_ppo;
      take_hydra_flags(launch, call.args, entry + 1);
    } else if (is_one_step_off_entry(launch.entry)) {
      launch.kind = LaunchKind::verl_ppo;
      launch.default_config = "one_step_off_ppo_trainer";
      take_hydra_flags(launch, call.args, entry + 1);
    } else if (is_fully_async_entry(launch.entry)) {
      launch.kind = LaunchKind::verl_ppo;
      launch.default_config = "fully_async_ppo_trainer";
      take_hydra_flags(launch, call.args, entry + 1);
    } else if (script_name.rfind("pretrain_", 0) == 0 && ends_with(script_name, ".py")) {
      launch.kind = LaunchKind::megatron;
      launch.arguments.assign(call.args.begin() + static_cast<std::ptrdiff_t>(entry) + 1, call.args.end());
    } else if (is_module || ends_with(script_name, ".py")) {
      // Another entry point: a repository's own trainer may be a Hydra app over verl's config.
      launch.kind = LaunchKind::other_trainer;
      take_hydra_flags(launch, call.args, entry + 1);
    } else {
      continue;
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}

Launch launch_from_override_lines(const std::vector<ShellArgument>& lines) {
  Launch launch;
  launch.entry = "verl.trainer.main_ppo";
  if (!lines.empty()) launch.location = lines.front().location;
  take_hydra_flags(launch, lines, 0);
  return launch;
}

}  // namespace meshplan
