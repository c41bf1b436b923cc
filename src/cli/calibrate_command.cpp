// `meshplan calibrate --nccl FILE... [--gemm-tflops X] --gpu TYPE --nodes N --gpus-per-node G
//  [--out cluster.yaml]`: fits the links of a cluster from nccl-tests output and writes a cluster
// file that --cluster accepts.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <ostream>

#include "cli/cluster_input.hpp"
#include "cli/command.hpp"
#include "cli/number_checks.hpp"
#include "core/units.hpp"
#include "cost/calibration/nccl_calibration.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {

void register_calibrate_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "calibrate", "Fit a cluster's link latency and bandwidth from nccl-tests output; write a cluster file");
  struct Options {
    std::vector<std::string> nccl_files;
    double gemm_tflops = 0;
    std::string gpu;
    int nodes = 1;
    int gpus_per_node = 0;
    std::string out;
    std::string catalog_path;
  };
  auto options = std::make_shared<Options>();
  command->add_option("--nccl", options->nccl_files, "all_reduce_perf / all_gather_perf output files")->required();
  command->add_option("--gemm-tflops", options->gemm_tflops, "measured large bf16 GEMM TFLOP/s per GPU")
      ->check(positive_number());
  command->add_option("--gpu", options->gpu, "GPU type (catalog id or alias, see `meshplan gpus`)")->required();
  command->add_option("--nodes", options->nodes, "nodes in the cluster")->check(number_between(1, kMaxNodes));
  command->add_option("--gpus-per-node", options->gpus_per_node, "GPUs per node (default: the GPU's server)")
      ->check(number_between(1, kMaxGpusPerNode));
  command->add_option("--out", options->out, "write the cluster file here (default: standard output)");
  command->add_option("--gpu-catalog", options->catalog_path, "read the catalog from FILE instead of the built-in one");
  command->callback([&context, options] {
    auto catalog = load_gpu_catalog_argument(options->catalog_path);
    if (!catalog.ok()) return context.fail(catalog.error());
    auto gpu = find_gpu(*catalog, options->gpu);
    if (!gpu.ok()) return context.fail(Error{"", 0, "--gpu", gpu.error().message});
    const int gpus_per_node = options->gpus_per_node > 0 ? options->gpus_per_node : gpu->gpus_per_node;
    std::vector<NcclSweep> sweeps;
    for (const std::string& path : options->nccl_files) {
      auto text = read_text_file(path);
      if (!text.ok()) return context.fail(text.error());
      auto sweep = parse_nccl_tests(*text, path);
      if (!sweep.ok()) return context.fail(sweep.error());
      if (sweep->ranks > options->nodes * gpus_per_node) {
        return context.fail(Error{path, 0, "Rank", fmt::format("{} ranks but --nodes x --gpus-per-node is {}",
                                                                sweep->ranks, options->nodes * gpus_per_node)});
      }
      sweeps.push_back(std::move(sweep.value()));
    }
    auto node = calibrate_node_group(sweeps, make_node_group(options->nodes, gpus_per_node, *gpu),
                                     options->gemm_tflops * kTFLOPS);
    if (!node.ok()) return context.fail(node.error());
    const std::string yaml = calibrated_cluster_yaml(*node, options->nccl_files);
    // Round trip: what we write must be what --cluster reads.
    if (auto check = parse_cluster_file(yaml, "calibrated cluster", *catalog); !check.ok()) {
      return context.fail(check.error());
    }
    if (options->out.empty()) {
      context.out << yaml;
      return;
    }
    std::ofstream file(options->out);
    if (!(file << yaml)) return context.fail(Error{options->out, 0, "--out", "cannot write the cluster file"});
    context.out << fmt::format("wrote {}: intra-node {:.1f} GB/s, inter-node {:.1f} GB/s per GPU{}\n", options->out,
                               node->intra_node_Bps / kGB, node->inter_node_Bps / kGB,
                               node->gemm_flops > 0 ? fmt::format(", GEMM {:.0f} TFLOP/s", node->gemm_flops / kTFLOPS)
                                                    : std::string());
  });
}

}  // namespace meshplan
