#include <doctest/doctest.h>

#include <cmath>

#include <algorithm>

#include "approx.hpp"
#include "cost/time/collectives.hpp"
#include "cost/time/parallel_comm.hpp"
#include "cost/time/time_fixtures.hpp"

namespace meshplan {
namespace {

TEST_CASE("pipeline bubble is (p-1)/v micro-batch slots plus the slowest rank's imbalance") {
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node(4);
  Strategy strategy;
  strategy.pp = 4;
  strategy.vpp = 2;
  // Narayanan 2021 §2.2.2: (p-1)/v = 3/2 slots of 1 s; the slowest rank 0.075 s above the average
  // one (an LM head of 0.1 s on the last stage: (p-1)/p = 3/4 of it) in each of m = 8 micro-batches:
  // 0.6 s.
  const PipelineTime pipeline = pipeline_time(model, node, strategy, 1024, 1, 8, 1.0, 0.075, test::simple_options(), nullptr);
  CHECK(pipeline.bubble_s == test::approx(1.5 + 0.6));
  // p2p: 2 sends (activation, gradient) x m x v of b*s*h*2 B = 2 MiB over NVLink (4 stages of 1
  // GPU each sit in one node): 300 GB/s x 0.8, 3 µs latency.
  const double send = 1024.0 * 1024 * 2 / 240e9 + 3e-6;
  CHECK(pipeline.p2p_s == test::approx(2 * 8 * 2 * send));
  strategy.pp = 1;
  CHECK(pipeline_time(model, node, strategy, 1024, 1, 8, 1.0, 0.1, test::simple_options(), nullptr).bubble_s == 0.0);
}

TEST_CASE("pipeline p2p: the hops that cross a node boundary go through the NICs") {
  // PP 8 over 4 nodes of 8 A100: TP 2 x DP 2 puts the PP ranks 4 GPUs apart (Megatron-core's order
  // tp-cp-ep-dp-pp), two a node. Without interleaving the chain has 7 hops, 3 of them between
  // nodes; interleaved, the last rank hands the next chunk back to the first: 8 hops around a ring,
  // 4 between nodes. Each boundary costs the hops' mean; 2 sends x m = 8 micro-batches x v.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node(4);
  const TimeOptions options = test::simple_options();
  const EfficiencyConstants& k = options.constants;
  Strategy strategy;
  strategy.tp = 2;
  strategy.dp = 2;
  strategy.pp = 8;
  // b*s*h*2 B / t = 1024 x 1024 x 2 / 2 = 1 MiB a send.
  const double nvlink = p2p_seconds(1048576.0, intra_node_link(node, k.nvlink_efficiency));
  const double nic = p2p_seconds(1048576.0, inter_node_link(node, k.nic_efficiency));
  const auto p2p = [&](const Strategy& s) {
    return pipeline_time(model, node, s, 1024, 1, 8, 1.0, 0.0, options, nullptr).p2p_s;
  };
  CHECK(p2p(strategy) == test::approx(2 * 8 * (4 * nvlink + 3 * nic) / 7));
  strategy.vpp = 2;
  CHECK(p2p(strategy) == test::approx(2 * 8 * 2 * (4 * nvlink + 4 * nic) / 8));
  // Ranks a node or more apart (DP 4: 8 GPUs) cross on every hop.
  strategy.dp = 1;
  strategy.tp = 8;
  strategy.pp = 4;
  CHECK(p2p(strategy) == test::approx(2 * 8 * 2 * 4 * p2p_seconds(1024.0 * 1024 * 2 / 8,
                                                                  inter_node_link(node, k.nic_efficiency)) / 4));
}

TEST_CASE("TP all-reduces twice per layer per pass on NVLink, hidden by --tp-comm-overlap") {
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.tp = 8;
  TimeOptions options = test::simple_options();
  options.tp_comm_overlap = false;
  options.tp_backward_async = false;  // every collective waited on, as Megatron-LM's own linears ran them
  const StageCompute compute = stage_compute(model, node, strategy, 1024, 1, options, nullptr);
  const MicroBatchComm comm = micro_batch_comm(model, node, strategy, 1024, 1, compute, options, nullptr);
  // 2 collectives x 2 passes (fwd, bwd) x 2 layers of ring AR(1024*1024*2 B, 8) at 240 GB/s.
  const double one = ring_all_reduce_seconds(1024.0 * 1024 * 2, 8, LinkPath{240e9, 3e-6});
  CHECK(comm.tp_s == test::approx(8 * one));
  options.tp_comm_overlap = true;
  options.constants.tp_overlap_hidden = 0.75;
  CHECK(micro_batch_comm(model, node, strategy, 1024, 1, compute, options, nullptr).tp_s == test::approx(2 * one));
  // CP 2 halves each rank's tokens: TP 4 x CP 2 in the node, 512 tokens x h 1024 x 2 B = 1 MiB per
  // all-reduce over 4 ranks: 2 * 3/4 * 1048576 / 240e9 + 2 * 3 * 3 µs = 24.5536 µs; x 8 = 196.43 µs.
  strategy.tp = 4;
  strategy.cp = 2;
  options.tp_comm_overlap = false;
  const StageCompute cp_compute = stage_compute(model, node, strategy, 1024, 1, options, nullptr);
  CHECK(micro_batch_comm(model, node, strategy, 1024, 1, cp_compute, options, nullptr).tp_s ==
        test::approx(8 * (1.5 * 1048576.0 / 240e9 + 18e-6)));
}

// TP 8 with sequence parallelism over tiny_gpt's 2 layers in one A100 node (240 GB/s, 3 µs a step),
// 1024 tokens x h 1024 a collective, without the userbuffers overlap.
struct Tp8SequenceParallel {
  ModelSpec model = test::tiny_gpt();
  NodeGroup node = test::a100_node();
  Strategy strategy;
  TimeOptions options = test::simple_options();
  Tp8SequenceParallel() {
    strategy.tp = 8;
    strategy.sequence_parallel = true;
    options.tp_comm_overlap = false;
  }
  double tp_seconds(const StageCompute& compute) const {
    return micro_batch_comm(model, node, strategy, 1024, 1, compute, options, nullptr).tp_s;
  }
  double tp_seconds() const { return tp_seconds(stage_compute(model, node, strategy, 1024, 1, options, nullptr)); }
};

TEST_CASE("TP with sequence parallelism under fp8 and NVFP4: the all-gathers move the quantized GEMM inputs") {
  // Transformer Engine quantizes a column-parallel GEMM's local input before the all-gather
  // (module/linear.py _Linear.forward at d0067d0da); the reduce-scatters sum 16-bit outputs. TP 8,
  // 1024 tokens x h 1024 per collective, 240 GB/s and 3 µs a step:
  //   reduce-scatter of 2 MiB: 7/8 x 2097152 / 240e9 + 7 x 3 µs = 28.646 µs
  //   all-gather in fp8, 1 MiB: 7/8 x 1048576 / 240e9 + 21 µs = 24.823 µs (bf16: 28.646 µs)
  //   all-gather in NVFP4, 0.5625 B an element: 7/8 x 589824 / 240e9 + 21 µs = 23.150 µs
  // 2 pairs x 2 passes x 2 layers: 8 x (28.646 + 24.823) = 427.75 µs in fp8, 414.37 µs in NVFP4,
  // 458.34 µs in bf16 (the all-reduce's bytes). Every collective waited on (tp_backward_async off).
  Tp8SequenceParallel tp;
  tp.options.tp_backward_async = false;
  const auto tp_seconds = [&tp](Dtype dtype) {
    tp.strategy.compute_dtype = dtype;
    return tp.tp_seconds();
  };
  CHECK(tp_seconds(Dtype::bf16) == test::approx(458.34e-6).epsilon(1e-4));
  CHECK(tp_seconds(Dtype::fp8) == test::approx(427.75e-6).epsilon(1e-4));
  CHECK(tp_seconds(Dtype::fp4) == test::approx(414.37e-6).epsilon(1e-4));
  // Without sequence parallelism the layer all-reduces its 16-bit outputs, whatever the GEMMs read.
  tp.strategy.sequence_parallel = false;
  CHECK(tp_seconds(Dtype::fp8) == test::approx(tp_seconds(Dtype::bf16)));
}

TEST_CASE("TP without --tp-comm-overlap: Transformer Engine's backward runs two of its three collectives behind its GEMMs") {
  // Transformer Engine v2.10 (module/linear.py _Linear.backward, base.py grad_output_preprocess):
  // the row-parallel linear all-gathers its output gradient and waits; the column-parallel one
  // re-gathers its input behind its dgrad GEMM and reduce-scatters its dgrad behind its wgrad GEMM
  // (async_op=True). In bf16 a reduce-scatter and an all-gather of 2 MiB are 28.646 µs each
  // (7/8 x 2097152 / 240e9 + 21 µs); tiny_gpt's 2 layers of 2 sublayers:
  //   forward: 4 x (RS + AG) = 229.17 µs; backward, waited on: 4 x AG = 114.58 µs; 343.75 µs
  //   behind the backward's GEMMs: 4 x (AG + RS) = 229.17 µs, hidden by a backward of 1 ms; a
  //   backward of 100 µs leaves 129.17 µs of it: 472.92 µs.
  Tp8SequenceParallel tp;
  StageCompute compute;
  compute.layers_forward_s = 500e-6;
  compute.layers_backward_s = 1e-3;
  CHECK(tp.tp_seconds(compute) == test::approx(343.75e-6).epsilon(1e-4));
  compute.layers_backward_s = 100e-6;
  CHECK(tp.tp_seconds(compute) == test::approx(472.92e-6).epsilon(1e-4));
  // Without sequence parallelism: the forward's row-parallel all-reduce (4 x 57.292 µs) waits, the
  // backward's dgrad all-reduce runs behind the wgrad GEMM: half of the 458.34 µs all waited on.
  tp.strategy.sequence_parallel = false;
  compute.layers_backward_s = 1e-3;
  CHECK(tp.tp_seconds(compute) == test::approx(229.17e-6).epsilon(1e-4));
  tp.options.tp_backward_async = false;
  CHECK(tp.tp_seconds(compute) == test::approx(458.34e-6).epsilon(1e-4));
}

TEST_CASE("DP gradients: exposed all-reduce without overlap, ZeRO-3 gathers per micro-batch") {
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node(4);
  Strategy strategy;
  strategy.tp = 8;
  strategy.dp = 4;
  strategy.compute_dtype = Dtype::fp16;  // 16-bit gradient reduction in Megatron
  strategy.distributed_optimizer = false;
  TimeOptions options = test::simple_options();
  options.overlap_grad_reduce = false;
  const StageCompute compute = stage_compute(model, node, strategy, 1024, 1, options, nullptr);
  const RankParams params = rank_params(model, strategy);
  // First stage (p = 1): all (layers + tied embedding + positions) / t.
  CHECK(params.dense == test::approx(static_cast<double>(model.total_params) / 8).epsilon(1e-9));
  // One GPU of each DP group per node: a flat ring over the NICs, 25 GB/s x 0.907.
  const LinkPath nic = inter_node_link(node, options.constants.nic_efficiency);
  const double all_reduce = all_reduce_seconds(params.dense * 2, 4, nic);
  CHECK(dp_comm_exposed_seconds(model, node, strategy, 4, compute, options, nullptr) == test::approx(all_reduce));

  SUBCASE("distributed optimizer: bf16 gradients reduce-scattered, weights gathered in fp8 with fp8_param_gather") {
    // Without overlap the step waits for RS(params x 2 B, main grads in bf16) + AG(params x 2 B);
    // fp8_param_gather under FP8 gathers 1 byte a weight (Megatron-core fp8_param_gather), under
    // BF16 it changes nothing.
    Strategy sharded = strategy;
    sharded.distributed_optimizer = true;
    sharded.compute_dtype = Dtype::fp8;
    sharded.grad_reduce_in_fp32 = false;
    TimeOptions no_overlap = options;
    no_overlap.overlap_param_gather = false;
    const double rs = ring_reduce_scatter_seconds(params.dense * 2, 4, nic);
    CHECK(dp_comm_exposed_seconds(model, node, sharded, 1, compute, no_overlap, nullptr) ==
          test::approx(rs + ring_all_gather_seconds(params.dense * 2, 4, nic)));
    sharded.fp8_param_gather = true;
    CHECK(dp_comm_exposed_seconds(model, node, sharded, 1, compute, no_overlap, nullptr) ==
          test::approx(rs + ring_all_gather_seconds(params.dense * 1, 4, nic)));
    sharded.compute_dtype = Dtype::bf16;
    CHECK(dp_comm_exposed_seconds(model, node, sharded, 1, compute, no_overlap, nullptr) ==
          test::approx(rs + ring_all_gather_seconds(params.dense * 2, 4, nic)));
  }

  SUBCASE("ZeRO-3: m x (max(0, AG - k*fwd) + max(0, AG + RS - k*bwd))") {
    Strategy zero3 = strategy;
    zero3.backend = Backend::fsdp;
    zero3.zero = ZeroStage::zero3;
    zero3.tp = 1;
    zero3.dp = 32;
    const StageCompute c = stage_compute(model, node, zero3, 1024, 1, options, nullptr);
    const RankParams p = rank_params(model, zero3);
    // FSDP2 / Megatron-FSDP: NCCL's two-level collective, 8 GPUs over NVLink (300 GB/s x 0.8), then
    // each GPU's eighth across the 4 nodes over its NIC (25 GB/s x nic_efficiency).
    const LinkPath nvlink = intra_node_link(node, options.constants.nvlink_efficiency);
    const LinkPath nic32 = inter_node_link(node, options.constants.nic_efficiency);
    const auto two_level = [&](double bytes) {
      return ring_all_gather_seconds(bytes, 8, nvlink) + ring_all_gather_seconds(bytes / 8, 4, nic32);
    };
    const double ag = two_level(p.dense * 2);
    const double rs = two_level(p.dense * 2);
    const double k = options.constants.overlap_efficiency;
    const double forward = c.layers_forward_s + c.lm_head_forward_s;
    const double backward = c.layers_backward_s + c.lm_head_s - c.lm_head_forward_s;
    const double expected = 3 * (std::max(0.0, ag - k * forward) + std::max(0.0, ag + rs - k * backward));
    CHECK(dp_comm_exposed_seconds(model, node, zero3, 3, c, options, nullptr) == test::approx(expected));
    CHECK(expected > 0.0);

    // DeepSpeed's 2021 ZeRO-3 (Narayanan et al. Table 2): every byte of a rank's share over the
    // group's slowest link, the NIC, a flat ring of 32.
    TimeOptions deepspeed = options;
    deepspeed.zero3_bottleneck_gather = true;
    const double flat = ring_all_gather_seconds(p.dense * 2, 32, nic32);
    CHECK(flat > 4 * ag);
    CHECK(dp_comm_exposed_seconds(model, node, zero3, 3, c, deepspeed, nullptr) ==
          test::approx(3 * (std::max(0.0, flat - k * forward) + std::max(0.0, 2 * flat - k * backward))));

    // verl's fsdp_size 8 (HYBRID_SHARD): gathers and reduce-scatters inside each node's 8 GPUs, then
    // each GPU's eighth of the gradients all-reduced across the 4 nodes over its NIC.
    Strategy hybrid = zero3;
    hybrid.fsdp_shard_size = 8;
    const double inside = ring_all_gather_seconds(p.dense * 2, 8, nvlink);
    const double across = all_reduce_seconds(p.dense * 2 / 8, 4, nic32);
    CHECK(dp_comm_exposed_seconds(model, node, hybrid, 3, c, options, nullptr) ==
          test::approx(3 * (std::max(0.0, inside - k * forward) + std::max(0.0, 2 * inside + across - k * backward))));
    CHECK(dp_comm_exposed_seconds(model, node, hybrid, 3, c, options, nullptr) < expected);

    // Under bf16 verl's FSDP reduces its gradients in fp32 (fsdp_workers.py MixedPrecision
    // reduce_dtype=float32): the reduce-scatter moves 4 bytes a parameter, the gather still 2.
    zero3.compute_dtype = Dtype::bf16;
    const StageCompute c16 = stage_compute(model, node, zero3, 1024, 1, options, nullptr);
    const double rs32 = two_level(p.dense * 4);
    const double forward16 = c16.layers_forward_s + c16.lm_head_forward_s;
    const double backward16 = c16.layers_backward_s + c16.lm_head_s - c16.lm_head_forward_s;
    CHECK(dp_comm_exposed_seconds(model, node, zero3, 3, c16, options, nullptr) ==
          test::approx(3 * (std::max(0.0, ag - k * forward16) + std::max(0.0, ag + rs32 - k * backward16))));
    CHECK(rs32 > 1.9 * rs);
  }
}

TEST_CASE("DDP with overlapped reduction: the last bucket, max(40M, 1M x DP) parameters, stays exposed") {
  // GPT 24 x 2048 (~1.31B parameters) at TP 8: ~164M per rank; DP 128 with one rank per node, a
  // flat fp16 all-reduce ring over the NICs. Megatron's bucket is max(40M, 1M x 128) = 128M
  // parameters (distributed_data_parallel.py), so 128M / 164M of the reduction is exposed after
  // the last backward; 16 x 2048 tokens of backward hide the other buckets.
  const ModelSpec model = test::gpt_24x2048();
  const NodeGroup node = test::a100_node(128);
  Strategy strategy;
  strategy.tp = 8;
  strategy.dp = 128;
  strategy.compute_dtype = Dtype::fp16;
  strategy.distributed_optimizer = false;
  TimeOptions options = test::simple_options();
  options.overlap_grad_reduce = true;
  const StageCompute compute = stage_compute(model, node, strategy, 2048, 16, options, nullptr);
  const RankParams params = rank_params(model, strategy);
  REQUIRE(params.total() > 128e6);
  const LinkPath nic = inter_node_link(node, options.constants.nic_efficiency);
  const double grads = all_reduce_seconds(params.dense * 2, 128, nic);
  CHECK(dp_comm_exposed_seconds(model, node, strategy, 1, compute, options, nullptr) ==
        test::approx(grads * 128e6 / params.total()));
}

TEST_CASE("EP all-to-all: dispatch and combine per MoE layer per pass, hidden behind compute by the a2a overlap") {
  // Qwen3-30B-A3B (48 MoE layers, top-8, h 2048), EP 8 in one A100 node, 4096 tokens: each
  // all-to-all sends 4096 * 8 * 2048 * 2 B = 134 MB, 7/8 of it at 300 GB/s x 0.8, 7 steps of 3 µs.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  TimeOptions options = test::simple_options();
  const StageCompute compute = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const double a2a = 7.0 / 8.0 * 4096.0 * 8 * 2048 * 2 / 240e9 + 7 * 3e-6;
  const MicroBatchComm plain = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr);
  CHECK(plain.ep_forward_s == test::approx(2 * 48 * a2a));  // dispatch + combine, 48 layers
  CHECK(plain.ep_s == test::approx(2 * 2 * 48 * a2a));      // forward and backward
  // --overlap-moe-expert-parallel-comm: only what exceeds the layers' compute stays exposed; the
  // forward-only share has no backward to hide behind.
  strategy.moe_a2a_overlap = true;
  const MicroBatchComm overlapped = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr);
  CHECK(overlapped.ep_s == test::approx(std::max(0.0, 4 * 48 * a2a - compute.layers_total())));
  CHECK(overlapped.ep_s < plain.ep_s);
  CHECK(overlapped.ep_forward_s == test::approx(plain.ep_forward_s));

  // Selective recomputation of the MoE layer ("moe") runs its forward again in the backward, with
  // its dispatch and combine: three passes; the other modules ("layernorm", "moe_act") none.
  strategy.moe_a2a_overlap = false;
  strategy.recompute = Recompute::selective;
  strategy.recompute_modules = kRecomputeMoe;
  CHECK(micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s ==
        test::approx(3 * 2 * 48 * a2a));
  strategy.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;
  CHECK(micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s == test::approx(plain.ep_s));

  // A trained router's imbalance (--moe-dropless-imbalance): the most loaded of the 8 EP ranks
  // (16 experts each) receives 1 + cv x sqrt(2 ln 8 / 16) times the mean rows, and every
  // all-to-all waits for its rows: forward and backward both take that much longer.
  strategy.recompute = Recompute::none;
  options.moe_dropless_imbalance = true;
  const double load = 1.0 + options.constants.moe_expert_load_cv * std::sqrt(2.0 * std::log(8.0) / 16.0);
  CHECK(load == test::approx(1.544).epsilon(0.001));
  const MicroBatchComm dropless = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr);
  CHECK(dropless.ep_forward_s == test::approx(load * 2 * 48 * a2a));
  CHECK(dropless.ep_s == test::approx(load * 2 * 2 * 48 * a2a));
}

TEST_CASE("EP all-to-all between nodes: the NIC at the share EP kernels measure, not the rings' fit") {
  // EP 16 over two A100 nodes: each all-to-all sends 134 MB, 8/16 of it to the other node through
  // the rank's 25 GB/s NIC at ep_nic_efficiency 0.87 (21.75 GB/s: 3.086 ms and 8 steps of latency),
  // 7/16 over NVLink (0.245 ms): the NIC sets the time. The DP ring's 0.947 would give 2.835 ms.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node(2);
  Strategy strategy;
  strategy.ep = 16;
  const TimeOptions options = test::simple_options();
  const StageCompute compute = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const double bytes = 4096.0 * 8 * 2048 * 2;
  const LinkPath nic = inter_node_link(node, options.constants.ep_nic_efficiency);
  CHECK(nic.bandwidth_Bps == test::approx(21.75e9));
  const double a2a = 8.0 / 16.0 * bytes / 21.75e9 + 8 * nic.latency_s;
  const MicroBatchComm comm = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr);
  CHECK(comm.ep_forward_s == test::approx(2 * 48 * a2a));
  const double ring_rate = 8.0 / 16.0 * bytes / inter_node_link(node, options.constants.nic_efficiency).bandwidth_Bps;
  CHECK(comm.ep_forward_s > 2 * 48 * (ring_rate + 8 * nic.latency_s) * 1.08);
}

TEST_CASE("EP overlap with the flex dispatcher: its kernels hold their SMs, the overlapped compute runs on the rest") {
  // DeepEP / HybridEP run their copies as kernels on moe_flex_dispatcher_num_sms SMs (24 here) of
  // the A100's 108: the compute beside them takes 24/108 = 0.2222 of the overlapped time longer.
  // Overlapped: the smaller of the all-to-alls (the same layout without the overlap) and the
  // layers' compute.
  const ModelSpec model = test::qwen3_30b_a3b();
  NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.ep = 8;
  strategy.moe_dispatcher = MoeDispatcher::flex;
  strategy.moe_dispatcher_sms = 24;
  const TimeOptions options = test::simple_options();
  const StageCompute compute = stage_compute(model, node, strategy, 4096, 1, options, nullptr);
  const double total = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s;
  strategy.moe_a2a_overlap = true;
  const double unknown_sms = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s;
  CHECK(unknown_sms == test::approx(std::max(0.0, total - compute.layers_total())));  // no SM count: no share
  node.gpu.sm_count = 108;
  const double with_sms = micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s;
  CHECK(with_sms - unknown_sms == test::approx(24.0 / 108.0 * std::min(total, compute.layers_total())));
  // NCCL's all-to-all picks its own channels: no share is taken.
  strategy.moe_dispatcher = MoeDispatcher::alltoall;
  const double nccl_total = [&] {
    Strategy plain = strategy;
    plain.moe_a2a_overlap = false;
    return micro_batch_comm(model, node, plain, 4096, 1, compute, options, nullptr).ep_s;
  }();
  CHECK(micro_batch_comm(model, node, strategy, 4096, 1, compute, options, nullptr).ep_s ==
        test::approx(std::max(0.0, nccl_total - compute.layers_total())));
}

}  // namespace
}  // namespace meshplan
