#include "cli/cluster_input.hpp"

#include <doctest/doctest.h>

#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

Result<Cluster> load(const std::string& arg) { return load_cluster_argument(arg, builtin_gpu_catalog()); }
std::string fixture(const char* name) { return test::fixture(std::string("cluster/") + name).string(); }

}  // namespace

TEST_CASE("--cluster takes a spec string or a YAML/JSON file") {
  auto from_spec = load("2x8xA100-80GB+2x8xV100-32GB");
  REQUIRE(from_spec.ok());
  CHECK(from_spec->total_gpus() == 32);
  auto from_yaml = load(fixture("hetero.yaml"));
  REQUIRE(from_yaml.ok());
  CHECK(from_yaml->groups[0].nics_per_node == 4);
  auto from_json = load(fixture("hetero.json"));
  REQUIRE(from_json.ok());
  CHECK(from_json->groups[1].intra_node_Bps == 100e9);
}

TEST_CASE("--cluster errors name the flag for specs and file:line:key for files") {
  auto spec = load("4x0xA100");
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.error().to_string() == "--cluster: cluster group '4x0xA100': GPUs per node must be 1..72, got 0");
  auto missing = load("no_such_cluster.yaml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().file == "no_such_cluster.yaml");
  struct Case {
    const char* file;
    int line;
    const char* key;
    const char* words;
  };
  for (const Case& c : {Case{"unknown_key.yaml", 4, "groups[0].inter_node_Gbps", "did you mean 'inter_node_GBps'?"},
                        Case{"malformed.json", 4, "", "malformed YAML/JSON"},
                        Case{"malformed.yaml", 4, "", "malformed YAML/JSON"},
                        Case{"zero_nodes.yaml", 3, "groups[0].nodes", "out of range"},
                        Case{"negative_bandwidth.json", 3, "groups[0].inter_node_GBps", "-50 is out of range"},
                        Case{"unknown_gpu.yaml", 3, "groups[0].gpu", "did you mean 'H100-80GB'?"}}) {
    INFO(c.file);
    auto result = load(fixture(c.file));
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().file == fixture(c.file));
    CHECK(result.error().line == c.line);
    CHECK(result.error().key == c.key);
    CHECK(result.error().message.find(c.words) != std::string::npos);
  }
}

TEST_CASE("--gpu-catalog: empty means the built-in catalog") {
  auto catalog = load_gpu_catalog_argument("");
  REQUIRE(catalog.ok());
  CHECK(catalog->size() == builtin_gpu_catalog().size());
}

}  // namespace meshplan
