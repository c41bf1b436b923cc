#include "verl/hydra/hydra_main.hpp"

#include <cctype>

namespace meshplan {
namespace {

// The string literal given to `name=` in the argument list, if it is one.
std::optional<std::string> literal_argument(std::string_view arguments, std::string_view name) {
  for (std::size_t at = arguments.find(name); at != std::string_view::npos; at = arguments.find(name, at + 1)) {
    const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(arguments[at - 1])) != 0 ||
                                         arguments[at - 1] == '_');
    std::size_t k = at + name.size();
    while (k < arguments.size() && arguments[k] == ' ') ++k;
    if (!word_start || k >= arguments.size() || arguments[k] != '=') continue;
    ++k;
    while (k < arguments.size() && std::isspace(static_cast<unsigned char>(arguments[k])) != 0) ++k;
    if (k >= arguments.size() || (arguments[k] != '"' && arguments[k] != '\'')) return std::nullopt;
    const char quote = arguments[k];
    const std::size_t end = arguments.find(quote, k + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(arguments.substr(k + 1, end - k - 1));
  }
  return std::nullopt;
}

}  // namespace

std::optional<HydraMain> read_hydra_main(std::string_view python_text) {
  constexpr std::string_view kDecorator = "@hydra.main(";
  std::size_t line_start = 0;
  while (line_start < python_text.size()) {
    std::size_t line_end = python_text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = python_text.size();
    std::size_t k = line_start;
    while (k < line_end && (python_text[k] == ' ' || python_text[k] == '\t')) ++k;
    if (python_text.substr(k, kDecorator.size()) == kDecorator) {
      // The arguments up to the matching parenthesis (they may span lines).
      int depth = 1;
      std::size_t end = k + kDecorator.size();
      for (; end < python_text.size() && depth > 0; ++end) {
        if (python_text[end] == '(') ++depth;
        if (python_text[end] == ')') --depth;
      }
      const std::string_view arguments = python_text.substr(k + kDecorator.size(), end - k - kDecorator.size());
      auto path = literal_argument(arguments, "config_path");
      auto name = literal_argument(arguments, "config_name");
      if (!path || !name) return std::nullopt;
      if (name->ends_with(".yaml")) name->resize(name->size() - 5);
      return HydraMain{std::move(*path), std::move(*name)};
    }
    line_start = line_end + 1;
  }
  return std::nullopt;
}

}  // namespace meshplan
