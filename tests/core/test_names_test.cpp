// ctest learns the test names from doctest (doctest_discover_tests) and keeps them in a CMake
// list, where ';' separates items: a test name with ';' is registered cut short, matches no
// test and passes without running anything (37 cases were lost that way). No name may hold one.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/std_regex.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("no test name holds a CMake list separator (ctest would register it cut short and run nothing)") {
  const std::filesystem::path tests = test::source_dir() / "tests";
  const std::regex name(R"re(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)")re");
  int names = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tests)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = test::file_text(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
      CAPTURE(entry.path().string());
      CHECK((*it)[1].str().find(';') == std::string::npos);
      ++names;
    }
  }
  CHECK(names > 400);
}

}  // namespace meshplan
