#include <doctest/doctest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("diagnose: a missing log, a directory or no log at all is bad input (exit 2)") {
  const test::CliRun missing = test::run({"diagnose", "/no/such/file.log"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/file.log") != std::string::npos);
  CHECK(test::run({"diagnose", test::fixture("logs").string()}).exit_code == 2);
  CHECK(test::run({"diagnose"}).exit_code == 2);
}

TEST_CASE("diagnose: an empty log has no failure (exit 0)") {
  const auto path = std::filesystem::temp_directory_path() / "meshplan_empty.log";
  std::ofstream(path).close();
  const test::CliRun run = test::run({"diagnose", path.string()});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("No failure signature found.") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("diagnose: - reads the log from stdin") {
  std::istringstream fake_stdin("RuntimeError: No CUDA GPUs are available\n");
  std::streambuf* saved = std::cin.rdbuf(fake_stdin.rdbuf());
  const test::CliRun run = test::run({"diagnose", "-", "--json"});
  std::cin.rdbuf(saved);
  CHECK(run.exit_code == 1);
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json["diagnoses"][0]["category"] == "device_visibility");
  CHECK(json["diagnoses"][0]["evidence"][0]["file"] == "<stdin>");
}

TEST_CASE("diagnose: a gzip-compressed log reads like the plain one") {
  std::ifstream plain(test::fixture("logs/oom_training_update_actor_rank3.log"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(plain)), std::istreambuf_iterator<char>());
  const auto path = std::filesystem::temp_directory_path() / "meshplan_oom.log.gz";
  gzFile gz = gzopen(path.string().c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  const test::CliRun run = test::run({"diagnose", "--json", path.string()});
  CHECK(run.exit_code == 1);
  CHECK(nlohmann::json::parse(run.out)["diagnoses"][0]["category"] == "oom_training");
  std::filesystem::remove(path);
}

TEST_CASE("diagnose --json has exactly the documented fields") {
  const test::CliRun run =
      test::run({"diagnose", "--json", test::fixture("logs/oom_training_update_actor_rank3.log").string()});
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json.size() == 2);
  CHECK(json["summary"].is_string());
  for (const auto& diagnosis : json["diagnoses"]) {
    CHECK(diagnosis.size() == 7);
    for (const char* key : {"category", "severity", "root_cause", "evidence", "explanation", "numbers", "fixes"}) {
      CHECK(diagnosis.contains(key));
    }
    for (const auto& fix : diagnosis["fixes"]) {
      const std::string kind = fix["kind"];
      CHECK((kind == "override" || kind == "env" || kind == "action"));
    }
    for (const auto& evidence : diagnosis["evidence"]) CHECK(evidence["line"].is_number_integer());
  }
}

TEST_CASE("diagnose text report: root cause first, evidence with file:line, ranked fixes") {
  const std::string log = test::fixture("logs/oom_training_update_actor_rank3.log").string();
  const test::CliRun run = test::run({"diagnose", log});
  CHECK(run.exit_code == 1);
  const std::size_t root = run.out.find("ROOT CAUSE: oom_training [error] in update_actor");
  const std::size_t consequence = run.out.find("CONSEQUENCE: nccl_timeout");
  CHECK(root != std::string::npos);
  CHECK(consequence != std::string::npos);
  CHECK(root < consequence);
  CHECK(run.out.find("tried to allocate 9.28 GiB with 3.02 GiB free of 79.11 GiB") != std::string::npos);
  CHECK(run.out.find(log + ":25:") != std::string::npos);
  CHECK(run.out.find("1. [env] PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True") != std::string::npos);
}

}  // namespace meshplan
