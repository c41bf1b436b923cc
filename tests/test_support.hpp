#pragma once
// Helpers shared by the tests: the repository's paths, the optional ../shared folder, and
// running the CLI in-process with captured output.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace meshplan::test {

/// The repository root (where CMakeLists.txt is).
inline std::filesystem::path source_dir() { return MESHPLAN_SOURCE_DIR; }

/// A file of the project's own test fixtures: tests/fixtures/<relative>.
inline std::filesystem::path fixture(const std::string& relative) {
  return source_dir() / "tests" / "fixtures" / relative;
}

/// Marks the running test case as skipped: the runner (tests/main.cpp) lists it in the summary
/// and never counts it as passed.
void mark_skipped();

/// ../shared/<relative> beside the repository, or nullopt (a user's clone has no ../shared):
/// callers return at once, e.g. `auto p = shared_file("models/INDEX.json"); if (!p) return;`,
/// and the test case is reported as skipped.
inline std::optional<std::filesystem::path> shared_file(const std::string& relative) {
  const std::filesystem::path path = source_dir().parent_path() / "shared" / relative;
  if (std::filesystem::exists(path)) return path;
  MESSAGE("skipped: ../shared/" << relative << " is absent (only the team's checkout has ../shared)");
  mark_skipped();
  return std::nullopt;
}

/// The whole text of a file the test needs (a fixture, a ../shared file); fails the test when
/// the file cannot be opened.
inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.is_open(), "cannot open " << path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct CliRun {
  int exit_code = 0;
  std::string out;
  std::string err;
};

/// Runs `meshplan args...` in-process.
inline CliRun run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, out, err, false);
  return CliRun{code, out.str(), err.str()};
}

/// Writes `text` to a temporary script named after `name` and the process, runs `meshplan check`
/// on it with `--model model`, removes it.
inline CliRun check_script(const std::string& text, const std::string& model, const std::string& name) {
  const std::filesystem::path script = std::filesystem::temp_directory_path() /
                                       ("meshplan_" + name + "_" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << text;
  CliRun check = run({"check", script.string(), "--model", model});
  std::filesystem::remove(script);
  return check;
}

}  // namespace meshplan::test
