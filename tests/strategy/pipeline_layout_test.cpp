// Megatron-core's custom pipeline layout (strategy/pipeline_layout.hpp), against
// megatron/core/transformer/pipeline_parallel_layer_layout.py at d98e8a64dd: its docstring's
// example, the five DeepSeek-V3 layouts of Megatron-Bridge's recipes (per-rank decoder counts
// worked by hand: stage i on PP rank i % PP) and each refusal of validate_layer_layout.
#include <doctest/doctest.h>

#include "strategy/pipeline_layout.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

std::vector<std::int64_t> ranks(const std::string& text, int pp) {
  const auto layout = parse_pipeline_layout(text);
  REQUIRE_MESSAGE(layout.ok(), layout.error().message);
  return layout_rank_layers(*layout, pp);
}

std::string refusal(const std::string& text, int pp, std::int64_t layers, int mtp, int vpp = 0) {
  const auto layout = parse_pipeline_layout(text);
  if (!layout) return layout.error().message;
  return pipeline_layout_error(*layout, pp, vpp, layers, mtp).value_or("");
}

TEST_CASE("parse_str_to_list: Megatron's own example and the unrolling rules") {
  // "Ettt|(tt|)*29,m|L" -> [E,t,t,t] + [t,t] x 29 + [m] + [L]: 32 stages, 3 + 58 = 61 decoder layers.
  const auto layout = parse_pipeline_layout("Ettt|(tt|)*29,m|L");
  REQUIRE(layout.ok());
  CHECK(layout->stages.size() == 32);
  CHECK(layout->stages.front().embedding == 1);
  CHECK(layout->stages.front().decoder == 3);
  CHECK(layout->stages[30].mtp == 1);
  CHECK(layout->stages[31].loss == 1);
  CHECK(layout->flat == "E" + std::string(61, 't') + "mL");
  // "(|ab)*2,cd -> |ab|abcd" in Megatron's comment: a group may start with '|'.
  CHECK(parse_pipeline_layout("E(|t)*2L")->stages.size() == 3);
  // "x*n" after the groups: "t*4*2" leaves "*2", not a layer character.
  CHECK(parse_pipeline_layout("Et*4*2|L").error().message.find("Invalid layer character: *") != std::string::npos);
  CHECK(parse_pipeline_layout("Ex|L").error().message.find("Invalid layer character: x") != std::string::npos);
  // A layout that unrolls beyond a million layers is refused, not built.
  CHECK_FALSE(parse_pipeline_layout("E(t*100000|)*100000L").ok());
  CHECK_FALSE(parse_pipeline_layout("Et*99999999999999999999L").ok());
}

TEST_CASE("the DeepSeek-V3 layouts of Megatron-Bridge's recipes: decoder layers per PP rank") {
  // gb300 26.02-26.08: 16 stages on PP 2 (VPP 8): rank 0 holds chunks 0, 2, ..., 14 (8 x 4), rank 1
  // chunks 1, ..., 13 (7 x 4) and the last (1 + MTP + loss).
  const std::string sixteen = "Et*4|(t*4|)*14tmL";
  CHECK(ranks(sixteen, 2) == std::vector<std::int64_t>{32, 29});
  CHECK(layout_vpp(*parse_pipeline_layout(sixteen), 2) == 8);
  CHECK(ranks(sixteen, 4) == std::vector<std::int64_t>{16, 16, 16, 13});
  CHECK(ranks(sixteen, 8) == std::vector<std::int64_t>{8, 8, 8, 8, 8, 8, 8, 5});
  CHECK(ranks(sixteen, 16) == std::vector<std::int64_t>{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1});
  // b300 26.04.01/26.06: 8 stages [E+8t, 6 x 8t, 5t+m+L] on PP 8.
  CHECK(ranks("Et*8|(t*8|)*6t*5mL", 8) == std::vector<std::int64_t>{8, 8, 8, 8, 8, 8, 8, 5});
  for (int pp : {2, 4, 8, 16}) CHECK(refusal(sixteen, pp, 61, 1).empty());
  // The list form of the recipes is the same layout.
  std::vector<std::vector<std::string>> stages = {{"embedding", "decoder", "decoder", "decoder", "decoder"}};
  for (int i = 0; i < 14; ++i) stages.push_back({"decoder", "decoder", "decoder", "decoder"});
  stages.push_back({"decoder", " MTP ", "loss"});
  CHECK(pipeline_layout_from_names(stages) == "Etttt|" + [] {
    std::string middle;
    for (int i = 0; i < 14; ++i) middle += "tttt|";
    return middle;
  }() + "tmL");
  CHECK(ranks(pipeline_layout_from_names(stages), 16).back() == 1);
}

TEST_CASE("validate_layer_layout's refusals, with Megatron's messages") {
  CHECK(refusal("Et*4|t*4L", 4, 8, 0).find("must be divisible by pipeline_model_parallel_size") != std::string::npos);
  CHECK(refusal("Et*4|t*4L", 2, 8, 0, 2).find("virtual_pipeline_model_parallel_size conflicts") != std::string::npos);
  CHECK(refusal("tE|t*3L", 2, 4, 0) == "The first layer must be embedding");
  CHECK(refusal("Et*4|Lt", 2, 5, 0) == "The last layer must be loss");
  CHECK(refusal("EEt*4|t*4L", 2, 8, 0) == "Embedding must be specified exactly once");
  CHECK(refusal("Et*4|t*3L", 2, 8, 0) == "Number of decoder layers 7 must match num_layers 8");
  CHECK(refusal("Et*4|t*4mL", 2, 8, 0).find("Number of mtp layers in layout (1) must match mtp_num_layers (0)") !=
        std::string::npos);
  CHECK(refusal("Et*4|mt*4L", 2, 8, 1) == "decoder layers must be placed before MTP layers");
  // VPP 2 on PP 2: the MTP in rank 1's first chunk (stage 1), not its last (stage 3).
  CHECK(refusal("Et*4|t*4m||L", 2, 8, 1).find("MTP should be always in the last virtual pipeline stage") !=
        std::string::npos);
  CHECK(refusal("Et*4|t*4mL", 2, 8, 1).empty());
}

TEST_CASE("a layout sets each stage's layers: first, the most loaded middle rank, last") {
  Strategy s;
  s.pp = 8;
  s.pipeline_layout = "Et*6|t*6|t*6|t*5|t*7|t*5|t*5|t*3L";  // 43 layers
  const auto counts = stage_layer_counts(43, s);
  REQUIRE(counts.has_value());
  CHECK(counts->first == 6);
  CHECK(counts->middle == 7);
  CHECK(counts->last == 3);
  CHECK(max_stage_layers(43, s) == 7);
  CHECK_FALSE(stage_layer_counts(44, s).has_value());  // the layout holds 43
  // The planner's own split replaces it.
  apply_balanced_split(s, 43);
  CHECK(s.pipeline_layout.empty());
}

TEST_CASE("layout strings of the grammar's characters in any order never crash the parser") {
  // 20,000 strings of up to 24 characters drawn from the grammar's own (and a stray one), with a
  // fixed linear congruential generator: each parses or is refused, and what parses validates.
  const std::string alphabet = "EtmL|()*,0123456789x";
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t n = next() % 25; n > 0; --n) text += alphabet[next() % alphabet.size()];
    const auto layout = parse_pipeline_layout(text);
    if (!layout) continue;
    ++parsed;
    for (int pp : {1, 2, 3, 4}) {
      (void)pipeline_layout_error(*layout, pp, 0, 4, 0);
      CHECK(layout_rank_layers(*layout, pp).size() == static_cast<std::size_t>(pp));
    }
  }
  CHECK(parsed > 100);
}

}  // namespace
}  // namespace meshplan
