#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "diagnose/line_reader.hpp"

namespace meshplan {

namespace {
std::vector<std::string> read_all(const std::string& text, std::size_t max_line) {
  std::istringstream in(text);
  LineReader reader(in, max_line);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) lines.emplace_back(line);
  return lines;
}
}  // namespace

TEST_CASE("LineReader splits lines, keeps empty ones and the last line without a newline") {
  CHECK(read_all("a\n\nbc\nlast", 1024) == std::vector<std::string>{"a", "", "bc", "last"});
  CHECK(read_all("", 1024).empty());
  CHECK(read_all("only\n", 1024) == std::vector<std::string>{"only"});
}

TEST_CASE("LineReader cuts an over-long line, skips its tail and keeps counting lines") {
  const std::string huge(3'000'000, 'x');  // longer than the 1 MiB buffer
  std::istringstream in("first\n" + huge + "\nafter\n");
  LineReader reader(in, 100);
  std::string_view line;
  REQUIRE(reader.next(line));
  CHECK(line == "first");
  REQUIRE(reader.next(line));
  CHECK(line.size() == 100);
  CHECK(reader.line_number() == 2);
  REQUIRE(reader.next(line));
  CHECK(line == "after");
  CHECK(reader.line_number() == 3);
  CHECK_FALSE(reader.next(line));
}

TEST_CASE("LineReader handles lines that straddle its buffer boundary") {
  std::string text;
  for (int i = 0; i < 200'000; ++i) text += "line number " + std::to_string(i) + "\n";  // ~3.4 MB
  const auto lines = read_all(text, 1024);
  REQUIRE(lines.size() == 200'000);
  CHECK(lines[123'456] == "line number 123456");
  CHECK(lines.back() == "line number 199999");
}

}  // namespace meshplan
