#include <doctest/doctest.h>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("meshplan without a subcommand is bad input (exit 2)") {
  const test::CliRun run = test::run({});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("subcommand") != std::string::npos);
}

TEST_CASE("an unknown subcommand or flag is bad input (exit 2)") {
  CHECK(test::run({"frobnicate"}).exit_code == 2);
  CHECK(test::run({"--no-such-flag"}).exit_code == 2);
}

TEST_CASE("--help succeeds and lists the subcommands") {
  const test::CliRun run = test::run({"--help"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("model") != std::string::npos);
}

}  // namespace meshplan
