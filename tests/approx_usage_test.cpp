// Every floating-point comparison of the suite is relative (tests/approx.hpp): a raw doctest
// Approx with its default scale of 1 is an absolute tolerance for the small quantities this
// project computes, and let a mutant through that tripled nothing but a term of 3e-4 s
// (tools/mutate.py time.mtp-backward, session 20).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

TEST_CASE("the tests compare floating-point results through test::approx, never a raw doctest Approx") {
  const std::string raw = std::string("doctest::") + "Approx(";  // split: this file is scanned too
  std::vector<std::string> offenders;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(test::source_dir() / "tests")) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp")) continue;
    if (entry.path().filename() == "approx.hpp") continue;
    ++files;
    if (test::file_text(entry.path()).find(raw) != std::string::npos) offenders.push_back(entry.path().string());
  }
  CHECK(files > 100);
  for (const std::string& file : offenders) FAIL_CHECK(file << " compares with a raw doctest Approx: use test::approx");
}

TEST_CASE("test::approx is relative: a small result is held to its own size, and 0 to 0") {
  // 2.76e-4 against 6.34e-4 (the MTP mutant above): equal under doctest's default scale of 1 at
  // epsilon 1e-3, not under test::approx.
  doctest::Approx trap(6.34e-4);  // the trap test::approx closes
  trap.epsilon(1e-3);
  CHECK(2.76e-4 == trap);
  CHECK(2.76e-4 != test::approx(6.34e-4).epsilon(1e-3));
  CHECK(6.3396e-4 == test::approx(6.34e-4).epsilon(1e-3));
  CHECK(1e-12 == test::approx(1.0000001e-12));
  CHECK(0.0 == test::approx(0.0));
  CHECK(1e-300 != test::approx(0.0));
}

}  // namespace
}  // namespace meshplan
