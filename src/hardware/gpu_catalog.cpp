#include "hardware/gpu_catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <fmt/format.h>
#include <map>

#include "core/text.hpp"
#include "data/embedded.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/yaml_fields.hpp"

namespace meshplan {
namespace {

// Upper bounds that only catch typos (a unit slip of 1e3 or more), not real hardware.
constexpr double kMaxMemoryBytes = 1e13;      // 10 TB per device
constexpr double kMaxFlops = 1e17;            // 100 PFLOP/s dense
constexpr double kMaxBandwidthBps = 1e14;     // 100 TB/s
constexpr std::int64_t kMaxSms = 1024;

const std::vector<std::string> kTopKeys = {"schema", "units", "provenance", "gpus"};
const std::vector<std::string> kGpuKeys = {
    "id", "name", "aliases", "vendor", "arch", "sm_count", "memory_bytes", "memory_bandwidth_Bps", "fp32_flops",
    "tf32_flops", "bf16_flops", "fp16_flops", "fp8_flops", "fp4_flops", "matmul_bf16_flops", "matmul_fp8_flops", "pcie_generation", "intra_node_link",
    "nvlink_generation", "intra_node_Bps", "intra_node_pair_Bps", "nvswitch", "gpus_per_node", "gpus_per_host", "nic_Bps",
    "host_to_device_Bps", "host_memory_Bps", "host_op_time_ratio", "measured_allreduce", "confidence", "sources", "derived", "corrections"};
const std::vector<std::string> kAllReduceKeys = {"gpus", "busbw_Bps", "message_bytes", "nvls",
                                                 "ring_busbw_Bps", "source", "sweep"};
const std::vector<std::string> kSweepKeys = {"message_bytes", "busbw_Bps"};
constexpr std::array<LinkKind, 4> kLinkKinds = {LinkKind::nvlink, LinkKind::pcie, LinkKind::xgmi, LinkKind::hccs};

Result<LinkKind> read_link_kind(const YamlMapReader& reader) {
  std::string text;
  MESHPLAN_READ(text, reader.text("intra_node_link"));
  for (LinkKind kind : kLinkKinds) {
    if (to_lower(text) == link_kind_name(kind)) return kind;
  }
  return reader.error("intra_node_link", fmt::format("unknown link '{}'; expected nvlink, pcie, xgmi or hccs", text));
}

/// A mapping of names to text ("sources", "derived", "corrections").
Result<std::map<std::string, std::string>> read_text_map(const YamlMapReader& reader, std::string_view key) {
  YAML::Node node;
  MESHPLAN_READ(node, reader.value(key));
  if (!node.IsMap()) return reader.error(key, "expected a mapping of field names to text");
  std::map<std::string, std::string> result;
  for (const auto& entry : node) {
    if (!entry.second.IsScalar()) {
      return Error{reader.file(), yaml_line(entry.second), reader.key_path(key) + "." + entry.first.Scalar(),
                   "expected text"};
    }
    result[entry.first.Scalar()] = entry.second.Scalar();
  }
  return result;
}

/// Sweep points with message sizes strictly ascending.
Result<std::vector<BusBandwidthPoint>> read_sweep(const YamlMapReader& reader) {
  YAML::Node list;
  MESHPLAN_READ(list, reader.value("sweep"));
  if (!list.IsSequence()) return reader.error("sweep", "expected a list of {message_bytes, busbw_Bps}");
  std::vector<BusBandwidthPoint> sweep;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];  // the reader keeps a reference: the node must outlive it
    const YamlMapReader point_reader(item, reader.file(), fmt::format("{}[{}]", reader.key_path("sweep"), i));
    if (auto keys = point_reader.check_keys(kSweepKeys); !keys.ok()) return keys.error();
    BusBandwidthPoint point;
    MESHPLAN_READ(point.message_bytes, point_reader.number("message_bytes", 1, kMaxMemoryBytes));
    MESHPLAN_READ(point.busbw_Bps, point_reader.number("busbw_Bps", 1, kMaxBandwidthBps));
    if (!sweep.empty() && point.message_bytes <= sweep.back().message_bytes) {
      return point_reader.error("message_bytes", "message sizes must be ascending");
    }
    sweep.push_back(point);
  }
  return sweep;
}

Result<MeasuredAllReduce> read_measured_allreduce(const YamlMapReader& gpu_reader) {
  YAML::Node node;
  MESHPLAN_READ(node, gpu_reader.value("measured_allreduce"));
  const YamlMapReader reader(node, gpu_reader.file(), gpu_reader.key_path("measured_allreduce"));
  if (auto keys = reader.check_keys(kAllReduceKeys); !keys.ok()) return keys.error();
  MeasuredAllReduce measured;
  std::int64_t gpus = 0;
  MESHPLAN_READ(gpus, reader.integer("gpus", 2, 64));
  measured.gpus = static_cast<int>(gpus);
  MESHPLAN_READ(measured.busbw_Bps, reader.number("busbw_Bps", 1, kMaxBandwidthBps));
  MESHPLAN_READ(measured.message_bytes, reader.number("message_bytes", 0, kMaxMemoryBytes));
  MESHPLAN_READ(measured.nvls, reader.boolean("nvls"));
  MESHPLAN_READ(measured.ring_busbw_Bps, reader.number("ring_busbw_Bps", 0, kMaxBandwidthBps));
  MESHPLAN_READ(measured.source, reader.text("source"));
  if (reader.has("sweep")) MESHPLAN_READ(measured.sweep, read_sweep(reader));
  return measured;
}

Result<GpuSpec> read_gpu(const YAML::Node& node, std::string_view file, std::size_t index) {
  const YamlMapReader reader(node, std::string(file), fmt::format("gpus[{}]", index));
  if (auto keys = reader.check_keys(kGpuKeys); !keys.ok()) return keys.error();
  GpuSpec gpu;
  MESHPLAN_READ(gpu.id, reader.text("id"));
  MESHPLAN_READ(gpu.name, reader.text("name"));
  MESHPLAN_READ(gpu.aliases, reader.text_list("aliases"));
  MESHPLAN_READ(gpu.vendor, reader.text("vendor"));
  MESHPLAN_READ(gpu.arch, reader.text("arch"));
  std::int64_t whole = 0;
  if (reader.has("sm_count")) {
    MESHPLAN_READ(whole, reader.integer("sm_count", 1, kMaxSms));
    gpu.sm_count = static_cast<int>(whole);
  }
  MESHPLAN_READ(whole, reader.integer("memory_bytes", 1, static_cast<std::int64_t>(kMaxMemoryBytes)));
  gpu.memory_bytes = whole;
  MESHPLAN_READ(gpu.memory_bandwidth_Bps, reader.number("memory_bandwidth_Bps", 1, kMaxBandwidthBps));
  MESHPLAN_READ(gpu.fp32_flops, reader.number("fp32_flops", 0, kMaxFlops));
  MESHPLAN_READ(gpu.tf32_flops, reader.number("tf32_flops", 0, kMaxFlops));
  MESHPLAN_READ(gpu.bf16_flops, reader.number("bf16_flops", 0, kMaxFlops));
  MESHPLAN_READ(gpu.fp16_flops, reader.number("fp16_flops", 0, kMaxFlops));
  MESHPLAN_READ(gpu.fp8_flops, reader.number("fp8_flops", 0, kMaxFlops));
  if (reader.has("fp4_flops")) MESHPLAN_READ(gpu.fp4_flops, reader.number("fp4_flops", 1, kMaxFlops));
  if (gpu.bf16_flops == 0 && gpu.fp16_flops == 0) {
    return reader.error("bf16_flops", "bf16_flops and fp16_flops are both 0: the GPU needs a tensor rate");
  }
  // A measured matmul is at most the dense peak it is a share of.
  if (reader.has("matmul_bf16_flops")) {
    MESHPLAN_READ(gpu.matmul_bf16_flops, reader.number("matmul_bf16_flops", 1, gpu.peak_flops(Dtype::bf16)));
  }
  if (reader.has("matmul_fp8_flops")) {
    if (gpu.fp8_flops == 0) return reader.error("matmul_fp8_flops", "the GPU has no fp8_flops to measure against");
    MESHPLAN_READ(gpu.matmul_fp8_flops, reader.number("matmul_fp8_flops", 1, gpu.fp8_flops));
  }
  MESHPLAN_READ(whole, reader.integer("pcie_generation", 1, 7));
  gpu.pcie_generation = static_cast<int>(whole);
  MESHPLAN_READ(gpu.intra_node_link, read_link_kind(reader));
  MESHPLAN_READ(whole, reader.integer("nvlink_generation", 0, 9));
  gpu.nvlink_generation = static_cast<int>(whole);
  if ((gpu.intra_node_link == LinkKind::nvlink) != (gpu.nvlink_generation > 0)) {
    return reader.error("nvlink_generation", "must be > 0 exactly when intra_node_link is nvlink");
  }
  MESHPLAN_READ(gpu.intra_node_Bps, reader.number("intra_node_Bps", 1, kMaxBandwidthBps));
  MESHPLAN_READ(gpu.intra_node_pair_Bps, reader.number("intra_node_pair_Bps", 1, gpu.intra_node_Bps));
  MESHPLAN_READ(gpu.nvswitch, reader.boolean("nvswitch"));
  MESHPLAN_READ(whole, reader.integer("gpus_per_node", 1, kMaxGpusPerNode));
  gpu.gpus_per_node = static_cast<int>(whole);
  if (reader.has("gpus_per_host")) {
    MESHPLAN_READ(whole, reader.integer("gpus_per_host", 1, gpu.gpus_per_node));
    gpu.gpus_per_host = static_cast<int>(whole);
  }
  MESHPLAN_READ(gpu.nic_Bps, reader.number("nic_Bps", 1, kMaxBandwidthBps));
  MESHPLAN_READ(gpu.host_to_device_Bps, reader.number("host_to_device_Bps", 1, kMaxBandwidthBps));
  if (reader.has("host_memory_Bps")) {
    MESHPLAN_READ(gpu.host_memory_Bps, reader.number("host_memory_Bps", 1, kMaxBandwidthBps));
  }
  if (reader.has("host_op_time_ratio")) {
    MESHPLAN_READ(gpu.host_op_time_ratio, reader.number("host_op_time_ratio", 0.1, 20.0));
  }
  if (reader.has("measured_allreduce")) {
    MeasuredAllReduce measured;
    MESHPLAN_READ(measured, read_measured_allreduce(reader));
    gpu.measured_allreduce = std::move(measured);
  }
  MESHPLAN_READ(gpu.confidence, reader.text("confidence"));
  std::map<std::string, std::string> sources;
  MESHPLAN_READ(sources, read_text_map(reader, "sources"));
  for (const auto& [field, citation] : sources) {
    gpu.source += (gpu.source.empty() ? "" : "; ") + field + ": " + citation;
  }
  if (reader.has("derived")) MESHPLAN_READ(gpu.derived, read_text_map(reader, "derived"));
  if (reader.has("corrections")) MESHPLAN_READ(gpu.corrections, read_text_map(reader, "corrections"));
  for (const auto& [key, notes] : {std::pair{"derived", &gpu.derived}, std::pair{"corrections", &gpu.corrections}}) {
    for (const auto& [field, why] : *notes) {
      if (std::find(kGpuKeys.begin(), kGpuKeys.end(), field) == kGpuKeys.end()) {
        return reader.error(key, fmt::format("'{}' is not a catalog field", field));
      }
    }
  }
  return gpu;
}

/// Each GPU's generation share of its dense peak in a measured matmul: the mean over the
/// generation's measured parts (GpuSpec::matmul_share_bf16).
void set_generation_matmul_shares(std::vector<GpuSpec>& gpus) {
  struct Shares {
    double bf16 = 0, fp8 = 0;
    int bf16_parts = 0, fp8_parts = 0;
  };
  std::map<std::string, Shares> by_generation;
  for (const GpuSpec& gpu : gpus) {
    Shares& shares = by_generation[gpu.generation()];
    if (gpu.matmul_bf16_flops > 0) {
      shares.bf16 += gpu.matmul_bf16_flops / gpu.peak_flops(Dtype::bf16);
      ++shares.bf16_parts;
    }
    if (gpu.matmul_fp8_flops > 0) {
      shares.fp8 += gpu.matmul_fp8_flops / gpu.fp8_flops;
      ++shares.fp8_parts;
    }
  }
  for (GpuSpec& gpu : gpus) {
    const Shares& shares = by_generation[gpu.generation()];
    gpu.matmul_share_bf16 = shares.bf16_parts > 0 ? shares.bf16 / shares.bf16_parts : 0.0;
    gpu.matmul_share_fp8 = shares.fp8_parts > 0 ? shares.fp8 / shares.fp8_parts : 0.0;
  }
}

/// Ids and aliases must name one GPU each, ignoring case.
Status check_unique_names(const std::vector<GpuSpec>& gpus, const YAML::Node& list, std::string_view file) {
  std::map<std::string, std::string> owner;  // lower-cased name -> id
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::vector<std::string> names = gpus[i].aliases;
    names.insert(names.begin(), gpus[i].id);
    for (const std::string& name : names) {
      const auto [it, inserted] = owner.emplace(to_lower(name), gpus[i].id);
      if (!inserted) {
        return Error{std::string(file), yaml_line(list[i]), fmt::format("gpus[{}]", i),
                     fmt::format("name '{}' of '{}' is already used by '{}'", name, gpus[i].id, it->second)};
      }
    }
  }
  return Ok{};
}

Result<std::vector<GpuSpec>> read_catalog(std::string_view json_text, std::string_view source_name) {
  YAML::Node root;
  MESHPLAN_READ(root, parse_yaml_text(json_text, source_name));
  const YamlMapReader top(root, std::string(source_name), "");
  if (auto keys = top.check_keys(kTopKeys); !keys.ok()) return keys.error();
  YAML::Node list;
  MESHPLAN_READ(list, top.value("gpus"));
  if (!list.IsSequence() || list.size() == 0) return top.error("gpus", "expected a non-empty list of GPUs");
  std::vector<GpuSpec> gpus;
  for (std::size_t i = 0; i < list.size(); ++i) {
    GpuSpec gpu;
    MESHPLAN_READ(gpu, read_gpu(list[i], source_name, i));
    gpus.push_back(std::move(gpu));
  }
  if (auto unique = check_unique_names(gpus, list, source_name); !unique.ok()) return unique.error();
  set_generation_matmul_shares(gpus);
  return gpus;
}

}  // namespace

std::string_view link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::nvlink: return "nvlink";
    case LinkKind::pcie: return "pcie";
    case LinkKind::xgmi: return "xgmi";
    case LinkKind::hccs: return "hccs";
  }
  return "pcie";
}

Result<std::vector<GpuSpec>> parse_gpu_catalog(std::string_view json_text, std::string_view source_name) {
  return guard_yaml_reader(source_name, [&] { return read_catalog(json_text, source_name); });
}

std::string_view builtin_gpu_catalog_text() { return embedded_file(kBuiltinGpuCatalogName).value_or(""); }

const std::vector<GpuSpec>& builtin_gpu_catalog() {
  static const std::vector<GpuSpec> catalog = [] {
    auto parsed = parse_gpu_catalog(builtin_gpu_catalog_text(), kBuiltinGpuCatalogName);
    return parsed.ok() ? std::move(parsed).value() : std::vector<GpuSpec>{};
  }();
  return catalog;
}

Result<GpuSpec> find_gpu(const std::vector<GpuSpec>& catalog, std::string_view name) {
  const std::string wanted = to_lower(name);
  std::vector<std::string> names;
  std::map<std::string, std::string> id_of;  // any name -> its entry's id
  for (const GpuSpec& gpu : catalog) {
    if (to_lower(gpu.id) == wanted) return gpu;
    for (const std::string& alias : gpu.aliases) {
      if (to_lower(alias) == wanted) return gpu;
      names.push_back(alias);
      id_of[alias] = gpu.id;
    }
    names.push_back(gpu.id);
    id_of[gpu.id] = gpu.id;
  }
  std::string message = fmt::format("unknown GPU '{}'", name);
  if (const auto near = nearest_match(name, names)) {
    message += fmt::format("; did you mean '{}'?", id_of[*near]);
  } else {
    message += ".";
  }
  std::string known;
  for (const GpuSpec& gpu : catalog) known += (known.empty() ? "" : ", ") + gpu.id;
  message += " Known GPUs: " + known + " (see `meshplan gpus`)";
  return Error{"", 0, "gpu", message};
}

}  // namespace meshplan
