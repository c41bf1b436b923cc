#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace meshplan {
namespace {

// Writes `text` to a temporary script, runs `meshplan check` on it with `model`, removes it.
test::CliRun check_script(const std::string& text, const std::string& model, const std::string& name) {
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_" + name + "_" + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << text;
  test::CliRun check = test::run({"check", script.string(), "--model", model});
  std::filesystem::remove(script);
  return check;
}

}  // namespace

TEST_CASE("plan --emit verl round-trips through meshplan check with no error") {
  const test::CliRun emitted = test::run({"plan", "--model", "qwen2.5-vl-7b-instruct", "--cluster", "4x8xA100-40GB",
                                          "--workload", "rl", "--global-batch", "512", "--mini-batch", "128",
                                          "--rollout-n", "5", "--prompt-len", "1024", "--response-len", "2048",
                                          "--model-path", "Qwen/Qwen2.5-VL-7B-Instruct", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const test::CliRun check = check_script(emitted.out, "qwen2.5-vl-7b-instruct", "roundtrip");
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s)") != std::string::npos);
}

TEST_CASE("an uneven pipeline split (61 layers on PP=8) is emitted with '+' overrides and checks clean") {
  // DeepSeek-V3 has 61 decoder layers; PP=8: ceil(61/8) = 8 per middle stage, 3 short -> first
  // stage 7, last stage 6 (7 + 6 x 8 + 6 = 61).
  const test::CliRun emitted = test::run({"plan", "--model", "deepseek-v3", "--cluster", "32x8xH200-141GB", "--workload",
                                          "rl", "--fix", "tp=8,pp=8,vpp=1,cp=1", "--model-path",
                                          "deepseek-ai/DeepSeek-V3", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const std::string t = "+actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(emitted.out.find(t + "num_layers_in_first_pipeline_stage=7") != std::string::npos);
  CHECK(emitted.out.find(t + "num_layers_in_last_pipeline_stage=6") != std::string::npos);
  const test::CliRun check = check_script(emitted.out, "deepseek-v3", "uneven");
  CHECK_MESSAGE(check.exit_code == 0, check.out);

  // 5 + 5 leaves 51 layers, which the 6 middle stages cannot share: verl's Megatron worker would
  // stop in TransformerConfig.
  std::string broken = emitted.out;
  for (const char* stage : {"first", "last"}) {
    const std::string key = t + "num_layers_in_" + stage + "_pipeline_stage=";
    const std::size_t at = broken.find(key);
    REQUIRE(at != std::string::npos);
    broken.replace(at + key.size(), 1, "5");
  }
  const test::CliRun refused = check_script(broken, "deepseek-v3", "uneven_broken");
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("error[model.pp.divides-layers]") != std::string::npos);
  CHECK(refused.out.find("first stage 5 + last stage 5 layers leave 51 of 61 layers") != std::string::npos);
}

}  // namespace meshplan
