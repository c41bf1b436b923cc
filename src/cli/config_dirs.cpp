#include "cli/config_dirs.hpp"

#include <algorithm>
#include <vector>

#include "cli/command.hpp"

namespace meshplan {
namespace {

bool holds_yaml(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return false;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") return true;
  }
  return false;
}

std::optional<LaunchConfigDirectory> read_found(const std::filesystem::path& dir) {
  auto texts = read_config_dir(dir.string());
  if (!texts.ok()) return std::nullopt;
  return LaunchConfigDirectory{dir.lexically_normal().string(), std::move(texts.value())};
}

}  // namespace

Result<std::map<std::string, std::string>> read_config_dir(const std::string& dir) {
  std::map<std::string, std::string> texts;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    if (path.extension() != ".yaml") continue;
    auto text = read_text_file(path.string());
    if (!text.ok()) return text.error();
    std::string name = std::filesystem::relative(path, dir).replace_extension().generic_string();
    texts[name] = std::move(text.value());
  }
  if (ec) return Error{dir, 0, "--verl-config", "cannot read the directory: " + ec.message()};
  if (texts.empty()) return Error{dir, 0, "--verl-config", "no *.yaml config in the directory"};
  return texts;
}

std::optional<LaunchConfigDirectory> find_launch_config_dir(const std::filesystem::path& script,
                                                            const std::filesystem::path& verl_package,
                                                            const std::string& written) {
  if (written.empty()) return std::nullopt;
  const bool unknown_part = written.find_first_of("$`") != std::string::npos;
  const std::filesystem::path as_written(written);
  if (!unknown_part && as_written.is_absolute() && holds_yaml(as_written)) return read_found(as_written);
  if (!unknown_part && as_written.is_relative() && !verl_package.empty() &&
      holds_yaml(verl_package / "trainer" / as_written)) {
    return read_found(verl_package / "trainer" / as_written);
  }
  // The components after the last one the script does not fix.
  std::vector<std::string> tail;
  std::size_t start = 0;
  while (start <= written.size()) {
    const std::size_t slash = std::min(written.find('/', start), written.size());
    const std::string part = written.substr(start, slash - start);
    if (part.find_first_of("$`") != std::string::npos) {
      tail.clear();
    } else if (!part.empty() && part != ".") {
      tail.push_back(part);
    }
    start = slash + 1;
  }
  if (tail.empty()) return std::nullopt;
  std::error_code ec;
  std::vector<std::filesystem::path> bases;
  for (std::filesystem::path dir = std::filesystem::absolute(script, ec).parent_path(); !ec && !dir.empty();
       dir = dir.parent_path()) {
    bases.push_back(dir);
    if (std::filesystem::exists(dir / ".git", ec) || dir == dir.parent_path()) break;
  }
  for (std::size_t first = 0; first < tail.size(); ++first) {
    std::filesystem::path suffix;
    for (std::size_t i = first; i < tail.size(); ++i) suffix /= tail[i];
    for (const std::filesystem::path& base : bases) {
      if (holds_yaml(base / suffix)) return read_found(base / suffix);
    }
  }
  return std::nullopt;
}

}  // namespace meshplan
