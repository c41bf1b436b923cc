#include "cost/calibration/nccl_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "core/units.hpp"
#include "cost/time/efficiency.hpp"

namespace meshplan {
namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream stream{std::string(line)};
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

bool parse_number(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, code] = std::from_chars(text.data(), end, value);
  return code == std::errc{} && ptr == end;
}

/// Column positions of the nccl-tests header ("size count type redop root time algbw busbw ...").
struct Header {
  std::size_t size = 0;
  std::size_t time = 0;
  std::size_t redop = std::string::npos;
  std::size_t columns = 0;
};

std::optional<Header> read_header(const std::vector<std::string>& words) {
  Header header;
  const auto find = [&](const char* name) { return std::find(words.begin(), words.end(), name) - words.begin(); };
  const std::size_t size = static_cast<std::size_t>(find("size"));
  const std::size_t time = static_cast<std::size_t>(find("time"));
  if (size >= words.size() || time >= words.size() || find("busbw") == static_cast<long>(words.size())) {
    return std::nullopt;
  }
  header.size = size;
  header.time = time;
  const std::size_t redop = static_cast<std::size_t>(find("redop"));
  if (redop < words.size()) header.redop = redop;
  header.columns = words.size();
  return header;
}

int ring_steps(NcclCollective collective, int ranks) {
  return collective == NcclCollective::all_reduce ? 2 * (ranks - 1) : ranks - 1;
}

/// Bus factor of nccl-tests: busbw = algbw × factor (PERFORMANCE.md).
double bus_factor(NcclCollective collective, int ranks) {
  const double n = ranks;
  return collective == NcclCollective::all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

}  // namespace

Result<NcclSweep> parse_nccl_tests(std::string_view text, const std::string& file) {
  NcclSweep sweep;
  sweep.file = file;
  std::optional<Header> header;
  std::optional<NcclCollective> collective;
  if (file.find("all_gather") != std::string::npos) collective = NcclCollective::all_gather;
  if (file.find("all_reduce") != std::string::npos) collective = NcclCollective::all_reduce;
  std::istringstream lines{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> words = split_words(line);
    if (words.empty()) continue;
    if (words.front().front() == '#') {
      std::vector<std::string> rest = words;
      rest.front().erase(0, 1);
      if (rest.front().empty()) rest.erase(rest.begin());
      if (!rest.empty() && rest.front() == "Rank") ++sweep.ranks;
      if (line.find("all_gather_perf") != std::string::npos) collective = NcclCollective::all_gather;
      if (line.find("all_reduce_perf") != std::string::npos) collective = NcclCollective::all_reduce;
      if (!header) header = read_header(rest);
      continue;
    }
    if (!header) {
      return Error{file, number, "", "row before the nccl-tests header (expected '#  size  count  type ... time  algbw  busbw')"};
    }
    if (words.size() <= std::max(header->size, header->time)) {
      return Error{file, number, "time", fmt::format("row has {} columns, the header names {}", words.size(), header->columns)};
    }
    NcclPoint point;
    if (!parse_number(words[header->size], point.bytes) || point.bytes <= 0) {
      return Error{file, number, "size", fmt::format("'{}' is not a positive byte count", words[header->size])};
    }
    double microseconds = 0;
    if (!parse_number(words[header->time], microseconds) || microseconds <= 0) {
      return Error{file, number, "time", fmt::format("'{}' is not a positive time in microseconds", words[header->time])};
    }
    point.seconds = microseconds * 1e-6;
    if (header->redop < words.size()) {
      const std::string& redop = words[header->redop];
      const NcclCollective kind = redop == "none" ? NcclCollective::all_gather : NcclCollective::all_reduce;
      if (redop != "none" && redop != "sum" && redop != "prod" && redop != "max" && redop != "min" && redop != "avg") {
        return Error{file, number, "redop", fmt::format("unknown reduction '{}'", redop)};
      }
      collective = kind;
    }
    sweep.points.push_back(point);
  }
  if (sweep.points.empty()) {
    return Error{file, 0, "", "no nccl-tests rows found (expected all_reduce_perf or all_gather_perf output)"};
  }
  if (!collective) {
    return Error{file, 0, "redop", "cannot tell the collective: no redop column, no 'all_reduce_perf'/'all_gather_perf' line"};
  }
  sweep.collective = *collective;
  return sweep;
}

Result<AlphaBetaFit> fit_alpha_beta(const NcclSweep& sweep) {
  // NCCL switches protocol (LL -> LL128 -> Simple) along the sweep, so one straight line does
  // not fit both ends. β: least squares over the large messages (>= 1/64 of the largest), the
  // regime DP buckets and TP activations live in; α: what is left of the smallest message.
  double largest = 0;
  for (const NcclPoint& point : sweep.points) largest = std::max(largest, point.bytes);
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const NcclPoint& point : sweep.points) {
    if (point.bytes < largest / 64) continue;
    n += 1;
    sx += point.bytes;
    sy += point.seconds;
    sxx += point.bytes * point.bytes;
    sxy += point.bytes * point.seconds;
  }
  const double det = n * sxx - sx * sx;
  if (n < 2 || det <= 0) {
    return Error{sweep.file, 0, "size", "need at least two large message sizes (within 64x of the largest) to fit "
                                        "the bandwidth"};
  }
  AlphaBetaFit fit;
  fit.seconds_per_byte = (n * sxy - sx * sy) / det;
  if (fit.seconds_per_byte <= 0) {
    return Error{sweep.file, 0, "time", "time does not grow with message size: cannot fit a bandwidth"};
  }
  const auto smallest = std::min_element(sweep.points.begin(), sweep.points.end(),
                                         [](const NcclPoint& a, const NcclPoint& b) { return a.bytes < b.bytes; });
  fit.alpha_s = std::max(0.0, smallest->seconds - smallest->bytes * fit.seconds_per_byte);
  return fit;
}

Result<NodeGroup> calibrate_node_group(const std::vector<NcclSweep>& sweeps, NodeGroup node, double gemm_flops) {
  const EfficiencyConstants constants = fitted_efficiency_constants();
  const int g = std::max(node.gpus_per_node, 1);
  double intra_Bps = node.intra_node_Bps * constants.nvlink_efficiency;
  double inter_Bps = node.inter_node_Bps * constants.nic_efficiency;
  double intra_latency = 0, inter_latency = 0;
  // Intra-node sweeps first: the inter-node fit subtracts their share of the time.
  std::vector<const NcclSweep*> ordered;
  for (const NcclSweep& sweep : sweeps) ordered.push_back(&sweep);
  const auto ranks_of = [&](const NcclSweep* sweep) { return sweep->ranks > 0 ? sweep->ranks : node.nodes * g; };
  std::stable_sort(ordered.begin(), ordered.end(), [&](auto* a, auto* b) { return ranks_of(a) < ranks_of(b); });
  for (const NcclSweep* sweep : ordered) {
    auto fit = fit_alpha_beta(*sweep);
    if (!fit) return fit.error();
    const int n = ranks_of(sweep);
    if (n < 2) return Error{sweep->file, 0, "Rank", "a sweep over one rank measures no link"};
    if (n <= g) {
      intra_Bps = bus_factor(sweep->collective, n) / fit->seconds_per_byte;
      intra_latency = fit->alpha_s / ring_steps(sweep->collective, n);
      continue;
    }
    // Two-level model (cost/time/collectives.cpp): intra part (g−1)/g·S/B_intra per phase, inter part
    // (N−1)/N·(S/g)/r per phase; all-reduce has two phases of each, all-gather one.
    const int nodes = (n + g - 1) / g;
    const double phases = sweep->collective == NcclCollective::all_reduce ? 2.0 : 1.0;
    const double intra_slope = phases * (g - 1.0) / g / intra_Bps;
    const double inter_slope = fit->seconds_per_byte - intra_slope;
    if (inter_slope <= 0) {
      return Error{sweep->file, 0, "busbw",
                   fmt::format("faster across {} nodes than the intra-node links allow; check --nodes and "
                               "--gpus-per-node", nodes)};
    }
    inter_Bps = phases * (nodes - 1.0) / nodes / g / inter_slope;
    inter_latency = fit->alpha_s / ring_steps(sweep->collective, nodes);
  }
  node.intra_node_Bps = intra_Bps;
  node.inter_node_Bps = inter_Bps;
  node.intra_node_latency_s = intra_latency;
  node.inter_node_latency_s = inter_latency;
  node.gemm_flops = gemm_flops;
  node.bandwidths_measured = true;
  return node;
}

std::string calibrated_cluster_yaml(const NodeGroup& node, const std::vector<std::string>& sources) {
  std::string text = "# Written by `meshplan calibrate` from:";
  for (const std::string& source : sources) text += " " + source;
  text += "\n# Bandwidths are achieved NCCL bus bandwidths (not line rates); links without a sweep\n"
          "# are the catalog line rate x the fitted NCCL efficiency (docs/accuracy.md).\ngroups:\n";
  text += fmt::format("  - nodes: {}\n    gpus_per_node: {}\n    gpu: {}\n", node.nodes, node.gpus_per_node, node.gpu.id);
  text += fmt::format("    intra_node_GBps: {:.6g}\n    inter_node_GBps: {:.6g}\n", node.intra_node_Bps / kGB,
                      node.inter_node_Bps / kGB);
  if (node.intra_node_latency_s > 0) text += fmt::format("    intra_node_latency_us: {:.6g}\n", node.intra_node_latency_s * 1e6);
  if (node.inter_node_latency_s > 0) text += fmt::format("    inter_node_latency_us: {:.6g}\n", node.inter_node_latency_s * 1e6);
  if (node.gemm_flops > 0) text += fmt::format("    gemm_TFLOPS: {:.6g}\n", node.gemm_flops / kTFLOPS);
  text += "    bandwidths_measured: true\n";
  return text;
}

}  // namespace meshplan
