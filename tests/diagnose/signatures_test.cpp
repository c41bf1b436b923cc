#include <doctest/doctest.h>

#include "core/std_regex.hpp"
#include <set>
#include <sstream>
#include <string>

#include "diagnose/log_scanner.hpp"
#include "diagnose/phase.hpp"
#include "diagnose/signature.hpp"
#include "test_support.hpp"

namespace meshplan {

TEST_CASE("every category the issue names exists, with fixes") {
  for (const char* id : {"oom_training", "oom_rollout", "rollout_memory_budget", "host_oom", "nccl_timeout",
                         "nccl_network", "device_visibility", "parallel_mismatch", "batch_config", "config_key",
                         "checkpoint_mismatch", "sequence_length", "resources", "bottleneck_generation",
                         "bottleneck_training", "bottleneck_data", "unclassified", "environment", "cuda_fault",
                         "nccl_hang"}) {
    CAPTURE(id);
    const Category* category = find_category(id);
    REQUIRE(category != nullptr);
    CHECK_FALSE(category->fixes.empty());
  }
  CHECK(find_category("no_such_category") == nullptr);
}

TEST_CASE("signature ids are unique, categories known, regex groups match the captures") {
  std::set<std::string_view> ids;
  for (const Signature& signature : signatures()) {
    CAPTURE(signature.id);
    CHECK(ids.insert(signature.id).second);
    CHECK(find_category(signature.category) != nullptr);
    if (signature.match == MatchKind::literal) {
      REQUIRE_FALSE(signature.literals.empty());
      CHECK(signature.literals.front().size() >= 11);  // the anchor feeds the scanner's window filter
    } else {
      CHECK(signature.literals.empty());  // shape signatures see only error lines, by their regex
    }
    CHECK_FALSE(signature.summary.empty());
    CHECK_FALSE(signature.example.empty());
    for (const PhaseRule& rule : signature.phase_rules) CHECK(find_category(rule.category) != nullptr);
    if (signature.pattern.empty()) {
      CHECK(signature.captures.empty());
    } else if (signature.match == MatchKind::literal) {  // shape regexes group alternatives, capture nothing
      const std::regex pattern(signature.pattern.begin(), signature.pattern.end());
      CHECK(pattern.mark_count() == signature.captures.size());
    }
  }
}

TEST_CASE("phase markers are unique, long enough for the window filter, and in known groups") {
  std::set<std::string_view> literals;
  for (const PhaseMarker& marker : phase_markers()) {
    CAPTURE(marker.literal);
    CHECK(literals.insert(marker.literal).second);
    CHECK(marker.literal.size() >= 11);
    CHECK(phase_group(marker.phase) == marker.group);
    const std::set<std::string_view> groups = {"training", "rollout", "checkpoint", "startup"};
    CHECK(groups.count(marker.group) == 1);
  }
}

// The test each signature carries: its example line, alone in a log, is found as that signature,
// and every number its regex names is read from it.
TEST_CASE("every signature matches its own example line and reads its numbers") {
  const auto all = signatures();
  for (std::size_t index = 0; index < all.size(); ++index) {
    const Signature& signature = all[index];
    CAPTURE(signature.id);
    LogScanner scanner;
    // A shape signature's example is an error line; the log ending in it shows the NCCL hang too.
    const std::string after = signature.match == MatchKind::shape ? "" : "and after\n";
    std::istringstream log("some noise before\n" + std::string(signature.example) + "\n" + after);
    REQUIRE(scanner.scan(log, "example.log").ok());
    const auto& events = scanner.output().events;
    REQUIRE(events.size() == 1);
    CHECK(events[0].signature == index);
    CHECK(events[0].line == 2);
    if (signature.pattern.empty()) continue;
    for (const Capture& capture : signature.captures) {
      // Optional groups (the OOM message's allocator details, the watchdog's numel) are in the examples.
      CAPTURE(capture.name);
      CHECK(events[0].numbers.count(std::string(capture.name)) == 1);
    }
  }
}

TEST_CASE("docs/tour/diagnose.md counts the signatures as the tables have them") {
  std::size_t literal = 0;
  for (const Signature& signature : signatures()) literal += signature.match == MatchKind::literal ? 1 : 0;
  const std::string doc = test::file_text(test::source_dir() / "docs/tour/diagnose.md");
  CHECK(doc.find("`src/diagnose/signatures_*.cpp`, " + std::to_string(signatures().size()) + "\nin all") !=
        std::string::npos);
  CHECK(doc.find("**literal** signatures (" + std::to_string(literal) + ")") != std::string::npos);
  CHECK(doc.find("**shape** signatures (" + std::to_string(signatures().size() - literal) + ")") != std::string::npos);
}

}  // namespace meshplan
