#include "data/embedded.hpp"

namespace meshplan {

std::optional<std::string_view> embedded_file(std::string_view path) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) return file.contents;
  }
  return std::nullopt;
}

}  // namespace meshplan
