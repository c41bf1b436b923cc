#include "hardware/gpu_catalog.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "approx.hpp"
#include "core/text.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

GpuSpec gpu(std::string_view name) {
  auto result = find_gpu(builtin_gpu_catalog(), name);
  REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error().to_string()));
  return *result;
}

/// A minimal valid catalog entry in JSON; tests break one field at a time.
std::string catalog_with(const std::string& field_overrides) {
  return R"({"gpus": [{
  "id": "X1", "name": "Test GPU", "aliases": ["x-one"], "vendor": "V", "arch": "A",
  "memory_bytes": 1000, "memory_bandwidth_Bps": 1e12, "fp32_flops": 1e12, "tf32_flops": 0,
  "bf16_flops": 2e12, "fp16_flops": 2e12, "fp8_flops": 0, "pcie_generation": 4,
  "intra_node_link": "pcie", "nvlink_generation": 0, "intra_node_Bps": 3.2e10,
  "intra_node_pair_Bps": 3.2e10, "nvswitch": false, "gpus_per_node": 8, "nic_Bps": 1.25e10,
  "host_to_device_Bps": 2.6e10, "confidence": "test", "sources": {"all": "a test"})" +
         field_overrides + "}]}";
}

}  // namespace

TEST_CASE("the embedded catalog parses and has every GPU the issue names") {
  auto parsed = parse_gpu_catalog(builtin_gpu_catalog_text(), kBuiltinGpuCatalogName);
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().to_string()));
  CHECK(parsed->size() == builtin_gpu_catalog().size());
  for (const char* id : {"A100-40GB", "A100-80GB", "A100-80GB-PCIE", "A800-80GB", "H100-80GB", "H100-PCIE",
                         "H800-80GB", "H20-96GB", "H20-141GB", "H200-141GB", "B200", "GB200-NVL72", "B300", "GB300-NVL72", "V100-16GB",
                         "V100-32GB", "L40S", "L20", "A10", "RTX-4090", "MI300X", "MI325X", "MI355X", "Ascend-910B"}) {
    CHECK_MESSAGE(find_gpu(builtin_gpu_catalog(), id).ok(), id);
  }
}

TEST_CASE("catalog values match published figures (gpus.md) and avoid the sparse/dense traps") {
  // A100 40GB: deviceQuery totalGlobalMem 42405855232 B (PC2 wiki), = 39.49 GiB.
  CHECK(gpu("A100-40GB").memory_bytes == 42405855232);
  CHECK(gpu("A100-40GB").bf16_flops == 312e12);
  // H100 SXM: datasheet 1979 "with sparsity" -> 989 dense (trap 1).
  CHECK(gpu("H100-80GB").bf16_flops == 989e12);
  CHECK(gpu("H100-80GB").fp8_flops == 1979e12);
  CHECK(gpu("H100-PCIE").bf16_flops == 756e12);  // trap 3: PCIe is a different part
  CHECK(gpu("H20-96GB").bf16_flops == 148e12);   // trap 4: ~15% of H100
  // GB200 NVL72: an operator's per-GPU table without sparsity gives 4.5 PF FP8 and 2.25 PF BF16,
  // as HGX B200 (NVIDIA's rack figure, 720 PF FP8 sparse / 72, would be 5 and 2.5); Megatron-Bridge
  // measured identical layouts on GB200 within -4..+3% of B200 (the entry's sources). The NVLink
  // domain of 72 GPUs is the node.
  CHECK(gpu("GB200-NVL72").fp8_flops == 4.5e15);
  CHECK(gpu("GB200-NVL72").bf16_flops == 2.25e15);
  CHECK(gpu("GB200-NVL72").fp8_flops == gpu("B200").fp8_flops);
  CHECK(gpu("GB200-NVL72").gpus_per_node == 72);
  // ... built of 4-GPU hosts (compute trays of two superchips; NeMo RL's GB200 recipes run one
  // 4-GPU Ray node per tray). A server part has no host size: its node is one host.
  CHECK(gpu("GB200-NVL72").gpus_per_host == 4);
  CHECK(gpu("GB300-NVL72").gpus_per_host == 4);
  CHECK(gpu("H100-80GB").gpus_per_host == 0);
  // Blackwell Ultra. HGX B300 datasheet: 36 PF BF16 and 72 PF FP8 per 8 GPUs with sparsity ->
  // 2.25 / 4.5 PF dense per GPU (as B200); GB300 NVL72: 720 PF FP8 sparse per 72 GPUs -> 5 PF dense.
  // NVLink 5 is 1.8 TB/s both ways = 900 GB/s per direction; ConnectX-8 800 Gb/s = 100 GB/s.
  CHECK(gpu("B300").bf16_flops == 2.25e15);
  CHECK(gpu("B300").fp8_flops == 4.5e15);
  CHECK(gpu("GB300-NVL72").bf16_flops == 2.5e15);
  CHECK(gpu("GB300-NVL72").fp8_flops == 5e15);
  CHECK(gpu("GB300-NVL72").gpus_per_node == 72);
  CHECK(gpu("GB300-NVL72").intra_node_Bps == 900e9);
  CHECK(gpu("B300").nic_Bps == 100e9);
  CHECK(gpu("B300-SXM6").id == "B300");  // torch: "NVIDIA B300 SXM6 AC"
  // NVFP4, dense (stas00/ml-engineering's table at 744d01e1 from NVIDIA's datasheets): 10 PF on
  // Blackwell, 15 on Blackwell Ultra; no NVFP4 on Hopper.
  CHECK(gpu("B200").fp4_flops == 10e15);
  CHECK(gpu("GB200-NVL72").fp4_flops == 10e15);
  CHECK(gpu("B300").fp4_flops == 15e15);
  CHECK(gpu("GB300-NVL72").fp4_flops == 15e15);
  CHECK(gpu("H100-80GB").peak_flops(Dtype::fp4) == 0);
  // 270 GB per B300, 279 per GB300 (of 288 on the package), read as GiB x 0.98938 like every
  // unmeasured entry: 270 x 2^30 x 0.98938 = 286831445174 B = 267.13 GiB.
  CHECK(gpu("B300").memory_bytes == 286831445174);
  CHECK(gpu("GB300-NVL72").memory_bytes > gpu("B300").memory_bytes);
  // MI325X is MI300X's compute with 256 GiB HBM3E at 6 TB/s (trap 1: 2614.9 is its FP8, not sparse BF16).
  CHECK(gpu("MI325X").bf16_flops == gpu("MI300X").bf16_flops);
  CHECK(gpu("MI325X").memory_bandwidth_Bps == 6e12);
  CHECK(gpu("MI325X").intra_node_pair_Bps == 64e9);
  // MI355X: 8192 FP8 FLOPs/clock/CU x 256 CUs x 2.4 GHz = 5033.2 TF dense; BF16 half of it.
  CHECK(gpu("MI355X").fp8_flops == test::approx(8192.0 * 256 * 2.4e9).epsilon(1e-4));
  CHECK(gpu("MI355X").bf16_flops == test::approx(gpu("MI355X").fp8_flops / 2));
  // 7 xGMI links of 153.6 GB/s both ways: 76.8 per direction per pair, 537.6 in all.
  CHECK(gpu("MI355X").intra_node_pair_Bps == 76.8e9);
  CHECK(gpu("MI355X").intra_node_Bps == test::approx(7 * 76.8e9));
  CHECK(gpu("MI355X").intra_node_link == LinkKind::xgmi);
  // L40S: 362.05 dense; 183 is the TF32 rate, 733 the sparse/FP8 rate (trap 2).
  CHECK(gpu("L40S").bf16_flops == 362.05e12);
  CHECK(gpu("L40S").tf32_flops == 183e12);
  // RTX 4090: 165 with FP32 accumulate, not the FP16-accumulate 330 (trap 8).
  CHECK(gpu("RTX-4090").bf16_flops == test::approx(165e12).epsilon(0.001));
  CHECK(gpu("MI300X").bf16_flops == 1307.4e12);  // trap 1: 2614.9 is sparse
  CHECK(gpu("V100-32GB").bf16_flops == 0);       // Volta has no bf16
  CHECK(gpu("V100-32GB").fp16_flops == 125e12);
  // NVLink is quoted bidirectional: 600 GB/s (A100) -> 300 per direction; A800/H800 400 -> 200 (trap 6).
  CHECK(gpu("A100-80GB").intra_node_Bps == 300e9);
  CHECK(gpu("A800-80GB").intra_node_Bps == 200e9);
  CHECK(gpu("H800-80GB").intra_node_Bps == 200e9);
  CHECK(gpu("H100-80GB").nvlink_generation == 4);
  // 400 Gb/s NDR per GPU = 50 GB/s per direction.
  CHECK(gpu("H100-80GB").nic_Bps == 50e9);
  CHECK(gpu("L40S").intra_node_link == LinkKind::pcie);
  // MI300X: no switch, one 64 GB/s-per-direction xGMI link per pair (trap 12).
  CHECK(gpu("MI300X").intra_node_pair_Bps == 64e9);
  CHECK(gpu("MI300X").intra_node_Bps == 448e9);
  // NVLS all-reduce on H100 (478.87 GB/s busbw) is flagged; A100's 231.58 is not (trap 7).
  REQUIRE(gpu("H100-80GB").measured_allreduce.has_value());
  CHECK(gpu("H100-80GB").measured_allreduce->nvls);
  CHECK(gpu("H100-80GB").measured_allreduce->busbw_Bps == 478.87e9);
  REQUIRE(gpu("A100-80GB").measured_allreduce.has_value());
  CHECK_FALSE(gpu("A100-80GB").measured_allreduce->nvls);
  CHECK(gpu("A100-80GB").host_to_device_Bps == 26.28e9);
  // Grace's per-op host time over the DGX H100's Xeon 8480C: TransformerEngine #2053 times one torch
  // Linear's host side at 37.08 us on GB200 against 13.48 us (2.75); GB300 launches from the same
  // Grace. x86 hosts carry none (taken as the fit's).
  CHECK(gpu("GB200-NVL72").host_op_time_ratio == 2.75);
  CHECK(gpu("GB300-NVL72").host_op_time_ratio == 2.75);
  CHECK(gpu("GB300-NVL72").derived.contains("host_op_time_ratio"));
  CHECK(gpu("H100-80GB").host_op_time_ratio == 0);
  CHECK(gpu("B300").host_op_time_ratio == 0);
  // Azure ND A100 v4 sweep (gpus.md): 1 MiB -> 36.2 GB/s ... 8 GiB -> 231.6 GB/s busbw.
  const auto sweep = gpu("A100-80GB").measured_allreduce->sweep;
  REQUIRE(sweep.size() == 6);
  CHECK(sweep.front().message_bytes == 1048576);
  CHECK(sweep.front().busbw_Bps == 36.2e9);
  CHECK(sweep.back().message_bytes == 8589934592.0);
  CHECK(sweep.back().busbw_Bps == 231.6e9);
}

TEST_CASE("SM counts: Ampere, Hopper, Blackwell and Blackwell Ultra, with their sources, unknown elsewhere") {
  // A100 whitepaper 108; Hopper in-depth blog: H100 SXM5 132, PCIe 114; Blackwell Ultra blog 160.
  const auto sms = [](const char* id) {
    auto gpu = find_gpu(builtin_gpu_catalog(), id);
    REQUIRE_MESSAGE(gpu.ok(), id);
    return gpu->sm_count;
  };
  CHECK(sms("A100-80GB") == 108);
  CHECK(sms("H100-80GB") == 132);
  CHECK(sms("H100-PCIE") == 114);
  CHECK(sms("B200") == 148);
  CHECK(sms("GB300-NVL72") == 160);
  CHECK(sms("MI300X") == 0);  // not in the catalog: no SM share is costed on it
  const auto h100 = find_gpu(builtin_gpu_catalog(), "H100-80GB");
  CHECK(h100->source.find("sm_count: NVIDIA, NVIDIA Hopper Architecture In-Depth") != std::string::npos);
}

TEST_CASE("every catalog value equals the shared sourced data, and every gap is marked as derived") {
  const auto path = test::shared_file("hardware/gpus.json");
  if (!path) return;
  std::ifstream in(*path);
  const nlohmann::json shared = nlohmann::json::parse(in);
  struct Field {
    const char* shared_key;
    const char* our_key;
    double scale;  // shared value x scale = ours
  };
  const Field fields[] = {{"memory_usable_bytes", "memory_bytes", 1},   {"memory_bandwidth_Bps", "memory_bandwidth_Bps", 1},
                          {"fp32_flops", "fp32_flops", 1},              {"tf32_dense_flops", "tf32_flops", 1},
                          {"bf16_dense_flops", "bf16_flops", 1},        {"fp16_dense_flops", "fp16_flops", 1},
                          {"fp8_dense_flops", "fp8_flops", 1},          {"gpus_per_server_typical", "gpus_per_node", 1},
                          {"nic_per_gpu_bps_typical", "nic_Bps", 1.0 / 8}};
  int compared = 0;
  for (const auto& entry : shared) {
    if (entry["kind"] != "accelerator" || entry["id"] == "h100_nvl") continue;
    auto found = find_gpu(builtin_gpu_catalog(), entry["id"].get<std::string>());
    REQUIRE_MESSAGE(found.ok(), entry["id"]);
    const nlohmann::json ours = nlohmann::json::parse(builtin_gpu_catalog_text())["gpus"];
    nlohmann::json mine;
    for (const auto& item : ours) {
      if (item["id"] == found->id) mine = item;
    }
    for (const Field& field : fields) {
      INFO(found->id << "." << std::string(field.our_key));
      const nlohmann::json& value = entry[field.shared_key];
      const double our_value = mine[field.our_key].get<double>();
      const bool derived = mine.contains("derived") && mine["derived"].contains(field.our_key);
      if (value.is_null()) {
        // A gap in the sources is either 0 (unsupported/unknown) or explained under "derived".
        CHECK((our_value == 0 || derived));
      } else if (mine.contains("corrections") && mine["corrections"].contains(field.our_key)) {
        // A value this catalog corrects from a newer or primary source: it must differ, or the
        // correction is stale.
        CHECK_FALSE(our_value == test::approx(value.get<double>() * field.scale));
      } else {
        CHECK_FALSE(derived);
        CHECK(our_value == test::approx(value.get<double>() * field.scale));
        ++compared;
      }
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("B200's HBM3e runs 7.7 TB/s, not the 8 of early spec pages") {
  // The driver reports a 7680-bit bus at 3996 MHz (pytorch/ao #4002): 7680 / 8 B x 3.996e9 x 2
  // (double data rate) = 7.672e12 B/s, which NVIDIA's revised datasheet rounds to 7.7 TB/s.
  const double bus_bytes = 7680.0 / 8.0;
  const double from_driver = bus_bytes * 3.996e9 * 2.0;
  CHECK(from_driver == test::approx(7.67232e12));
  CHECK(gpu("B200").memory_bandwidth_Bps == 7.7e12);
  CHECK(gpu("B200").memory_bandwidth_Bps == test::approx(from_driver).epsilon(0.01));
}

TEST_CASE("H20-3e is the H20's compute with H200's 141 GB of HBM3e") {
  // nvidia-smi reports 143771 MiB on "NVIDIA H20-3e" and on H200 (the entry's sources): the same
  // memory, so the usable bytes are H200's and so is the 4.8 TB/s of its six HBM3e stacks (the 96 GB
  // H20's HBM3 runs 4.0). The die is the H20's cut GH100: 148 TFLOP/s dense BF16, 296 FP8, 78 SMs.
  const GpuSpec h20e = gpu("H20-141GB");
  CHECK(h20e.memory_bytes == gpu("H200-141GB").memory_bytes);
  CHECK(h20e.memory_bandwidth_Bps == 4.8e12);
  CHECK(h20e.memory_bandwidth_Bps > gpu("H20-96GB").memory_bandwidth_Bps);
  CHECK(h20e.bf16_flops == 148e12);
  CHECK(h20e.fp8_flops == gpu("H20-96GB").fp8_flops);
  CHECK(h20e.sm_count == 78);
  CHECK(gpu("H20-96GB").sm_count == 78);
  CHECK(h20e.derived.count("memory_bandwidth_Bps") == 1);
}

TEST_CASE("ids and aliases are unique case-insensitively and every alias resolves to its entry") {
  std::set<std::string> seen;
  for (const GpuSpec& spec : builtin_gpu_catalog()) {
    CHECK(seen.insert(to_lower(spec.id)).second);
    for (const std::string& alias : spec.aliases) {
      CHECK_MESSAGE(seen.insert(to_lower(alias)).second, alias);
      CHECK(find_gpu(builtin_gpu_catalog(), alias)->id == spec.id);
    }
  }
  CHECK(gpu("a100").id == "A100-80GB");
  CHECK(gpu("H100-SXM").id == "H100-80GB");
  CHECK(gpu("a100-sxm4-80gb").id == "A100-80GB");
  CHECK(gpu("h20").id == "H20-96GB");
  CHECK(gpu("H20-3e").id == "H20-141GB");
}

TEST_CASE("an unknown GPU suggests the nearest id and lists the known ones") {
  auto result = find_gpu(builtin_gpu_catalog(), "A100-40G");
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("unknown GPU 'A100-40G'; did you mean 'A100-40GB'?") != std::string::npos);
  CHECK(result.error().message.find("MI300X") != std::string::npos);
  auto far = find_gpu(builtin_gpu_catalog(), "potato");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message.find("did you mean") == std::string::npos);
}

TEST_CASE("a minimal user catalog parses") {
  auto parsed = parse_gpu_catalog(catalog_with(""), "mine.json");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().to_string()));
  CHECK(parsed->front().bf16_flops == 2e12);
  CHECK(parsed->front().source == "all: a test");
}

TEST_CASE("catalog errors name the file, the line and the key") {
  SUBCASE("malformed JSON") {
    auto result = parse_gpu_catalog("{\"gpus\": [\n{\"id\": \"X\",\n", "bad.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().file == "bad.json");
    CHECK(result.error().line >= 2);
    CHECK(result.error().message.find("malformed") != std::string::npos);
  }
  SUBCASE("a negative bandwidth") {
    std::string text = catalog_with("");
    text.replace(text.find("\"nic_Bps\": 1.25e10"), 18, "\"nic_Bps\": -5");
    auto result = parse_gpu_catalog(text, "neg.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().to_string() == "neg.json:6: gpus[0].nic_Bps: -5 is out of range: expected 1 to 1e+14");
  }
  SUBCASE("a sweep out of order") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "measured_allreduce": {"gpus": 8, "busbw_Bps": 1e11,
      "message_bytes": 0, "nvls": false, "ring_busbw_Bps": 0, "source": "s",
      "sweep": [{"message_bytes": 2e6, "busbw_Bps": 1e10}, {"message_bytes": 1e6, "busbw_Bps": 2e10}]})"),
                                    "sweep.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].measured_allreduce.sweep[1].message_bytes");
    CHECK(result.error().line == 9);
  }
  SUBCASE("a host larger than its node") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "gpus_per_host": 16)"), "host.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].gpus_per_host");
    CHECK(result.error().message.find("out of range") != std::string::npos);
  }
  SUBCASE("a host ratio out of range") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "host_op_time_ratio": 0)"), "ratio.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].host_op_time_ratio");
    CHECK(result.error().message.find("expected 0.1 to 20") != std::string::npos);
  }
  SUBCASE("a correction of a field the catalog does not have") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "corrections": {"hbm_speed": "newer datasheet"})"), "fix.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].corrections");
    CHECK(result.error().message.find("'hbm_speed' is not a catalog field") != std::string::npos);
  }
  SUBCASE("a key given twice") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "nic_Bps": 5)"), "twice.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].nic_Bps");
    CHECK(result.error().line == 7);
  }
  SUBCASE("an unknown key suggests the right one") {
    auto result = parse_gpu_catalog(catalog_with(R"(, "bf16_flop": 1)"), "typo.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].bf16_flop");
    CHECK(result.error().line == 7);
    CHECK(result.error().message.find("did you mean 'bf16_flops'?") != std::string::npos);
  }
  SUBCASE("a number given as a string is a type error") {
    std::string text = catalog_with("");
    text.replace(text.find("\"fp32_flops\": 1e12"), 18, "\"fp32_flops\": \"1e12\"");
    auto result = parse_gpu_catalog(text, "type.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].fp32_flops");
    CHECK(result.error().line == 3);
  }
  SUBCASE("a missing field") {
    std::string text = catalog_with("");
    text.replace(text.find("\"nic_Bps\": 1.25e10,"), 19, "");
    auto result = parse_gpu_catalog(text, "missing.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().key == "gpus[0].nic_Bps");
    CHECK(result.error().message == "missing required key");
  }
  SUBCASE("a duplicate name across entries") {
    std::string text = catalog_with("");
    const std::string entry = text.substr(text.find('{', 1), text.rfind(']') - text.find('{', 1));
    text.insert(text.rfind(']'), ", " + entry);
    auto result = parse_gpu_catalog(text, "dup.json");
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message.find("already used") != std::string::npos);
  }
}

}  // namespace meshplan
