// Training runs that Megatron-Bridge's model verification cards record
// (examples/model_verification_cards/<model>/card.yaml): each item a command (`--recipe <name>` with
// its overrides), the Bridge commit it ran at and the mean of its last 10 steps. No constant was fit
// on them. Each row carries its recipe's settings as read at that commit
// (tests/fixtures/published_runs_bridge_cards.json, every row's notes cite the recipe's file and
// lines): the performance recipes (mock data, forced routing) and the functional runs (RedPajama-2
// text, natural routing, NaN and large-gradient checks, checkpoints at steps 50 and 100), Qwen3-8B,
// Qwen3-30B-A3B, Qwen3-235B-A22B, Moonlight-16B-A3B, GPT-OSS-20B and -120B and DeepSeek-V3 on H100,
// GB200 and GB300, and Qwen3-30B-A3B's weak scaling on 8 to 256 GB300.
#include <doctest/doctest.h>

#include <sstream>

#include "fixture_source.hpp"

namespace meshplan {
namespace {

TEST_CASE("Megatron-Bridge's verification cards: training runs held out of the fit") {
  std::ostringstream table;
  const auto errors = test::fixture_errors_by_group("published_runs_bridge_cards.json", table);
  test::check_source_figures("bridge-cards", errors, table);
  MESSAGE(table.str());
}

}  // namespace
}  // namespace meshplan
