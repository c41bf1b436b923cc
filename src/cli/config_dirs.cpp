#include "cli/config_dirs.hpp"

#include <algorithm>
#include <vector>

#include "cli/command.hpp"
#include "verl/hydra/hydra_main.hpp"

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

// The script's directory and each directory above it up to the repository root (`.git`).
std::vector<std::filesystem::path> script_bases(const std::filesystem::path& script) {
  std::error_code ec;
  std::vector<std::filesystem::path> bases;
  for (std::filesystem::path dir = std::filesystem::absolute(script, ec).parent_path(); !ec && !dir.empty();
       dir = dir.parent_path()) {
    bases.push_back(dir);
    if (std::filesystem::exists(dir / ".git", ec) || dir == dir.parent_path()) break;
  }
  return bases;
}

// `recipe.dapo.main_dapo` -> recipe/dapo/main_dapo.py; a path stays as written.
std::filesystem::path entry_file_of(const std::string& entry) {
  if (entry.ends_with(".py")) return std::filesystem::path(entry);
  std::string path = entry;
  for (char& c : path) {
    if (c == '.') c = '/';
  }
  return std::filesystem::path(path + ".py");
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
  const std::vector<std::filesystem::path> bases = script_bases(script);
  for (std::size_t first = 0; first < tail.size(); ++first) {
    std::filesystem::path suffix;
    for (std::size_t i = first; i < tail.size(); ++i) suffix /= tail[i];
    for (const std::filesystem::path& base : bases) {
      if (holds_yaml(base / suffix)) return read_found(base / suffix);
    }
  }
  return std::nullopt;
}

std::optional<EntryPointConfig> find_entry_point_config(const std::filesystem::path& script,
                                                       const std::filesystem::path& repository,
                                                       const std::filesystem::path& verl_package,
                                                       const std::string& entry, const std::string& config_path) {
  if (entry.empty() || entry.find_first_of("$`") != std::string::npos) return std::nullopt;
  const std::filesystem::path written = entry_file_of(entry);
  // (the file, the package it is part of: `verl_tool/` for verl_tool.trainer.main_ppo, whose
  // agent loops and reward managers it imports from verl_tool/agent_loop and verl_tool/workers)
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> candidates;
  if (written.is_absolute()) {
    candidates.emplace_back(written, written.parent_path());
  } else {
    std::vector<std::filesystem::path> bases = script_bases(script);
    if (!repository.empty()) bases.push_back(repository);
    const std::filesystem::path top = *written.begin();
    for (const std::filesystem::path& base : bases) {
      candidates.emplace_back(base / written, top == written ? base : base / top);
    }
  }
  std::error_code ec;
  for (const auto& [file, package] : candidates) {
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    auto text = read_text_file(file.string());
    if (!text.ok()) return std::nullopt;
    const auto hydra = read_hydra_main(text.value());
    if (!hydra) return std::nullopt;
    const std::filesystem::path own = file.parent_path() / (config_path.empty() ? hydra->config_path : config_path);
    std::optional<LaunchConfigDirectory> directory;
    if (config_path.find_first_of("$`") == std::string::npos && holds_yaml(own)) {
      directory = read_found(own);
    } else if (!config_path.empty()) {
      directory = find_launch_config_dir(script, verl_package, config_path);
    }
    if (!directory) return std::nullopt;
    EntryPointConfig found{file.lexically_normal().string(), hydra->config_name, std::move(*directory), {}};
    constexpr std::size_t kMostSources = 5000;  // a bound on what a repository's package may hold
    for (auto it = std::filesystem::recursive_directory_iterator(package, ec);
         !ec && it != std::filesystem::recursive_directory_iterator() && found.package_sources.size() < kMostSources;
         it.increment(ec)) {
      if (it->path().filename().string().starts_with(".")) {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() != ".py" || !it->is_regular_file(ec)) continue;
      auto source = read_text_file(it->path().string());
      if (source.ok()) {
        found.package_sources[std::filesystem::relative(it->path(), package).generic_string()] =
            std::move(source.value());
      }
    }
    return found;
  }
  return std::nullopt;
}

}  // namespace meshplan
