#include "core/result.hpp"

namespace meshplan {

std::string Error::to_string() const {
  std::string text;
  if (!file.empty()) {
    text += file;
    if (line > 0) text += ":" + std::to_string(line);
    text += ": ";
  }
  if (!key.empty()) text += key + ": ";
  text += message;
  return text;
}

}  // namespace meshplan
