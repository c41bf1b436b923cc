// Numbers in messages print as people write them: an option's limits as integers or short
// decimals, never std::to_string's 6-decimal doubles or DBL_MAX's 309 digits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>

#include "cli/number_checks.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("short_number: integers when whole, else up to 6 significant digits") {
  CHECK(short_number(0) == "0");
  CHECK(short_number(100000000) == "100000000");
  CHECK(short_number(0.01) == "0.01");
  CHECK(short_number(0.1) == "0.1");
  CHECK(short_number(1.0 / 3.0) == "0.333333");
  CHECK(short_number(1e300) == "1e+300");
}

TEST_CASE("refused option values name their limits briefly") {
  const std::vector<std::string> base = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB"};
  const auto run_with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run(args);
  };
  const test::CliRun tp = run_with({"--tp", "0"});
  CHECK(tp.exit_code == 2);
  CHECK(tp.err.find("Value 0 is not greater than 0") != std::string::npos);
  const test::CliRun fraction = run_with({"--optimizer-offload-fraction", "2"});
  CHECK(fraction.exit_code == 2);
  CHECK(fraction.err.find("Value 2 is not between 0 and 1") != std::string::npos);
  const test::CliRun lora = run_with({"--lora-rank", "-1"});
  CHECK(lora.exit_code == 2);
  // No number in any of these messages is longer than 12 characters.
  for (const auto& run : {tp, fraction, lora}) {
    std::size_t longest = 0, current = 0;
    for (const char c : run.err) {
      current = (std::isdigit(static_cast<unsigned char>(c)) || c == '.') ? current + 1 : 0;
      longest = std::max(longest, current);
    }
    CHECK(longest <= 12);
  }
}

}  // namespace meshplan
