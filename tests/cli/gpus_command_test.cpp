#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {

TEST_CASE("meshplan gpus prints an aligned table of every catalog entry") {
  const test::CliRun run = test::run({"gpus"});
  CHECK(run.exit_code == 0);
  CHECK(run.err.empty());
  // The A100-40GB row: 42405855232 B = 39.49 GiB, 1.555 TB/s, 312 dense bf16, NVLink3 300 GB/s.
  CHECK(run.out.find("A100-40GB         39.49     1.555    312.0    312.0       -    156.0  NVLink3 300") !=
        std::string::npos);
  CHECK(run.out.find("L40S ") != std::string::npos);
  CHECK(run.out.find("362.1") != std::string::npos);
}

TEST_CASE("meshplan gpus --json has explicit units and the derivations") {
  const test::CliRun run = test::run({"gpus", "--json"});
  REQUIRE(run.exit_code == 0);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  CHECK(json["schema"] == "meshplan-gpus/1");
  REQUIRE(json["gpus"].size() == 18);
  const nlohmann::json& h20 = json["gpus"][7];
  CHECK(h20["id"] == "H20-96GB");
  CHECK(h20["bf16_flops"].get<double>() == 148e12);
  CHECK(h20["intra_node_link"] == "nvlink");
  CHECK(h20["derived"].contains("memory_bytes"));
  CHECK(json["gpus"][0]["memory_bytes"].get<std::int64_t>() == 42405855232);
  CHECK(json["gpus"][4]["measured_allreduce"]["nvls"] == true);
}

TEST_CASE("meshplan gpus --gpu-catalog reads a user's catalog; bad ones exit 2 naming file, line and key") {
  const std::string bad = test::fixture("gpu_catalog/bad_type.json").string();
  const test::CliRun run = test::run({"gpus", "--gpu-catalog", bad});
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "meshplan: error: " + bad + ":3: gpus[0].memory_bytes: expected a number, got 'lots'\n");
  const test::CliRun missing = test::run({"gpus", "--gpu-catalog", "/no/such/catalog.json"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/catalog.json") != std::string::npos);
  const std::string builtin = (test::source_dir() / "data/hardware/gpus.json").string();
  CHECK(test::run({"gpus", "--gpu-catalog", builtin}).exit_code == 0);
}

}  // namespace meshplan
