#include "diagnose/constructor_error.hpp"

#include <cctype>

namespace meshplan {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// The last `Name(` on the line whose name starts with an upper-case letter; "" when none.
std::string_view last_class_call(std::string_view code) {
  std::string_view found;
  for (std::size_t paren = code.find('('); paren != std::string_view::npos; paren = code.find('(', paren + 1)) {
    std::size_t begin = paren;
    while (begin > 0 && is_name_char(code[begin - 1])) --begin;
    if (begin == paren || std::isupper(static_cast<unsigned char>(code[begin])) == 0) continue;
    found = code.substr(begin, paren - begin);
  }
  return found;
}

}  // namespace

std::string_view qualify_bare_init_error(std::string_view line, std::string_view previous, std::string& out) {
  constexpr std::string_view kBare = "TypeError: __init__() ";
  const std::size_t at = line.find(kBare);
  if (at == std::string_view::npos) return line;
  // A traceback frame's header (`File "x.py", line 3, in f`) is not the code line.
  const std::size_t code = previous.find_first_not_of(" \t");
  if (code == std::string_view::npos || previous.substr(code).starts_with("File \"")) return line;
  const std::string_view name = last_class_call(previous.substr(code));
  if (name.empty()) return line;
  const std::size_t init = at + kBare.size() - std::string_view("__init__() ").size();
  out.assign(line.substr(0, init));
  out.append(name).append(".").append(line.substr(init));
  return out;
}

}  // namespace meshplan
