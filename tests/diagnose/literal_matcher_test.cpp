#include <doctest/doctest.h>

#include <map>
#include <string>

#include "diagnose/literal_matcher.hpp"

namespace meshplan {

TEST_CASE("LiteralMatcher finds overlapping literals (Aho & Corasick 1975, Fig. 1: he, she, his, hers)") {
  const LiteralMatcher matcher({"he", "she", "his", "hers"});
  std::map<std::uint32_t, int> found;
  matcher.scan("ushers", [&](std::uint32_t id) { ++found[id]; });
  // The paper's example: "ushers" contains she (ending at 4), he (ending at 4) and hers (ending at 6).
  CHECK(found == std::map<std::uint32_t, int>{{0, 1}, {1, 1}, {3, 1}});
}

TEST_CASE("LiteralMatcher's window filter passes lines with an anchor and reports other literals only there") {
  const LiteralMatcher matcher({"CUDA out of memory", "GiB"}, {true, false});
  CHECK(matcher.filters());
  CHECK(matcher.may_match("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB"));
  CHECK_FALSE(matcher.may_match("Loading weights took 14.99 GiB"));
  int found = 0;
  matcher.scan("Loading weights took 14.99 GiB", [&](std::uint32_t) { ++found; });
  CHECK(found == 0);  // no anchor on the line
  matcher.scan("CUDA out of memory: 2 GiB", [&](std::uint32_t) { ++found; });
  CHECK(found == 2);
  CHECK_FALSE(LiteralMatcher({"he", "she"}).filters());  // anchors under 11 bytes: no window filter
  // Wherever the anchor sits, the strided filter sees it.
  for (std::size_t pad = 0; pad < 8; ++pad) {
    CHECK(matcher.may_match(std::string(pad, '.') + "CUDA out of memory"));
  }
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
