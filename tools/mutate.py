#!/usr/bin/env python3
"""Mutation testing of meshplan's core formulas and rules (issue 19).

Applies each mutation of MUTATIONS (below) to a private copy of the source tree, builds the test
binary once per mutant in its own build folder (ccache keeps the untouched objects), runs the
suite and reports which mutants survive (the tests still pass). A survivor needs a test that
kills it, or a written reason why it is equivalent (EQUIVALENT below).

Not part of CI: one mutant costs an incremental build plus a suite run (minutes on 2 cores).
Run it before resolving an issue that touches src/cost, src/strategy, the verl rules, the
collectives or the fix renderer:

  make mutate                      # every mutant
  tools/mutate.py --list           # the table
  tools/mutate.py --only cost.act.etp,cost.coll.ag-latency
  tools/mutate.py --limit 5        # the first five
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (id, file, exact text, replacement, kind). The text must occur exactly once in the file;
# a mutation whose text no longer occurs is reported as stale (the code moved on: update it).
MUTATIONS = [
    # --- src/cost: activations --------------------------------------------------------------
    ("cost.act.etp", "src/cost/memory/activations.cpp",
     "mlp_inner_bytes_per_token(shape.expert_ffn, true, fc2_input_bytes) / std::max(split.etp, 1.0)",
     "mlp_inner_bytes_per_token(shape.expert_ffn, true, fc2_input_bytes)", "dropped factor: expert activations not / ETP"),
    ("cost.act.moe-sp", "src/cost/memory/activations.cpp", "const double tokens = sb / r;", "const double tokens = sb;",
     "dropped factor: MoE tokens not / SP"),
    ("cost.act.chunk-round", "src/cost/memory/activations.cpp", "stored = double((total + n - 1) / n) * input;",
     "stored = double(total / n) * input;", "off by one: uniform recompute chunks rounded down"),
    ("cost.act.block-vpp", "src/cost/memory/activations.cpp", "n * std::max(s.vpp, 1)", "n",
     "dropped factor: block recompute ignores VPP"),
    ("cost.act.mla-tp", "src/cost/memory/activations.cpp", "return replicated / r + sharded / t + unsplit;",
     "return replicated / r + sharded / t + unsplit / t;", "wrong split: MLA latents split by TP"),
    ("cost.act.replicated-sp", "src/cost/memory/activations.cpp", "return replicated / r + sharded / t + unsplit;",
     "return replicated + sharded / t + unsplit;", "dropped factor: replicated parts not / SP"),
    ("cost.act.full-input", "src/cost/memory/activations.cpp",
     "if (recompute.granularity == Recompute::full) return 2.0 * sb * h / r;",
     "if (recompute.granularity == Recompute::full) return 2.0 * sb * h;", "dropped factor: full-recompute input not / SP"),
    ("cost.act.gated", "src/cost/memory/activations.cpp", "return (gated ? 4.0 : 2.0) * ffn + fc2_input_bytes * ffn;",
     "return (gated ? 2.0 : 2.0) * ffn + fc2_input_bytes * ffn;", "constant: gated MLP inner activations"),
    ("cost.act.flash", "src/cost/memory/activations.cpp", "sharded += 4.0 * shape.heads * sb;",
     "sharded += 0.0 * shape.heads * sb;", "dropped term: FlashAttention log-sum-exp"),
    ("cost.act.vpp-penalty", "src/cost/memory/activations.cpp", "1.0 + (p - 1.0) / (p * s.vpp)",
     "1.0 + (p - 1.0) / p", "dropped factor: interleaved in-flight penalty ignores VPP"),
    ("cost.act.last-stage", "src/cost/memory/activations.cpp", "(stage == PipelineStage::last ? 1.0 : p - r)",
     "(stage == PipelineStage::first ? 1.0 : p - r)", "swapped stage: 1F1B in-flight count"),
    ("cost.act.ids", "src/cost/memory/activations.cpp", "const double ids = stage == PipelineStage::first",
     "const double ids = stage == PipelineStage::last", "swapped stage: input ids on the last stage"),
    ("cost.act.router", "src/cost/memory/activations.cpp", "unsplit += 4.0 * tokens * shape.experts;",
     "unsplit += 2.0 * tokens * shape.experts;", "constant: fp32 router logits as 16-bit"),
    ("cost.act.working", "src/cost/memory/activations.cpp", "working = double(std::min(n, total)) * largest_full;",
     "working = largest_full;", "dropped factor: uniform recompute working set of one chunk"),
    # --- src/cost: model states -------------------------------------------------------------
    ("cost.states.cp-shard", "src/cost/memory/model_states.cpp", "return s.distributed_optimizer ? double(s.dp) * s.cp : 1.0;",
     "return s.distributed_optimizer ? double(s.dp) : 1.0;", "dropped factor: CP in optimizer sharding"),
    ("cost.states.expert-etp", "src/cost/memory/model_states.cpp",
     "p.expert = double(moe) * double(m.num_experts) * double(m.routed_expert_params) / (double(s.ep) * s.etp);",
     "p.expert = double(moe) * double(m.num_experts) * double(m.routed_expert_params) / (double(s.ep));",
     "dropped factor: expert parameters ignore ETP"),
    ("cost.states.expert-group", "src/cost/memory/model_states.cpp",
     "double(s.world_size()) / (double(s.etp) * s.ep * s.pp)", "double(s.world_size()) / (double(s.etp) * s.ep)",
     "dropped factor: expert optimizer group ignores PP"),
    ("cost.states.grad-bytes", "src/strategy/strategy.hpp",
     "return grad_reduce_in_fp32 || compute_dtype == Dtype::fp32 ? 4.0 : 2.0;",
     "return grad_reduce_in_fp32 || compute_dtype == Dtype::fp32 ? 2.0 : 2.0;", "constant: fp32 main grads"),
    ("cost.states.adam", "src/cost/memory/model_states.cpp", "constexpr double kAdamMomentsBytes = 8;",
     "constexpr double kAdamMomentsBytes = 4;", "constant: Adam moments"),
    ("cost.states.zero2", "src/cost/memory/model_states.cpp", "b.gradients = kFsdpGradBytes * params / (stage >= 2 ? group : 1.0);",
     "b.gradients = kFsdpGradBytes * params / (stage >= 3 ? group : 1.0);", "off by one: ZeRO-2 gradient sharding"),
    ("cost.states.zero1", "src/cost/memory/model_states.cpp", "b.optimizer = kAdamMomentsBytes * params / (stage >= 1 ? group : 1.0);",
     "b.optimizer = kAdamMomentsBytes * params / (stage >= 2 ? group : 1.0);", "off by one: ZeRO-1 optimizer sharding"),
    ("cost.states.vocab-pad", "src/cost/memory/model_states.cpp", "return (vocab + multiple - 1) / multiple * multiple;",
     "return vocab / multiple * multiple;", "off by one: padded vocabulary rounded down"),
    ("cost.states.tied", "src/cost/memory/model_states.cpp", "const double head = model.tie_word_embeddings ? 0.0 : vocab_shard;",
     "const double head = 0.0;", "dropped term: untied LM head"),
    ("cost.states.tied-copy", "src/cost/memory/model_states.cpp",
     "p.dense += head > 0 ? head : (s.pp > 1 ? embedding : 0.0);", "p.dense += head;",
     "dropped term: the tied embedding no longer copied to the last stage"),
    ("cost.states.norms-tp", "src/cost/memory/model_states.cpp",
     "p.dense = double(dense) * (attention + norms + model.dense_mlp_params_per_layer / tp);",
     "p.dense = double(dense) * (attention + norms / tp + model.dense_mlp_params_per_layer / tp);",
     "wrong split: norms split by TP"),
    ("cost.states.gathered", "src/cost/memory/model_states.cpp", "(root + 2.0 * largest_layer_params(model))",
     "(root + 1.0 * largest_layer_params(model))", "constant: FSDP prefetch keeps two layers"),
    # --- src/cost: collectives --------------------------------------------------------------
    # --- src/cost/time: fp8 input casts (session 15) ----------------------------------------
    ("cost.cast.column-sp", "src/cost/time/compute_time.cpp",
     "const double column_split = strategy.sequence_parallel ? t : 1.0;", "const double column_split = t;",
     "dropped condition: column-parallel inputs split over TP without sequence parallelism"),
    ("cost.cast.routed-k", "src/cost/time/compute_time.cpp",
     "const double routed = static_cast<double>(moe.experts_per_token) *", "const double routed = 1.0 *",
     "dropped factor: one routed row a token instead of k"),
    ("cost.cast.dense-layers", "src/cost/time/compute_time.cpp",
     "const double dense_layers = std::max(0.0, layers_per_stage - moe_layers);",
     "const double dense_layers = layers_per_stage;", "wrong count: MoE layers also cast a dense MLP's inputs"),
    ("cost.cast.mla-down", "src/cost/time/compute_time.cpp", "(mla ? 2.0 * h / column_split : 0.0)",
     "(mla ? h / column_split : 0.0)", "dropped factor: one of MLA's two down projections"),
    # --- src/hardware: a rack given by its trays (session 15) -----------------------------------
    ("hw.rack.fit", "src/hardware/cluster_spec.cpp", "for (int hosts = std::min(nodes, hosts_per_rack); hosts > 1; --hosts) {",
     "for (int hosts = std::min(nodes, 2 * hosts_per_rack); hosts > 1; --hosts) {", "wrong bound: a domain of two racks"),
    ("hw.rack.even", "src/hardware/cluster_spec.cpp", "    if (nodes % hosts == 0) return hosts;", "    return hosts;",
     "dropped condition: hosts split unevenly"),
    ("hw.rack.ram", "src/hardware/cluster_spec.cpp",
     "gib_to_bytes(gib)) * std::max(group.hosts_per_node, 1);", "gib_to_bytes(gib));",
     "dropped factor: host RAM per tray taken per domain"),
    ("time.rl.one-domain", "src/cost/time/rl_step_time.cpp",
     "actor.world_size() + rl.rollout_gpus <= std::max(node.gpus_per_node, node.gpu.gpus_per_node);",
     "actor.world_size() + rl.rollout_gpus <= node.gpus_per_node;", "trainer's part taken for the NVLink domain"),
    ("time.flex.node-once", "src/cost/time/moe_dispatch.cpp",
     "const double rdma_bytes = remote_nodes * node_hit * token_bytes;",
     "const double rdma_bytes = remote_nodes * k / span.nodes * token_bytes;", "flex sends a row per expert across nodes"),
    ("time.flex.sm-cap", "src/cost/time/moe_dispatch.cpp",
     "std::min(intra.bandwidth_Bps, sms * kFlexBytesPerSecondPerSm)", "std::min(intra.bandwidth_Bps, sms * 1e15)",
     "flex NVLink stage not limited by its SMs"),
    ("time.flex.forward", "src/cost/time/moe_dispatch.cpp",
     "(local_bytes + forwarded_bytes) / nvlink_Bps", "(local_bytes + 0 * forwarded_bytes) / nvlink_Bps",
     "flex forwarding over NVLink not counted"),
    ("time.allgather.gathered", "src/cost/time/moe_dispatch.cpp",
     "group_reduce_scatter_seconds(token_bytes * group.ranks, node, group, intra, inter)",
     "group_reduce_scatter_seconds(token_bytes, node, group, intra, inter)", "allgather moves one rank's tokens"),
    ("calib.rl.v05-allgather", "src/cost/calibration/rl_calibration_runs.cpp",
     "strategy.moe_dispatcher = source->moe_dispatcher;", "", "a source's MoE dispatcher ignored"),
    ("time.alltoall.sorts", "src/cost/time/compute_time.cpp",
     "(2.0 * k + 2.0 + (sorts_chunks ? 4.0 * k : 0.0)) * h * kActivationBytes",
     "(2.0 * k + 2.0 + (sorts_chunks ? 0.0 : 0.0)) * h * kActivationBytes",
     "alltoall dispatcher's sorts by local expert not counted"),
    ("calib.accuracy.family", "src/cost/calibration/time_accuracy.cpp",
     "if (family.group_id == group_id && family.model_type == model_type) return family;",
     "if (family.group_id == group_id && family.model_type != model_type) return family;",
     "another family's runs quoted for a model"),
    ("time.rl.offload-paged-once", "src/cost/time/rl_step_time.cpp",
     "const double update_seconds = updates * update_step.total() + update_paging.offload;",
     "const double update_seconds = updates * (update_step.total() + update_paging.offload);",
     "verl's paging charged in every mini-batch instead of once per update"),
    ("memory.cpu-optimizer", "src/cost/memory/model_states.cpp",
     "if (mode == OffloadMode::own_phase && s.offload.optimizer_on_cpu) move_optimizer_fraction_to_host(s, b);",
     "if (mode == OffloadMode::own_phase && !s.offload.optimizer_on_cpu) move_optimizer_fraction_to_host(s, b);",
     "Megatron's CPU optimizer keeps its states on the GPU"),
    ("verl.unknown-value", "src/verl/fit/to_strategy.cpp",
     "    job.unknown_key = v.unknown_key();",
     "    job.unknown_key = std::string();",
     "a value the script leaves unknown planned at verl's default"),
    ("time.moe-host-wait-in-compute", "src/cost/time/step_time.cpp",
     "breakdown.compute = md * (per_micro_batch - stage.moe_host_wait_s) +",
     "breakdown.compute = md * per_micro_batch +",
     "the MoE host wait counted twice, in compute and apart"),
    ("time.moe-host-wait-recompute", "src/cost/time/compute_time.cpp",
     "      recomputed_host_wait_s = host_wait_s;\n",
     "",
     "a recomputed MoE layer's host wait left in compute"),
    ("accuracy.host-bound-ignored", "src/cost/calibration/time_accuracy.cpp",
     "if (subset.group_id == id && moe_host_wait_share > subset.min_share) host_bound = subset;",
     "if (subset.group_id == id && moe_host_wait_share < 0) host_bound = subset;",
     "a host-bound estimate quoted the whole group's accuracy"),
    ("accuracy.gpu-type-ignored", "src/cost/calibration/time_accuracy.cpp",
     "if (gpu.group_id == group_id && gpu.gpu_id == gpu_id) return gpu;",
     "if (gpu.group_id == group_id && gpu.gpu_id == gpu_id) return std::nullopt;",
     "an estimate quoted no accuracy of its own GPU type"),
    ("calib.rl.packing-off", "src/cost/calibration/rl_calibration_runs.cpp",
     "packing != row.end() && packing->is_boolean() ? packing->get<bool>() : source->sequence_packing",
     "source->sequence_packing", "a row's own sequence_packing ignored"),
    ("cost.coll.ar-factor", "src/cost/time/collectives.cpp",
     "return 2.0 * (n - 1.0) / n * transfer_seconds(bytes, link) + 2.0 * (n - 1.0) * link.latency_s;",
     "return (n - 1.0) / n * transfer_seconds(bytes, link) + 2.0 * (n - 1.0) * link.latency_s;",
     "constant: ring all-reduce moves 2(n-1)/n"),
    ("cost.coll.ar-latency", "src/cost/time/collectives.cpp",
     "return 2.0 * (n - 1.0) / n * transfer_seconds(bytes, link) + 2.0 * (n - 1.0) * link.latency_s;",
     "return 2.0 * (n - 1.0) / n * transfer_seconds(bytes, link);", "dropped term: all-reduce latency"),
    ("cost.coll.ag-latency", "src/cost/time/collectives.cpp",
     "  return (n - 1.0) / n * transfer_seconds(bytes, link) + (n - 1.0) * link.latency_s;\n}\n\ndouble ring_reduce",
     "  return (n - 1.0) / n * transfer_seconds(bytes, link);\n}\n\ndouble ring_reduce",
     "dropped term: all-gather latency"),
    ("cost.coll.tree-log", "src/cost/time/collectives.cpp", "2.0 * std::log2(static_cast<double>(ranks)) * link.latency_s",
     "2.0 * link.latency_s", "dropped factor: tree latency log2(n)"),
    ("cost.coll.p2p-latency", "src/cost/time/collectives.cpp", "return transfer_seconds(bytes, link) + link.latency_s;",
     "return transfer_seconds(bytes, link);", "dropped term: point-to-point latency"),
    ("cost.coll.inter-latency", "src/cost/time/collectives.cpp",
     "node.inter_node_latency_s > 0 ? node.inter_node_latency_s : kInterNodeLatencySeconds",
     "node.inter_node_latency_s > 0 ? node.inter_node_latency_s : 10 * kInterNodeLatencySeconds",
     "constant: inter-node latency x10"),
    ("cost.coll.span-round", "src/cost/time/collectives.cpp", "(group.ranks + per_node - 1) / per_node",
     "group.ranks / per_node", "off by one: nodes a group spans rounded down"),
    ("cost.coll.nic-share", "src/cost/time/collectives.cpp",
     "rate *= static_cast<double>(node.nics_per_node) / node.gpus_per_node;", "rate *= 1.0;",
     "dropped factor: NICs shared by the GPUs of a node"),
    ("cost.coll.hier-split", "src/cost/time/collectives.cpp", "const double g = std::max(per_node, 1);",
     "const double g = 1;", "dropped factor: hierarchical inter-node part / g"),
    ("cost.coll.stride", "src/cost/time/collectives.cpp", "const long span = static_cast<long>(group.ranks - 1) * group.stride + 1;",
     "const long span = static_cast<long>(group.ranks) * group.stride + 1;", "off by one: a strided group's span"),
    # --- src/cost: parallel communication ---------------------------------------------------
    ("cost.comm.tp-passes", "src/cost/time/parallel_comm.cpp", "comm.tp_s = 2.0 * passes * layers * per_collective * exposed;",
     "comm.tp_s = passes * layers * per_collective * exposed;", "constant: two TP collectives per layer"),
    ("cost.comm.cp-tokens", "src/cost/time/parallel_comm.cpp",
     "static_cast<double>(micro_batch) * static_cast<double>(seq_len) / strategy.cp;",
     "static_cast<double>(micro_batch) * static_cast<double>(seq_len);", "dropped factor: tokens / CP"),
    ("cost.comm.bucket", "src/cost/time/parallel_comm.cpp", "return std::max(40e6, 1e6 * dp);", "return std::max(40e6, 0.0 * dp);",
     "dropped term: Megatron bucket grows with DP"),
    # --- src/cost/time: the step time's terms (session 20) -----------------------------------
    ('time.causal-half', 'src/cost/time/compute_time.cpp',
     'const double causal = options.flash_attention ? 0.5 : 1.0;',
     'const double causal = options.flash_attention ? 1.0 : 1.0;',
     'dropped factor: fused causal attention computes the whole s x s'),
    ('time.backward-2x', 'src/cost/time/compute_time.cpp',
     ': 2.0 * stage.layers_forward_s;',
     ': 1.0 * stage.layers_forward_s;',
     'constant: backward as long as the forward'),
    ('time.lora-frozen-gemms', 'src/cost/time/compute_time.cpp',
     '2.0 * stage.layers_forward_s - dense_s - expert_s',
     '2.0 * stage.layers_forward_s - 0.0 * (dense_s + expert_s)',
     "dropped term: LoRA's frozen weights still compute weight gradients"),
    ('time.lm-head-passes', 'src/cost/time/compute_time.cpp',
     'stage.lm_head_s = (frozen_base ? 2.0 : 3.0) * head_forward + cross_entropy;',
     'stage.lm_head_s = (frozen_base ? 2.0 : 2.0) * head_forward + cross_entropy;',
     "constant: the LM head's weight gradient not counted"),
    ('time.cross-entropy', 'src/cost/time/compute_time.cpp',
     'constexpr double kCrossEntropyBytesPerLogit = 16.0;',
     'constexpr double kCrossEntropyBytesPerLogit = 0.0;',
     "dropped term: the cross-entropy's logit traffic"),
    ('time.expert-rows-ep', 'src/cost/time/compute_time.cpp',
     'expert_rows = tokens / t * moe.experts_per_token * strategy.ep / std::max<double>(moe.num_experts, 1);',
     'expert_rows = tokens / t * moe.experts_per_token / std::max<double>(moe.num_experts, 1);',
     "dropped factor: a local expert's rows come from the whole EP group"),
    ('time.elementwise-sp', 'src/cost/time/compute_time.cpp',
     'const double elementwise_split = strategy.sequence_parallel ? t : 1.0;',
     'const double elementwise_split = strategy.sequence_parallel ? 1.0 : 1.0;',
     'dropped factor: sequence parallel splits the memory-bound kernels'),
    ('time.hf-elementwise', 'src/cost/time/compute_time.cpp',
     '? constants.hf_elementwise_factor : 1.0;',
     '? 1.0 : 1.0;',
     "dropped factor: Hugging Face modeling's unfused kernels"),
    ('time.host-wait-hidden', 'src/cost/time/compute_time.cpp',
     'std::max(0.0, host_layer_s - gpu_layer_s)',
     'std::max(0.0, host_layer_s - 0.0 * gpu_layer_s)',
     "dropped term: the GPU's own layer time hides the host's launches"),
    ('time.block-recompute-vpp', 'src/cost/time/compute_time.cpp',
     'strategy.recompute_num_layers * static_cast<double>(strategy.vpp) / layers_per_stage',
     'strategy.recompute_num_layers / layers_per_stage',
     'dropped factor: block recompute counts the layers of each virtual chunk'),
    ('time.optimizer-cp', 'src/cost/time/compute_time.cpp',
     'if (sharded_states) sharded /= std::max(strategy.dp * strategy.cp, 1);',
     'if (sharded_states) sharded /= std::max(strategy.dp, 1);',
     'dropped factor: the distributed optimizer shards over DP x CP'),
    ('time.mtp-backward', 'src/cost/time/compute_time.cpp',
     'stage.lm_head_s += depths * (3.0 * layer_forward + stage.lm_head_s);',
     'stage.lm_head_s += depths * (1.0 * layer_forward + stage.lm_head_s);',
     "constant: an MTP layer's backward not counted"),
    ('time.layernorm-recompute', 'src/cost/time/compute_time.cpp',
     'recompute_s += 2.0 * kActivationBytes * tokens * h * norm_layers',
     'recompute_s += 0.0 * kActivationBytes * tokens * h * norm_layers',
     'dropped term: selective layernorm recomputation'),
    ('time.moe-act-recompute', 'src/cost/time/compute_time.cpp',
     'recompute_s += 3.0 * kActivationBytes * rows * width * moe_layers',
     'recompute_s += 0.0 * kActivationBytes * rows * width * moe_layers',
     'dropped term: selective moe_act recomputation'),
    ('time.lora-flops', 'src/cost/time/compute_time.cpp',
     'return full - (forward.attention_projections + forward.mlp + forward.lm_head);',
     'return full - 0.0 * (forward.attention_projections + forward.mlp + forward.lm_head);',
     'dropped term: LoRA trains no weight gradients of the base model'),
    ('time.vision-passes', 'src/cost/time/compute_time.cpp',
     'const double seconds = 3.0 * forward / t',
     'const double seconds = 1.0 * forward / t',
     "constant: the vision tower's backward not counted"),
    ('time.unfused-scores', 'src/cost/time/compute_time.cpp',
     'attention_s += kUnfusedScoreBytes * scores * layers_per_stage / gpu.memory_bandwidth_Bps;',
     'attention_s += 0.0 * kUnfusedScoreBytes * scores * layers_per_stage / gpu.memory_bandwidth_Bps;',
     "dropped term: unfused attention's score traffic"),
    ('time.micro-batch-round', 'src/cost/time/step_time.cpp',
     'return std::max<std::int64_t>(1, (sequences + per_step - 1) / per_step);',
     'return std::max<std::int64_t>(1, sequences / per_step);',
     'off by one: micro-batches per step rounded down'),
    ('time.lm-head-share', 'src/cost/time/step_time.cpp',
     'const double per_micro_batch = stage.layers_total() + stage.lm_head_s / p;',
     'const double per_micro_batch = stage.layers_total() + stage.lm_head_s / p * p;',
     'dropped factor: the average stage holds 1/p of the LM head'),
    ('time.log-prob-cp-share', 'src/cost/time/step_time.cpp',
     'const double comm_s = comm.tp_s / 2.0 + comm.cp_s / 3.0 + comm.ep_forward_s;',
     'const double comm_s = comm.tp_s / 2.0 + comm.cp_s / 1.0 + comm.ep_forward_s;',
     "constant: the forward pass's share of CP exchanges"),
    ('time.log-prob-p2p', 'src/cost/time/step_time.cpp',
     'breakdown.pp_comm = pipeline.p2p_s / 2.0;',
     'breakdown.pp_comm = pipeline.p2p_s / 1.0;',
     'constant: a forward pass sends activations only'),
    ('time.bubble-vpp', 'src/cost/time/parallel_comm.cpp',
     'pipeline.bubble_s = (p - 1.0) / strategy.vpp * stage_micro_batch_s',
     'pipeline.bubble_s = (p - 1.0) * stage_micro_batch_s',
     'dropped factor: interleaving divides the bubble by VPP'),
    ('time.bubble-lm-head', 'src/cost/time/parallel_comm.cpp',
     '+ m * lm_head_s * (p - 1.0) / p;',
     '+ 0.0 * m * lm_head_s * (p - 1.0) / p;',
     "dropped term: the last stage's LM head imbalance"),
    ('time.p2p-vpp', 'src/cost/time/parallel_comm.cpp',
     'pipeline.p2p_s = 2.0 * m * strategy.vpp * p2p_seconds(bytes, link);',
     'pipeline.p2p_s = 2.0 * m * p2p_seconds(bytes, link);',
     'dropped factor: p2p at every virtual-stage boundary'),
    ('time.cp-hidden', 'src/cost/time/parallel_comm.cpp',
     'const double exposed_forward = std::max(0.0, forward - compute.attention_forward_s);',
     'const double exposed_forward = std::max(0.0, forward - 0.0 * compute.attention_forward_s);',
     'dropped term: ring attention hides its exchanges behind attention'),
    ('time.ep-overlap', 'src/cost/time/parallel_comm.cpp',
     'comm.ep_s = strategy.moe_a2a_overlap ? std::max(0.0, total - compute.layers_total()) : total;',
     'comm.ep_s = strategy.moe_a2a_overlap ? total : total;',
     'dropped term: the EP all-to-all overlap hides the exchanges'),
    ('time.ep-selective-moe', 'src/cost/time/parallel_comm.cpp',
     '((strategy.recompute_modules & kRecomputeMoe) ? 1.0 : 0.0)',
     '((strategy.recompute_modules & kRecomputeMoe) ? 0.0 : 0.0)',
     'dropped term: a recomputed MoE layer dispatches again'),
    ('time.dp-last-bucket', 'src/cost/time/parallel_comm.cpp',
     'exposed += std::max(last_bucket, grads - overlap * backward);',
     'exposed += std::max(0.0 * last_bucket, grads - overlap * backward);',
     'dropped term: the last gradient bucket cannot overlap'),
    ('time.zero3-regather', 'src/cost/time/parallel_comm.cpp',
     'std::max(0.0, ag + rs - overlap * backward)',
     'std::max(0.0, rs - overlap * backward)',
     'dropped term: ZeRO-3 gathers the weights again for the backward'),
    ('time.fsdp-fp32-reduce', 'src/cost/time/parallel_comm.cpp',
     'return strategy.backend == Backend::megatron ? strategy.megatron_grad_bytes() : 4.0;',
     'return strategy.backend == Backend::megatron ? strategy.megatron_grad_bytes() : 2.0;',
     'constant: FSDP reduces gradients in fp32'),
    ('time.tp-recompute-pass', 'src/cost/time/parallel_comm.cpp',
     'const double passes = 2.0 + recompute_fraction(compute);',
     'const double passes = 2.0 + 0.0 * recompute_fraction(compute);',
     "dropped term: the recomputed forward's TP collectives"),
    ('time.rl.tail', 'src/cost/time/rl_step_time.cpp',
     'rollout.tail_s = (longest - response) * tail_step_s;',
     'rollout.tail_s = 0.0 * (longest - response) * tail_step_s;',
     'dropped term: the longest responses decode alone'),
    ('time.rl.engine-overlap', 'src/cost/time/rl_step_time.cpp',
     'return overlapped ? std::max(gpu_step_s, constants.engine_step_seconds) : gpu_step_s + constants.engine_step_seconds;',
     'return overlapped ? gpu_step_s + constants.engine_step_seconds : gpu_step_s + constants.engine_step_seconds;',
     "dropped condition: SGLang and vLLM async scheduling overlap the host's step"),
    ('time.rl.wake-sleep', 'src/cost/time/rl_step_time.cpp',
     'rollout.wake_sleep_s = 2.0 * shard_bytes / gpu.host_to_device_Bps;',
     'rollout.wake_sleep_s = 1.0 * shard_bytes / gpu.host_to_device_Bps;',
     'constant: sleep and wake-up each copy the weights'),
    ('time.rl.ppo-epochs', 'src/cost/time/rl_step_time.cpp',
     'const double updates = static_cast<double>(rl.ppo_epochs) * static_cast<double>(mini_batches);',
     'const double updates = static_cast<double>(mini_batches);',
     'dropped factor: ppo_epochs'),
    ('time.rl.reference', 'src/cost/time/rl_step_time.cpp',
     '  if (rl.use_reference) {\n    trainer.add(log_prob);',
     '  if (rl.use_reference) {\n    trainer.add(log_prob, 0.0);',
     "dropped term: the reference model's log-prob pass"),
    ('time.rl.kv-budget', 'src/cost/time/rl_step_time.cpp',
     'const double held = budget_tokens > 0 ? budget_tokens / (prompt + position) : slots;',
     'const double held = budget_tokens > 0 ? slots + 0.0 * position : slots;',
     'dropped bound: the KV budget limits the sequences in flight'),
    ('time.rl.max-num-seqs', 'src/cost/time/rl_step_time.cpp',
     'static_cast<double>(std::min<std::int64_t>(per_engine * batches_in_flight, std::max(rl.max_num_seqs, 1)));',
     'static_cast<double>(per_engine * batches_in_flight);',
     'dropped bound: max_num_seqs'),
    ('time.rl.eager', 'src/cost/time/rl_step_time.cpp',
     'const double launch_s = rl.enforce_eager ? kEagerLaunchSecondsPerLayer * layers : 0.0;',
     'const double launch_s = rl.enforce_eager ? 0.0 * kEagerLaunchSecondsPerLayer * layers : 0.0;',
     "dropped term: eager decode's kernel launches"),
    ('time.rl.decode-floor', 'src/cost/time/rl_step_time.cpp',
     'const double floor_s = layers * constants.decode_layer_seconds;',
     'const double floor_s = 0.0 * layers * constants.decode_layer_seconds;',
     "dropped bound: a decode layer's kernel chain"),
    ('time.rl.touched-experts', 'src/cost/time/rl_step_time.cpp',
     'return dense_bytes + routed * touched * kWeightBytes / gpus;',
     'return dense_bytes + routed * (touched > 2.0 ? touched : 1.0) * kWeightBytes / gpus;',
     'dropped factor: decode reads only the experts its tokens touch'),
    ('time.rl.off-policy-overlap', 'src/cost/time/rl_step_time.cpp',
     'if (generation > training) step = TimeBreakdown{};',
     'if (generation > 1e300 * training) step = TimeBreakdown{};',
     'dropped overlap: off-policy generation and training in turn'),
    ('time.offload.params-passes', 'src/cost/time/offload_time.cpp',
     'copies_bytes += 2.0 * static_cast<double>(micro_batches) * 2.0 * params / shard;',
     'copies_bytes += 1.0 * static_cast<double>(micro_batches) * 2.0 * params / shard;',
     'constant: offloaded weights stream in for the forward and the backward'),
    ('time.offload.cpu-share', 'src/cost/time/offload_time.cpp',
     'const double cpu_Bps_per_gpu = kHostMemoryBandwidthBps / std::max(node.gpus_per_node, 1);',
     'const double cpu_Bps_per_gpu = kHostMemoryBandwidthBps / std::max(node.gpus_per_node, 1) * std::max(node.gpus_per_node, 1);',
     "dropped factor: the node's GPUs share the host's memory bandwidth"),
    ('time.offload.paging-both-ways', 'src/cost/time/offload_time.cpp',
     'return 2.0 * bytes / per_gpu_Bps;',
     'return 1.0 * bytes / per_gpu_Bps;',
     'constant: paged states go back and out'),
    ('time.offload.activation-hidden', 'src/cost/time/offload_time.cpp',
     'offloaded * (std::max(0.0, copy_s - forward_s) + std::max(0.0, copy_s - backward_s))',
     'offloaded * (std::max(0.0, copy_s - 0.0 * forward_s) + std::max(0.0, copy_s - 0.0 * backward_s))',
     "dropped term: activation copies hide behind a layer's compute"),
    ('time.engine.peer-even', 'src/cost/time/engine_all_reduce.cpp',
     'const bool supported_size = ranks % 2 == 0 && ranks <= kPeerMaxRanks;',
     'const bool supported_size = ranks % 1 == 0 && ranks <= kPeerMaxRanks;',
     "dropped condition: vLLM's custom all-reduce needs an even rank count"),
    ('time.engine.ll', 'src/cost/time/engine_all_reduce.cpp',
     'seconds = std::min(seconds, ll_s);',
     'seconds = std::max(seconds, ll_s);',
     "wrong choice: NCCL's LL protocol for small messages"),
    # --- src/strategy -----------------------------------------------------------------------
    ("strategy.positive", "src/strategy/validate.cpp", "return s.tp < 1 || s.pp < 1 ||", "return s.tp < 0 || s.pp < 1 ||",
     "boundary: TP 0 accepted"),
    ("strategy.world", "src/strategy/validate.cpp",
     "[](const Inputs& in) { return std::int64_t{in.s.tp} * in.s.pp * in.s.cp * in.s.dp != world(in); },",
     "[](const Inputs& in) { return std::int64_t{in.s.tp} * in.s.pp * in.s.dp != world(in); },",
     "dropped factor: CP in the world factorization"),
    ("strategy.tp-heads", "src/strategy/validate.cpp", "[](const Inputs& in) { return !divides(in.s.tp, heads(in)); },",
     "[](const Inputs& in) { return false && !divides(in.s.tp, heads(in)); },", "disabled rule: tp.divides-heads"),
    ("strategy.tp-kv", "src/strategy/validate.cpp", "[](const Inputs& in) { return !divides(in.s.tp, kv_heads(in)); },",
     "[](const Inputs& in) { return false && !divides(in.s.tp, kv_heads(in)); },", "disabled rule: tp.divides-kv-heads"),
    ("strategy.vpp-pp", "src/strategy/validate.cpp", "[](const Inputs& in) { return in.s.vpp > 1 && in.s.pp < 2; },",
     "[](const Inputs& in) { return in.s.vpp > 1 && in.s.pp < 1; },", "boundary: VPP with PP 1 accepted"),
    ("strategy.cp-seq", "src/strategy/validate.cpp", "!divides(2 * std::int64_t{in.s.cp}, in.w.seq_len)",
     "!divides(std::int64_t{in.s.cp}, in.w.seq_len)", "dropped factor: 2 x CP divides the sequence"),
    ("strategy.ep-moe", "src/strategy/validate.cpp", "return !in.m.moe && (in.s.ep > 1 || in.s.etp > 1);",
     "return !in.m.moe && (in.s.ep > 1);", "dropped condition: ETP without MoE"),
    ("strategy.ep-experts", "src/strategy/validate.cpp",
     "[](const Inputs& in) { return in.m.moe && !divides(in.s.ep, in.m.moe->num_experts); },",
     "[](const Inputs& in) { return false && in.m.moe && !divides(in.s.ep, in.m.moe->num_experts); },",
     "disabled rule: ep.divides-experts"),
    ("strategy.ep-world", "src/strategy/validate.cpp", "!divides(std::int64_t{in.s.etp} * in.s.ep * in.s.pp, world(in))",
     "!divides(std::int64_t{in.s.ep} * in.s.pp, world(in))", "dropped factor: ETP in ep.divides-world"),
    ("strategy.ulysses-world", "src/strategy/validate.cpp",
     "[](const Inputs& in) { return !divides(in.s.ulysses_sp, world(in)); },",
     "[](const Inputs& in) { return false && !divides(in.s.ulysses_sp, world(in)); },",
     "disabled rule: ulysses.divides-world"),
    ("strategy.shard", "src/strategy/validate.cpp",
     "return in.s.fsdp_shard_size > 0 && !divides(in.s.fsdp_shard_size, in.s.dp); },",
     "return in.s.fsdp_shard_size > 1 && !divides(in.s.fsdp_shard_size, in.s.dp); },", "boundary: shard size 1"),
    ("strategy.train-ge-mini", "src/strategy/validate.cpp", "return is_rl(in) && in.w.global_batch < rl_mini(in); },",
     "return is_rl(in) && in.w.global_batch <= rl_mini(in); },", "boundary: train batch equal to mini batch"),
    ("strategy.mini-local", "src/strategy/validate.cpp", "return local <= 0 || !divides(ppo_micro(in), local);",
     "return local < 0 || !divides(ppo_micro(in), local);", "boundary: empty per-GPU mini batch"),
    ("strategy.vpp-groups", "src/strategy/validate.cpp", "return m > 0 && (m < in.s.pp || m % in.s.pp != 0);",
     "return m > 0 && (m % in.s.pp != 0);", "dropped condition: fewer micro-batches than PP"),
    ("strategy.positive-break", "src/strategy/validate.cpp", "if (rule.info.id == kRules.front().info.id) break;",
     "", "removed guard: later rules run on sizes below 1"),
    # --- verl rules -------------------------------------------------------------------------
    ("verl.train-gcd", "src/verl/rules/verl_rules_batch.cpp", "round_up_to_multiple(*train, minimal / std::gcd(minimal, *n))",
     "round_up_to_multiple(*train, minimal)", "dropped gcd: train batch fix"),
    ("verl.train-mp", "src/verl/rules/verl_rules_batch.cpp", "minimal = (gpus / v.model_parallel()) * *micro;",
     "minimal = gpus * *micro;", "dropped factor: Megatron minimal batch / model parallel"),
    ("verl.mini-le-train", "src/verl/rules/verl_rules_batch.cpp",
     "A(\"ppo_mini_batch_size\"));\n  if (!train || !mini || *train >= *mini) return std::nullopt;",
     "A(\"ppo_mini_batch_size\"));\n  if (!train || !mini || *train > *mini) return std::nullopt;",
     "boundary: train equal to mini"),
    ("verl.deprecated-sp", "src/verl/rules/verl_rules_batch.cpp", "if (*micro * v.actor_sp() < v.n_gpus()) {",
     "if (*micro < v.n_gpus()) {", "dropped factor: SP in the deprecated micro batch rule"),
    ("verl.budget-factor", "src/verl/rules/verl_rules_batch.cpp", "*budget * factor >= width", "*budget >= width",
     "dropped factor: SP/CP in the token budget"),
    ("verl.budget-cp", "src/verl/rules/verl_rules_batch.cpp",
     "v.megatron() ? v.integer(A(\"megatron.context_parallel_size\")).value_or(1) : v.actor_sp();",
     "v.megatron() ? 1 : v.actor_sp();", "dropped factor: CP in the Megatron token budget"),
    ("verl.fsdp-mini-fix", "src/verl/rules/verl_rules_batch.cpp", "(dp + *n - 1) / *n)}};", "dp / *n)}};",
     "off by one: mini batch fix rounded down"),
    ("verl.fsdp-micro-gcd", "src/verl/rules/verl_rules_batch.cpp", "std::gcd(local, *micro))}};", "*micro - 1)}};",
     "dropped gcd: micro batch fix"),
    ("verl.sizes-positive", "src/verl/rules/verl_rules_batch.cpp", "if (!value || *value > 0) continue;",
     "if (!value || *value >= 0) continue;", "boundary: a size of 0 accepted"),
    ("verl.actor-dp-sp", "src/verl/rules/rule_support.cpp", "const long long divisor = megatron() ? model_parallel() : actor_sp();",
     "const long long divisor = megatron() ? model_parallel() : 1;", "dropped factor: SP in the actor's DP"),
    ("verl.dispatch-gcd", "src/verl/rules/verl_rules_dispatch.cpp",
     "const long long multiple = multiple_of_samples / std::gcd(multiple_of_samples, split.n);",
     "const long long multiple = multiple_of_samples;", "dropped gcd: dispatch fix"),
    ("verl.mini-iterator", "src/verl/rules/verl_rules_dispatch.cpp", "if (mini_local <= 0 || local % mini_local == 0) return std::nullopt;",
     "if (mini_local <= 0 || local % mini_local != 0) return std::nullopt;", "negated condition: mini iterator"),
    ("verl.expert-etp", "src/verl/rules/verl_rules_layout.cpp", "const long long size = v.product({etp, ep, pp}, A(\"megatron.expert_model_parallel_size\"));",
     "const long long size = v.product({ep, pp}, A(\"megatron.expert_model_parallel_size\"));", "dropped factor: ETP in the Megatron expert layout"),
    ("verl.ulysses-world", "src/verl/rules/verl_rules_layout.cpp", "if (gpus <= 0 || gpus % sp == 0) return std::nullopt;",
     "if (gpus <= 0 || gpus % sp != 1) return std::nullopt;", "wrong condition: Ulysses divides N"),
    ("verl.vpp-group", "src/verl/rules/verl_rules_megatron.cpp",
     "if (group >= pp && group <= count && (remainder == 0 || remainder >= pp)) return std::nullopt;",
     "if (group >= pp && group <= count && (remainder == 0 || remainder > pp)) return std::nullopt;",
     "boundary: VPP remainder equal to PP"),
    ("verl.vpp-count", "src/verl/rules/verl_rules_megatron.cpp", "const long long count = (local + *micro - 1) / *micro;",
     "const long long count = local / *micro;", "off by one: micro-batch count rounded down"),
    # --- fix rendering ----------------------------------------------------------------------
    ("fix.gcd", "src/diagnose/fix_renderer.cpp", "const std::int64_t step = minimal_int / std::gcd(minimal_int, n_int);",
     "const std::int64_t step = minimal_int;", "dropped gcd: the fix renderer's train batch"),
    ("fix.round-up", "src/diagnose/fix_renderer.cpp", "return std::to_string((current + step - 1) / step * step);",
     "return std::to_string(current / step * step);", "off by one: fix rounded down"),
    ("fix.n-guard", "src/diagnose/fix_renderer.cpp", "if (n_int < 1) return std::nullopt;", "if (n_int < 0) return std::nullopt;",
     "boundary: rollout.n 0 in the fix"),
]

# Mutants that cannot change any observable result, with the reason (none known yet).
EQUIVALENT = {
    "strategy.shard": "a shard size of 1 divides every DP size, so `> 0` and `> 1` reject the same strategies",
    "strategy.vpp-groups": "0 < m < p implies m % p = m != 0, so the dropped `m < p` is implied by `m % p != 0`",
}


def run(cmd, cwd, timeout=None, env=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, env=env)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build-mutate"), help="work folder (default build-mutate)")
    parser.add_argument("--only", default="", help="comma-separated mutation ids")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N selected mutants")
    parser.add_argument("--list", action="store_true", help="print the table and exit")
    parser.add_argument("--jobs", default=str(os.cpu_count() or 2))
    parser.add_argument("--test-timeout", type=int, default=900, help="seconds per suite run")
    args = parser.parse_args()

    selected = [m for m in MUTATIONS if not args.only or m[0] in args.only.split(",")]
    if args.limit:
        selected = selected[: args.limit]
    if args.list:
        for ident, path, _, _, kind in MUTATIONS:
            print(f"{ident:28} {path:40} {kind}")
        print(f"{len(MUTATIONS)} mutations")
        return 0

    # A private copy of the sources (the work tree is never modified), built in tree/build so that
    # the compiler sees the same relative paths as in the work tree's build/ and ccache hits.
    tree = os.path.join(args.build, "tree")
    build = os.path.join(tree, "build")
    os.makedirs(args.build, exist_ok=True)
    # Files deleted or moved since the last run must not linger in the copy (the build globs src/).
    if os.path.isdir(tree):
        for entry in os.listdir(tree):
            if entry != "build":
                path = os.path.join(tree, entry)
                shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    # Fresh modification times (shutil.copy, not copy2): a source older than an object of the last
    # run would otherwise be taken as built.
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", "build*"), dirs_exist_ok=True,
                    copy_function=shutil.copy)
    # The tests find ../shared beside the tree they were built from.
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    link = os.path.join(args.build, "shared")
    if os.path.isdir(shared) and not os.path.lexists(link):
        os.symlink(shared, link)
    env = dict(os.environ, CCACHE_BASEDIR=tree, CCACHE_NOHASHDIR="1")
    configure = run(["cmake", "-S", tree, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], tree, env=env)
    if configure.returncode != 0:
        print(configure.stdout)
        return 2
    baseline = build_and_test(tree, build, args, env)
    if baseline != "killed-none":
        print(f"the unmutated suite does not pass ({baseline}); fix that first")
        return 2

    results = []
    for ident, path, text, replacement, kind in selected:
        source = os.path.join(tree, path)
        original = open(source).read() if os.path.exists(source) else ""
        if original.count(text) != 1:
            results.append((ident, "stale", kind))
            print(f"{ident:28} stale (text not found once in {path})", flush=True)
            continue
        started = time.time()
        try:
            with open(source, "w") as f:
                f.write(original.replace(text, replacement))
            outcome = build_and_test(tree, build, args, env)
        finally:
            with open(source, "w") as f:
                f.write(original)
        verdict = {"killed-none": "SURVIVED", "killed": "killed", "build": "stillborn", "timeout": "killed"}[outcome]
        results.append((ident, verdict, kind))
        print(f"{ident:28} {verdict:9} {time.time() - started:6.0f} s  {kind}", flush=True)

    counted = [r for r in results if r[1] in ("killed", "SURVIVED")]
    killed = sum(1 for r in counted if r[1] == "killed")
    survivors = [r for r in counted if r[1] == "SURVIVED"]
    print(f"\n{len(results)} mutants: {killed} killed, {len(survivors)} survived, "
          f"{sum(1 for r in results if r[1] == 'stillborn')} did not build, "
          f"{sum(1 for r in results if r[1] == 'stale')} stale"
          + (f"; {100.0 * killed / len(counted):.0f}% killed" if counted else ""))
    for ident, _, kind in survivors:
        print(f"  survivor {ident}: {kind}" + (f" (equivalent: {EQUIVALENT[ident]})" if ident in EQUIVALENT else ""))
    # Restore the unmutated objects so that the next run starts from them.
    build_and_test(tree, build, args, env, test=False)
    return 1 if any(ident not in EQUIVALENT for ident, _, _ in survivors) else 0


def build_and_test(tree, build, args, env, test=True):
    made = run(["cmake", "--build", build, "-j", args.jobs, "--target", "meshplan_tests"], tree, env=env)
    if made.returncode != 0:
        return "build"
    if not test:
        return "built"
    try:
        suite = run([os.path.join(build, "meshplan_tests"), "--abort-after=1"], tree,
                    timeout=args.test_timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "killed-none" if suite.returncode in (0, 77) else "killed"


if __name__ == "__main__":
    sys.exit(main())
