// estimate --first-last-layers-bf16 (Megatron-LM's flag; Megatron-core first_last_layers_bf16):
// taken under fp8 and NVFP4, refused where Megatron-core's own __post_init__ refuses it
// (transformer_config.py at d98e8a64d), and reported in the JSON strategy.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {
namespace {

test::CliRun qwen3_8b(std::vector<std::string> extra) {
  std::vector<std::string> args = {"estimate", "--model", "qwen3-8b", "--cluster", "1x8xH100", "--dtype", "fp8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run(args);
}

TEST_CASE("estimate --first-last-layers-bf16: Megatron-core's own refusals, each naming its flag") {
  // "Delayed scaling does not support first / last layer in BF16."
  const test::CliRun delayed = qwen3_8b({"--first-last-layers-bf16"});
  CHECK(delayed.exit_code == 2);
  CHECK(delayed.err.find("--first-last-layers-bf16: Delayed scaling does not support") != std::string::npos);
  // Qwen3-8B's 36 layers over PP 2: at most 18 at either end.
  const test::CliRun too_many = qwen3_8b(
      {"--fp8-recipe", "tensorwise", "--pp", "2", "--first-last-layers-bf16", "--num-layers-at-end-in-bf16", "19"});
  CHECK(too_many.exit_code == 2);
  CHECK(too_many.err.find("--num-layers-at-end-in-bf16: 19 must be between 0 and number of layers per pipeline "
                          "stage (18)") != std::string::npos);
  CHECK(qwen3_8b({"--fp8-recipe", "tensorwise", "--pp", "2", "--first-last-layers-bf16", "--num-layers-at-end-in-bf16",
                  "18"})
            .exit_code != 2);
  // A count without the flag changes nothing.
  const test::CliRun count_alone = qwen3_8b({"--fp8-recipe", "tensorwise", "--num-layers-at-start-in-bf16", "2"});
  CHECK(count_alone.exit_code == 2);
  CHECK(count_alone.err.find("--num-layers-at-start-in-bf16: takes effect only with --first-last-layers-bf16") !=
        std::string::npos);
}

TEST_CASE("estimate --first-last-layers-bf16: the JSON strategy names the layers, and the step slows") {
  const auto strategy_and_step = [](std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--fp8-recipe", "tensorwise", "--json"});
    const test::CliRun run = qwen3_8b(extra);
    REQUIRE(run.exit_code != 2);
    const nlohmann::json json = nlohmann::json::parse(run.out);
    return std::pair{json["strategy"], json["time"]["step_seconds"].get<double>()};
  };
  const auto [plain, plain_step] = strategy_and_step({});
  CHECK(plain["num_layers_at_start_in_bf16"] == 0);
  CHECK(plain["num_layers_at_end_in_bf16"] == 0);
  const auto [edge, edge_step] = strategy_and_step({"--first-last-layers-bf16", "--num-layers-at-end-in-bf16", "3"});
  CHECK(edge["num_layers_at_start_in_bf16"] == 1);  // Megatron-core's default
  CHECK(edge["num_layers_at_end_in_bf16"] == 3);
  CHECK(edge_step > plain_step);
}

}  // namespace
}  // namespace meshplan
