#pragma once
// Hand-built inputs shared by the time-model tests (until the model presets and the GPU catalog
// are in main): a small GPT and an A100 node with simple efficiency constants.
#include <doctest/doctest.h>

#include <string>

#include "cost/calibration/calibration_runs.hpp"
#include "cost/time/compute_time.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan::test {

/// A100-SXM4-80GB figures from ../shared/hardware/gpus.md.
inline NodeGroup a100_node(int nodes = 1) {
  NodeGroup node;
  node.nodes = nodes;
  node.gpus_per_node = 8;
  node.gpu.id = "A100-80GB";
  node.gpu.arch = "Ampere";
  node.gpu.memory_bandwidth_Bps = 2.039e12;
  node.gpu.bf16_flops = node.gpu.fp16_flops = 312e12;
  node.gpu.intra_node_Bps = 300e9;
  node.gpu.nic_Bps = 25e9;
  node.gpu.host_to_device_Bps = 26.3e9;
  return node;
}

/// One node of the built-in catalog's GPU `id` (NodeGroup's default shape otherwise).
inline NodeGroup catalog_node(const char* id) {
  auto gpu = find_gpu(builtin_gpu_catalog(), id);
  REQUIRE(gpu.ok());
  NodeGroup node;
  node.gpu = *gpu;
  return node;
}

/// A cluster of `nodes` such A100 nodes.
inline Cluster a100_cluster(int nodes = 1) { return Cluster{{a100_node(nodes)}}; }

/// Efficiency 0.5 everywhere, no size penalty, no memory-bound kernels: easy hand arithmetic.
inline TimeOptions simple_options() {
  TimeOptions options;
  options.constants.gemm_peak_fraction_ampere = 0.5;
  options.constants.gemm_half_size = 0;
  options.constants.elementwise_passes = 0;
  return options;
}

/// 2 layers, h = 1024, 16 heads, 4h MLP, vocab 1000, 1024 positions (GPT conventions).
inline ModelSpec tiny_gpt() { return gpt_model_spec(2, 1024, 16, 4096, 1000, 1024); }

/// 24 layers, h = 2048, 16 heads, 4h MLP, vocab 50000, 2048 positions: a GPT that splits over
/// TP, PP, CP and DP at once.
inline ModelSpec gpt_24x2048() { return gpt_model_spec(24, 2048, 16, 8192, 50000, 2048); }

/// Qwen3-30B-A3B from its preset: 48 MoE layers of 128 experts, top-8, h 2048.
inline ModelSpec qwen3_30b_a3b() {
  const auto config = find_model_preset_config("qwen3-30b-a3b");
  REQUIRE(config);
  auto model = parse_model_config(*config, "qwen3-30b-a3b");
  REQUIRE(model.ok());
  return *model;
}

/// The default strategy with `ep`-way expert parallelism (the other sizes 1).
inline Strategy expert_parallel(int ep) {
  Strategy strategy;
  strategy.ep = ep;
  return strategy;
}

/// The value of one term of stage_compute's trace (default time options) for micro-batches of one
/// sequence of `seq_len` tokens.
inline double traced_compute_term(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy,
                                  std::int64_t seq_len, const std::string& name) {
  Trace trace;
  stage_compute(model, node, strategy, seq_len, 1, TimeOptions{}, &trace);
  for (const TraceTerm& term : trace) {
    if (term.name == name) return term.value;
  }
  FAIL("no trace term " << name);
  return 0;
}

}  // namespace meshplan::test
