// Every input a fuzz run found (or a crash report gave), kept in tests/fixtures/fuzz/<target>/,
// replayed through the same parser call as the fuzz target (fuzz/fuzz_targets.cpp). Passing means
// no crash, hang or sanitizer report; `make test-asan` runs them under ASan + UBSan.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "fuzz_targets.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("saved fuzz findings and crash inputs replay without a crash") {
  const auto root = test::fixture("fuzz");
  int replayed = 0;
  for (const auto& folder : std::filesystem::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    const std::string target = folder.path().filename().string();
    for (const auto& file : std::filesystem::directory_iterator(folder.path())) {
      CAPTURE(file.path().string());
      CHECK(fuzz::run_target(target, test::file_text(file.path())));
      ++replayed;
    }
  }
  CHECK(replayed >= 11);  // issue 19's six crash inputs and the fuzz runs' five findings
}

}  // namespace meshplan
