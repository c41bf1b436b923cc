// `meshplan gpus [--json] [--gpu-catalog FILE]`: the hardware catalog as a table or JSON.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <memory>
#include <ostream>

#include "cli/cluster_input.hpp"
#include "cli/hardware_json.hpp"
#include "cli/command.hpp"
#include "core/units.hpp"
#include "hardware/gpu_catalog.hpp"
#include "report/cluster_table.hpp"
#include "report/table.hpp"

namespace meshplan {
namespace {

/// A number for the table, with "*" when the catalog marks the field as derived or assumed.
std::string cell(const GpuSpec& gpu, const char* field, double value, const char* format) {
  std::string text = value == 0 ? "-" : fmt::format(fmt::runtime(format), value);
  if (gpu.derived.count(field) != 0) text += "*";
  return text;
}

std::string link_cell(const GpuSpec& gpu) {
  std::string kind;
  switch (gpu.intra_node_link) {
    case LinkKind::nvlink: kind = fmt::format("NVLink{}", gpu.nvlink_generation); break;
    case LinkKind::pcie: kind = fmt::format("PCIe{}", gpu.pcie_generation); break;
    case LinkKind::xgmi: kind = "xGMI"; break;
    case LinkKind::hccs: kind = "HCCS"; break;
  }
  return kind + " " + cell(gpu, "intra_node_Bps", gpu.intra_node_Bps / kGB, "{:.0f}");
}

std::string gpus_table(const std::vector<GpuSpec>& catalog) {
  const std::vector<TableColumn> columns = {
      {"id", Align::left},          {"mem GiB", Align::right},   {"HBM TB/s", Align::right},
      {"bf16 TF", Align::right},    {"fp16 TF", Align::right},   {"fp8 TF", Align::right},
      {"tf32 TF", Align::right},    {"link GB/s", Align::left},  {"GPUs/node", Align::right},
      {"NIC Gb/s", Align::right}};
  std::vector<std::vector<std::string>> rows;
  for (const GpuSpec& gpu : catalog) {
    rows.push_back({gpu.id, cell(gpu, "memory_bytes", bytes_to_gib(static_cast<double>(gpu.memory_bytes)), "{:.2f}"),
                    cell(gpu, "memory_bandwidth_Bps", gpu.memory_bandwidth_Bps / 1e12, "{:.3f}"),
                    cell(gpu, "bf16_flops", gpu.bf16_flops / kTFLOPS, "{:.1f}"),
                    cell(gpu, "fp16_flops", gpu.fp16_flops / kTFLOPS, "{:.1f}"),
                    cell(gpu, "fp8_flops", gpu.fp8_flops / kTFLOPS, "{:.1f}"),
                    cell(gpu, "tf32_flops", gpu.tf32_flops / kTFLOPS, "{:.1f}"), link_cell(gpu),
                    cell(gpu, "gpus_per_node", gpu.gpus_per_node, "{:.0f}"),
                    cell(gpu, "nic_Bps", gpu.nic_Bps * 8 / 1e9, "{:.0f}")});
  }
  return render_table(columns, rows) +
         "\nMemory: usable GiB (2^30 B) as torch reports it. TF = dense TFLOP/s (no sparsity); - = unsupported "
         "or unknown.\nLink: per GPU, per direction (1 GB = 1e9 B). NIC: per GPU, per direction.\n"
         "* derived or assumed, not in the cited sources; `meshplan gpus --json` says how (\"derived\").\n";
}

}  // namespace

void register_gpus_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "gpus", "Show the GPU catalog (memory, dense TFLOP/s, links, NICs) or how a --cluster resolves");
  struct Options {
    bool json = false;
    std::string catalog_path;
    std::string cluster;
  };
  // Owned by the callback, which lives as long as the App: one set of options per parse.
  auto options = std::make_shared<Options>();
  command->add_flag("--json", options->json, "print JSON with explicit units (bytes, FLOP/s, bytes/s)");
  command->add_option("--gpu-catalog", options->catalog_path, "read the catalog from FILE instead of the built-in one");
  command->add_option("--cluster", options->cluster,
                      "show how CLUSTER (NODESxGPUSxTYPE[+...] or a YAML/JSON file) resolves instead");
  command->callback([&context, options] {
    auto catalog = load_gpu_catalog_argument(options->catalog_path);
    if (!catalog.ok()) return context.fail(catalog.error());
    if (!options->cluster.empty()) {
      auto cluster = load_cluster_argument(options->cluster, *catalog);
      if (!cluster.ok()) return context.fail(cluster.error());
      if (options->json) {
        nlohmann::ordered_json doc = {{"schema_version", 1}};  // docs/json.md
        doc.update(cluster_json(*cluster));
        context.out << doc.dump(2) << "\n";
      } else {
        context.out << render_cluster(*cluster);
      }
    } else if (options->json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const GpuSpec& gpu : *catalog) list.push_back(gpu_json(gpu));
      context.out << nlohmann::ordered_json{{"schema_version", 1}, {"schema", "meshplan-gpus/1"}, {"gpus", list}}.dump(2) << "\n";
    } else {
      context.out << gpus_table(*catalog);
    }
  });
}

}  // namespace meshplan
