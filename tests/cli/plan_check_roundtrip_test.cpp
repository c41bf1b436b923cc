#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("plan --emit verl round-trips through meshplan check with no error") {
  const test::CliRun emitted = test::run({"plan", "--model", "qwen2.5-vl-7b-instruct", "--cluster", "4x8xA100-40GB",
                                          "--workload", "rl", "--global-batch", "512", "--mini-batch", "128",
                                          "--rollout-n", "5", "--prompt-len", "1024", "--response-len", "2048",
                                          "--model-path", "Qwen/Qwen2.5-VL-7B-Instruct", "--emit", "verl"});
  REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("meshplan_roundtrip_" + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << emitted.out;
  const test::CliRun check = test::run({"check", script.string(), "--model", "qwen2.5-vl-7b-instruct"});
  CHECK_MESSAGE(check.exit_code == 0, check.out);
  CHECK(check.out.find("0 error(s)") != std::string::npos);
  std::filesystem::remove(script);
}

}  // namespace meshplan
