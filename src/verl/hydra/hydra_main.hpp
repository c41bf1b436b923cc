#pragma once
// The @hydra.main decorator of a trainer entry point's Python source, read as text (never run):
// which config Hydra composes for it and from which directory.
#include <optional>
#include <string>
#include <string_view>

namespace meshplan {

struct HydraMain {
  std::string config_path;  ///< as written, relative to the entry point's file (Hydra 1.3 main.py)
  std::string config_name;  ///< without .yaml
};

/// The first live `@hydra.main(config_path="...", config_name="...")` of `python_text`; none when
/// there is none or either argument is not a string literal (an expression, None).
std::optional<HydraMain> read_hydra_main(std::string_view python_text);

}  // namespace meshplan
