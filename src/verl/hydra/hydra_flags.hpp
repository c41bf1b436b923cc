#pragma once
// The flags of Hydra's own command line (hydra/_internal/utils.py get_args_parser, Hydra 1.3) and
// how argparse reads a word that starts with '-': ArgumentParser's allow_abbrev (on by default)
// takes `--config-n` for `--config-name` when one flag starts with it, and refuses `--config`
// ("ambiguous option: --config could match --config-path, --config-name, --config-dir").
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

/// Hydra's long flags that `arg` (up to any '=') names: itself when it is one, else every flag it
/// abbreviates. Empty when it names none (or is not a long flag).
std::vector<std::string_view> hydra_long_flags_named(std::string_view arg);

/// What Hydra's argument parser makes of one word of a launch that starts with '-'.
struct HydraFlagRead {
  enum class Kind { not_a_flag, hydra, unknown, ambiguous };
  Kind kind = Kind::not_a_flag;
  std::string flag;          ///< hydra: the long flag the word names
  bool takes_value = false;  ///< hydra: the next word is its value (the word has no '=')
  std::string message;       ///< unknown / ambiguous: why main_ppo stops
};

/// An override written with dashes (`--data.x=1`) is unknown to Hydra, as is any other word
/// starting with '-' that names none of its flags.
HydraFlagRead read_hydra_flag(std::string_view word);

}  // namespace meshplan
