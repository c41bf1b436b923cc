#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/text.hpp"

namespace meshplan {

TEST_CASE("edit_distance counts insertions, deletions and substitutions") {
  CHECK(edit_distance("kitten", "sitting") == 3);  // the textbook example
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("same", "same") == 0);
}

TEST_CASE("nearest_match suggests close candidates only, case-insensitively") {
  const std::vector<std::string> gpus{"A100-40GB", "A100-80GB", "H100-80GB", "V100-32GB"};
  CHECK(nearest_match("a100-80gb", gpus) == std::optional<std::string>("A100-80GB"));
  CHECK(nearest_match("A100-80G", gpus) == std::optional<std::string>("A100-80GB"));
  CHECK_FALSE(nearest_match("TPUv5", gpus).has_value());
}

TEST_CASE("line numbers come from byte offsets and JSON keys") {
  const std::string text = "{\n  \"a\": 1,\n  \"hidden_size\": 2\n}";
  CHECK(line_of_offset(text, 0) == 1);
  CHECK(line_of_json_key(text, "hidden_size") == 3);
  CHECK(line_of_json_key(text, "absent") == 0);
}

TEST_CASE("Error::to_string names file, line and key when known") {
  CHECK(Error{"config.json", 3, "hidden_size", "must be positive"}.to_string() ==
        "config.json:3: hidden_size: must be positive");
  CHECK(Error{"", 0, "--tp", "must divide 28"}.to_string() == "--tp: must divide 28");
  CHECK(Error{"x.yaml", 0, "", "cannot open file"}.to_string() == "x.yaml: cannot open file");
}

}  // namespace meshplan
