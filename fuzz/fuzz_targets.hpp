#pragma once
// Every parser meshplan runs on text a user hands it, as one function per fuzz target. The
// libFuzzer executables (fuzz/*_fuzz.cpp) call one each; the normal tests replay every saved
// finding through the same function (tests/core/fuzz_regression_test.cpp). A parser may refuse
// its input (an Error value) but must never crash, hang or leak.
#include <string_view>
#include <vector>

namespace meshplan::fuzz {

struct Target {
  std::string_view name;  ///< fuzz/<name>_fuzz.cpp, tests/fixtures/fuzz/<name>/
  void (*run)(std::string_view input);
};

const std::vector<Target>& targets();

/// Runs target `name` on `input`; false when no target has that name.
bool run_target(std::string_view name, std::string_view input);

}  // namespace meshplan::fuzz
