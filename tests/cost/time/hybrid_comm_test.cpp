// Context and tensor parallel traffic of single-sublayer hybrid layers (Nemotron-H), worked from
// the layer counts by hand: the collectives are the ones Megatron-core runs per sublayer.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/collectives.hpp"
#include "cost/time/parallel_comm.hpp"
#include "cost/time/time_fixtures.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {

TEST_CASE("hybrid comm: a layer of one sublayer runs one pair of TP collectives") {
  // tiny_gpt's 2 layers at TP 8 run 2 collectives x 2 passes x 2 layers = 8 all-reduces; the same
  // layers holding one sublayer each (Megatron-core HybridModel: a Mamba, attention, MLP or MoE
  // layer, each with its own row-parallel output) run 4 (every collective waited on, as
  // Megatron-LM's own linears ran them: tp_backward_async off).
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.tp = 8;
  TimeOptions options = test::simple_options();
  options.tp_comm_overlap = false;
  options.tp_backward_async = false;
  ModelSpec model = test::tiny_gpt();
  model.hybrid_layer_pattern = "--";  // one sublayer a layer
  const StageCompute compute = stage_compute(model, node, strategy, 1024, 1, options, nullptr);
  const double one = ring_all_reduce_seconds(1024.0 * 1024 * 2, 8, LinkPath{240e9, 3e-6});
  CHECK(micro_batch_comm(model, node, strategy, 1024, 1, compute, options, nullptr).tp_s == test::approx(4 * one));
}

TEST_CASE("hybrid comm: CP's KV ring on the 6 attention layers, all-to-alls around the 23 Mamba layers") {
  // Nemotron 3 Nano at CP 2, 8,192 tokens: each rank holds 4,096. The ring passes K and V (2 kv
  // heads x 128) of those tokens once per attention layer, 2 x 4,096 x 256 x 2 B = 4,194,304 B;
  // the Mamba layers swap the sequence split for a head split (mamba_context_parallel.py:
  // z, x, B, C, dt in, the output back): 4,096 x (3 x 4,096 + 2 x 8 x 128 + 64) x 2 B =
  // 117,964,800 B, one all-to-all over the CP group a layer. With no attention compute to hide the
  // ring behind, a micro-batch pays both three times (forward, backward 2x).
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16");
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.cp = 2;
  strategy.ep = 8;
  const TimeOptions options = test::simple_options();
  StageCompute compute = stage_compute(model, node, strategy, 8192, 1, options, nullptr);
  compute.attention_forward_s = 0;
  const LinkPath link =
      group_link(node, {2, 1}, options.constants.nvlink_efficiency, options.constants.nic_efficiency);
  const double ring = 6 * p2p_seconds(4194304.0, link);
  const double swaps = 23 * all_to_all_seconds(117964800.0, 2, link);
  CHECK(micro_batch_comm(model, node, strategy, 8192, 1, compute, options, nullptr).cp_s ==
        test::approx(3 * (ring + swaps)));
}

}  // namespace meshplan
