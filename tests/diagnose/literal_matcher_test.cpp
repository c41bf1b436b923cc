#include <doctest/doctest.h>

#include <map>

#include "diagnose/literal_matcher.hpp"

namespace meshplan {

TEST_CASE("LiteralMatcher finds overlapping literals (Aho & Corasick 1975, Fig. 1: he, she, his, hers)") {
  const LiteralMatcher matcher({"he", "she", "his", "hers"});
  std::map<std::uint32_t, int> found;
  matcher.scan("ushers", [&](std::uint32_t id) { ++found[id]; });
  // The paper's example: "ushers" contains she (ending at 4), he (ending at 4) and hers (ending at 6).
  CHECK(found == std::map<std::uint32_t, int>{{0, 1}, {1, 1}, {3, 1}});
}

TEST_CASE("LiteralMatcher reports every occurrence and nothing for absent literals") {
  const LiteralMatcher matcher({"out of memory", "NCCL", ""});
  std::map<std::uint32_t, int> found;
  matcher.scan("NCCL WARN: out of memory ... NCCL", [&](std::uint32_t id) { ++found[id]; });
  CHECK(found == std::map<std::uint32_t, int>{{0, 1}, {1, 2}});
  int none = 0;
  matcher.scan("a perfectly ordinary line", [&](std::uint32_t) { ++none; });
  CHECK(none == 0);
}

}  // namespace meshplan
