#pragma once
// Hand-written stand-ins for the cost models and the rule table, simple enough to check by hand.
#include <string>

#include "search/cost_model.hpp"
#include "search/search.hpp"

namespace meshplan::test {

/// A dense decoder: `heads` heads (MHA), `layers` layers, nothing else the search looks at.
inline ModelSpec toy_model(int heads, int layers) {
  ModelSpec model;
  model.name = "toy";
  model.hidden_size = 4096;
  model.num_layers = layers;
  model.attention.num_heads = model.attention.num_kv_heads = heads;
  model.attention.head_dim = 128;
  model.vocab_size = 32000;
  return model;
}

inline Cluster toy_cluster(int nodes, int gpus_per_node, double memory_gib) {
  NodeGroup group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  group.gpu.id = "TOY";
  group.gpu.memory_bytes = static_cast<std::int64_t>(memory_gib * 1024 * 1024 * 1024);
  group.gpu.bf16_flops = 1e15;
  return Cluster{{group}};
}

/// The divisibility rules the toy cases exercise (a test double for validate_strategy):
/// heads % tp, layers % (pp * vpp), vpp > 1 needs pp > 1, batch % (dp * micro).
inline RuleCheck toy_rules(const ModelSpec& model) {
  return [model](const Strategy& s, const Workload& w) -> std::string_view {
    if (model.attention.num_heads % s.tp != 0) return "tp_divides_heads";
    if (s.vpp > 1 && s.pp == 1) return "vpp_needs_pp";
    if (model.num_layers % (s.pp * s.vpp) != 0) return "pp_divides_layers";
    if (w.global_batch % (s.dp * s.micro_batch) != 0) return "batch_divides_dp_micro";
    return "";
  };
}

}  // namespace meshplan::test
