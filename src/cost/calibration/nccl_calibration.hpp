#pragma once
// `meshplan calibrate`: reads nccl-tests output (all_reduce_perf / all_gather_perf tables),
// fits latency α and bandwidth β from the size sweep, and turns them into the link figures of a
// cluster file (hardware/cluster_spec.hpp schema) that the time model reproduces exactly.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"

namespace meshplan {

enum class NcclCollective { all_reduce, all_gather };

struct NcclPoint {
  double bytes = 0;    ///< the `size` column (all-gather: the gathered total, as nccl-tests prints)
  double seconds = 0;  ///< out-of-place `time` column
};

/// One nccl-tests table.
struct NcclSweep {
  std::string file;
  NcclCollective collective = NcclCollective::all_reduce;
  int ranks = 0;  ///< "#  Rank N ..." lines; 0 when the file does not list them
  std::vector<NcclPoint> points;
};

/// Parses nccl-tests output. The collective comes from the `redop` column (sum/prod/max/min →
/// all-reduce, none → all-gather) or the "Collective test starting" line. Errors name file:line.
Result<NcclSweep> parse_nccl_tests(std::string_view text, const std::string& file);

/// t(S) = α_total + S · seconds_per_byte: the slope by least squares over the large messages
/// (>= 1/64 of the largest size), α from the smallest message.
struct AlphaBetaFit {
  double alpha_s = 0;           ///< total latency of one collective call
  double seconds_per_byte = 0;  ///< marginal cost of a byte of `size`
};

Result<AlphaBetaFit> fit_alpha_beta(const NcclSweep& sweep);

/// The node group `--gpu TYPE --nodes N --gpus-per-node G` with its links replaced by the fitted
/// figures: a sweep within one node sets the intra-node bus bandwidth (2(n−1)/n or (n−1)/n
/// times S per second) and per-step latency; a sweep across nodes sets the per-GPU inter-node
/// bandwidth that makes the two-level model of cost/time/collectives.hpp reproduce the measured
/// slope. Unmeasured links get the catalog line rate × the fitted NCCL efficiency.
Result<NodeGroup> calibrate_node_group(const std::vector<NcclSweep>& sweeps, NodeGroup node, double gemm_flops);

/// The cluster file text (YAML) for a calibrated group; `sources` are listed in a comment.
std::string calibrated_cluster_yaml(const NodeGroup& node, const std::vector<std::string>& sources);

}  // namespace meshplan
