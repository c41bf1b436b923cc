#include "cli/command.hpp"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

namespace meshplan {

void CommandContext::fail(const Error& error) {
  err << "meshplan: error: " << error.to_string() << "\n";
  exit_code = 2;
}

Result<std::string> read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error{path, 0, "", "is a directory, expected a file"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "", "cannot open file (missing or unreadable)"};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{path, 0, "", "read error"};
  return text.str();
}

}  // namespace meshplan
