// Megatron-LM's uneven pipeline split flags (--decoder-first/last-pipeline-num-layers) and its
// custom layout (--pipeline-model-parallel-layout).
#include <doctest/doctest.h>

#include "verl/check_support.hpp"

namespace meshplan {
namespace {

CheckReport check_pretrain(const std::string& split_flags) {
  const std::string script =
      "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n"
      "  --num-layers 61 --pipeline-model-parallel-size 8 \\\n"
      "  " + split_flags + "\n";
  auto report = check_launch({InputText{"pretrain.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  return *report;
}

}  // namespace

TEST_CASE("Megatron-LM: an uneven split passes when the middle stages share the rest evenly") {
  // 61 - 6 - 7 = 48 layers over 6 middle stages: 8 each (verl's DeepSeek-V3 example split).
  CHECK(check_pretrain("--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 7").errors == 0);
  // Only the last stage given: 61 - 5 = 56 over the 7 other stages: 8 each.
  CHECK(check_pretrain("--decoder-last-pipeline-num-layers 5").errors == 0);
}

TEST_CASE("Megatron-LM: an uneven split that leaves an uneven rest is an error, no split at all is too") {
  // 61 - 5 - 5 = 51 over 6 middle stages: not whole.
  const CheckReport uneven = check_pretrain("--decoder-first-pipeline-num-layers 5 --decoder-last-pipeline-num-layers 5");
  const auto findings = test::findings_of(uneven, "megatron.pp-layers");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].message.find("--num-layers 61 minus first stage 5 and last stage 5") == 0);
  // 61 % 8 without a split.
  CHECK(test::findings_of(check_pretrain("--micro-batch-size 1"), "megatron.pp-layers").size() == 1);
}

TEST_CASE("Megatron-LM: the embedding and loss stages accounted in the split each count as a layer") {
  // arguments.py validate_args: num_layers += 1 for each --account-for-*-in-pipeline-split. 61 + 1
  // is not a multiple of 8; 61 + 1 + 1 = 63 neither; Megatron-MoE-ModelZoo's Qwen3-235B runs
  // 94 layers on PP 8 with both (96): fits, where 94 % 8 alone does not.
  const auto embedding = test::findings_of(check_pretrain("--account-for-embedding-in-pipeline-split"),
                                           "megatron.pp-layers");
  REQUIRE(embedding.size() == 1);
  CHECK(embedding[0].message.find("--num-layers 61 plus 1 for the embedding / loss stage accounted in the split = 62") ==
        0);
  const std::string qwen3_235b =
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 94 --pipeline-model-parallel-size 8 \\\n"
      "  --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split\n";
  auto report = check_launch({InputText{"pretrain.sh", qwen3_235b}}, CheckOptions{});
  REQUIRE(report.ok());
  CHECK(test::findings_of(*report, "megatron.pp-layers").empty());
}

TEST_CASE("Megatron-LM: --pipeline-model-parallel-layout replaces the even split, checked as Megatron-core does") {
  // 61 layers on PP 8: no even split, but the layout 8 x 7 + 5 (with the MTP layer) is Megatron's.
  const std::string layout = "--pipeline-model-parallel-layout 'Et*8|(t*8|)*6t*5mL'";
  CHECK(check_pretrain(layout + " --mtp-num-layers 1").errors == 0);
  // Without --mtp-num-layers the 'm' is one MTP layer too many (validate_layer_layout).
  const auto mtp = test::findings_of(check_pretrain(layout), "megatron.pp-layout");
  REQUIRE(mtp.size() == 1);
  CHECK(mtp[0].message.find("Number of mtp layers in layout (1) must match mtp_num_layers (0)") == 0);
  // 60 decoder layers for --num-layers 61.
  const auto short_by_one =
      test::findings_of(check_pretrain("--pipeline-model-parallel-layout 'Et*8|(t*8|)*6t*4L'"), "megatron.pp-layout");
  REQUIRE(short_by_one.size() == 1);
  CHECK(short_by_one[0].message.find("Number of decoder layers 60 must match num_layers 61") == 0);
  // arguments.py: not with the other virtual-stage or first/last-stage flags.
  CHECK(test::findings_of(check_pretrain(layout + " --mtp-num-layers 1 --decoder-first-pipeline-num-layers 8"),
                          "megatron.pp-layout")
            .size() == 1);
  CHECK(test::findings_of(check_pretrain("--pipeline-model-parallel-layout 'Et*8|x'"), "megatron.pp-layout")[0]
            .message.find("Invalid layer character: x") == 0);
}

}  // namespace meshplan
