#include "verl/hydra/hydra_flags.hpp"

#include <array>

namespace meshplan {
namespace {

struct HydraFlag {
  std::string_view long_name;
  std::string_view short_name;  ///< "" when none
  bool takes_value;
};

// hydra/_internal/utils.py get_args_parser (Hydra 1.3), in the parser's order; the parser keeps
// argparse's default allow_abbrev. --info takes an optional value (nargs="?").
constexpr std::array<HydraFlag, 14> kHydraFlags = {{{"--help", "-h", false},
                                                    {"--hydra-help", "", false},
                                                    {"--version", "", false},
                                                    {"--cfg", "-c", true},
                                                    {"--resolve", "", false},
                                                    {"--package", "-p", true},
                                                    {"--run", "-r", false},
                                                    {"--multirun", "-m", false},
                                                    {"--shell-completion", "-sc", false},
                                                    {"--config-path", "-cp", true},
                                                    {"--config-name", "-cn", true},
                                                    {"--config-dir", "-cd", true},
                                                    {"--experimental-rerun", "", true},
                                                    {"--info", "-i", false}}};

}  // namespace

std::vector<std::string_view> hydra_long_flags_named(std::string_view arg) {
  if (!arg.starts_with("--") || arg.size() < 3) return {};
  const std::string_view name = arg.substr(0, arg.find('='));
  std::vector<std::string_view> named;
  for (const HydraFlag& flag : kHydraFlags) {
    if (flag.long_name == name) return {flag.long_name};
    if (flag.long_name.starts_with(name)) named.push_back(flag.long_name);
  }
  return named;
}

HydraFlagRead read_hydra_flag(std::string_view word) {
  HydraFlagRead read;
  const bool dashed = word.starts_with("--");
  if (!dashed && !(word.starts_with("-") && word.find('=') == std::string_view::npos)) return read;
  const bool has_value = word.find('=') != std::string_view::npos;
  const std::vector<std::string_view> named = hydra_long_flags_named(word);
  for (const HydraFlag& flag : kHydraFlags) {
    const bool is_it = (named.size() == 1 && named.front() == flag.long_name) ||
                       (!flag.short_name.empty() && word == flag.short_name);
    if (!is_it) continue;
    read.kind = HydraFlagRead::Kind::hydra;
    read.flag = std::string(flag.long_name);
    read.takes_value = flag.takes_value && !has_value;
    return read;
  }
  if (named.size() > 1) {
    read.kind = HydraFlagRead::Kind::ambiguous;
    std::string flags;
    for (const std::string_view flag : named) flags += (flags.empty() ? "" : ", ") + std::string(flag);
    read.message = "'" + std::string(word) + "' abbreviates several of Hydra's flags (" + flags +
                   "): main_ppo stops with \"ambiguous option\"";
    return read;
  }
  read.kind = HydraFlagRead::Kind::unknown;
  read.message = "'" + std::string(word) + "' is not a flag Hydra knows: main_ppo stops with \"unrecognized arguments\"" +
                 std::string(dashed && has_value ? "; Hydra overrides are written without leading dashes" : "");
  return read;
}

}  // namespace meshplan
