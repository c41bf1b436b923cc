#include "report/table.hpp"

#include <doctest/doctest.h>

namespace meshplan {

TEST_CASE("render_table pads columns to the widest cell and aligns numbers right") {
  const std::string text = render_table({{"id", Align::left}, {"GiB", Align::right}},
                                        {{"A100-40GB", "39.49"}, {"B200", "178.09"}, {"X"}});
  CHECK(text ==
        "id            GiB\n"
        "---------  ------\n"
        "A100-40GB   39.49\n"
        "B200       178.09\n"
        "X\n");
}

TEST_CASE("render_table counts UTF-8 characters, not bytes") {
  const std::string text = render_table({{"a", Align::left}, {"b", Align::left}}, {{"µs", "x"}, {"ab", "y"}});
  CHECK(text == "a   b\n--  -\nµs  x\nab  y\n");
}

}  // namespace meshplan
