// Every strategy rule at its boundary: the last passing configuration and the first failing one,
// each worked by hand from the rule's own source (Megatron-core, verl) in the case's comment.
// The passing side must be entirely valid; the failing side must break exactly the named rule.
#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>

#include "strategy/validate.hpp"

namespace meshplan {
namespace {

struct Setup {
  Strategy s;
  ModelSpec m;
  Cluster c;
  Workload w;
};

// Qwen2.5-7B's shape (config.json): 28 layers, 28 heads, 4 KV heads; 1 node x `gpus` A100
// (bf16 312 TFLOP/s); pretraining at seq 4096 with global batch 64; TP=PP=1, DP = gpus.
Setup base(int gpus = 8) {
  Setup x;
  x.m.name = "qwen2.5-7b-shape";
  x.m.num_layers = 28;
  x.m.hidden_size = 3584;
  x.m.attention.num_heads = 28;
  x.m.attention.num_kv_heads = 4;
  x.m.attention.head_dim = 128;
  NodeGroup group;
  group.nodes = 1;
  group.gpus_per_node = gpus;
  group.gpu.id = "A100-80GB";
  group.gpu.bf16_flops = 312e12;
  group.gpu.fp16_flops = 312e12;
  x.c = Cluster{{group}};
  x.s.dp = gpus;
  x.w.global_batch = 64;
  return x;
}

// The same shape with 8 routed experts per layer (Megatron MoE).
Setup moe(int experts = 8) {
  Setup x = base();
  x.m.moe = MoeSpec{};
  x.m.moe->num_experts = experts;
  x.m.moe->experts_per_token = 2;
  return x;
}

// The same shape with Gated DeltaNet layers of `key_heads` key and 2 x key_heads value heads
// (Qwen3-Next's ratio: 16 key, 32 value heads).
Setup hybrid(std::int64_t key_heads) {
  Setup x = base();
  LinearAttentionSpec linear;
  linear.num_layers = 21;
  linear.num_key_heads = key_heads;
  linear.num_value_heads = 2 * key_heads;
  x.m.linear_attention = linear;
  return x;
}

/// Nemotron 3 Nano's Mamba-2 layers: 64 heads in 8 B/C groups.
Setup mamba() {
  Setup x = base();
  LinearAttentionSpec mixer;
  mixer.kind = LinearAttentionKind::mamba2;
  mixer.num_layers = 23;
  mixer.num_key_heads = 8;
  mixer.num_value_heads = 64;
  mixer.key_head_dim = 128;
  mixer.value_head_dim = 64;
  x.m.linear_attention = mixer;
  return x;
}

Setup rl(int train, int mini, int n) {
  Setup x = base();
  x.w.kind = WorkloadKind::rl;
  x.w.global_batch = train;
  x.w.rl.ppo_mini_batch = mini;
  x.w.rl.n = n;
  return x;
}

struct BoundaryCase {
  const char* rule;
  std::function<Setup()> passing;
  std::function<Setup()> failing;
};

std::vector<std::string> ids(const Setup& x) {
  std::vector<std::string> out;
  for (const Violation& v : validate_strategy(x.s, x.m, x.c, x.w)) out.push_back(v.rule);
  return out;
}

const std::vector<BoundaryCase>& cases() {
  static const std::vector<BoundaryCase> list = {
      // Megatron arguments.py: every size >= 1. micro 1 passes, micro 0 fails.
      {"strategy.positive", [] { return base(); }, [] { Setup x = base(); x.s.micro_batch = 0; return x; }},
      // TP x PP x CP x DP = world: 2 x 1 x 1 x 4 = 8 passes; 2 x 1 x 1 x 3 = 6 != 8 fails.
      // (global batch 48: a multiple of DP 3 as of DP 4)
      {"world.factorization", [] { Setup x = base(); x.s.tp = 2; x.s.dp = 4; x.w.global_batch = 48; return x; },
       [] { Setup x = base(); x.s.tp = 2; x.s.dp = 3; x.w.global_batch = 48; return x; }},
      // bf16 needs bf16 FLOP/s: the same GPU with bf16_flops 0 (a V100) fails; fp16 on it passes.
      {"dtype.supported", [] { Setup x = base(); x.c.groups[0].gpu.bf16_flops = 0; x.s.compute_dtype = Dtype::fp16; return x; },
       [] { Setup x = base(); x.c.groups[0].gpu.bf16_flops = 0; return x; }},
      // verl's FSDP mesh is (dp,) or (dp, ulysses): TP 1 passes, TP 2 fails.
      {"fsdp.no-model-parallel", [] { Setup x = base(); x.s.backend = Backend::fsdp; return x; },
       [] { Setup x = base(); x.s.backend = Backend::fsdp; x.s.tp = 2; x.s.dp = 4; return x; }},
      // 28 heads, 4 KV heads: TP 4 divides both; TP 8 divides neither (28 % 8 = 4).
      {"tp.divides-heads", [] { Setup x = base(); x.s.tp = 4; x.s.dp = 2; return x; },
       [] { Setup x = base(); x.s.tp = 8; x.s.dp = 1; return x; }},
      // On 7 GPUs (global batch 56 = 7 x 8): TP 7 divides 28 heads but not 4 KV heads; TP 1 passes.
      {"tp.divides-kv-heads", [] { Setup x = base(7); x.w.global_batch = 56; return x; },
       [] { Setup x = base(7); x.s.tp = 7; x.s.dp = 1; x.w.global_batch = 56; return x; }},
      // Megatron-core GatedDeltaNet splits key and value heads by TP: TP 4 divides 16 key and 32
      // value heads (and 28 heads, 4 KV heads); TP 4 does not divide 6 key heads (6 % 4 = 2).
      {"tp.divides-linear-heads", [] { Setup x = hybrid(16); x.s.tp = 4; x.s.dp = 2; return x; },
       [] { Setup x = hybrid(6); x.s.tp = 4; x.s.dp = 2; return x; }},
      // Megatron-core MambaContextParallel with 64 heads in 8 groups: TP 2 CP 4 gives each CP rank 8 of
      // the TP rank's 32 heads and one of its 4 groups; TP 1 CP 8 passes too (one group a rank), TP 2
      // CP 8 repeats each of the 4 groups on 2 ranks (passes); 24 GPUs of CP fail on the heads alone
      // ("nheads must be evenly divisible by tp_size * cp_size": 64 % 24 = 16), their 8 groups
      // dividing CP 24 (3 ranks a group), on a sequence 2 x 24 divides (4128).
      {"cp.splits-mamba-heads", [] { Setup x = mamba(); x.s.tp = 2; x.s.cp = 4; x.s.dp = 1; return x; },
       [] {
         Setup x = mamba();
         x.s.cp = 24;
         x.s.dp = 1;
         x.c.groups[0].gpus_per_node = 24;
         x.w.seq_len = 4128;
         return x;
       }},
      // 28 layers: PP 4 (7 each) passes, PP 8 (28 % 8 = 4, no uneven split given) fails.
      {"pp.divides-layers", [] { Setup x = base(); x.s.pp = 4; x.s.dp = 2; return x; },
       [] { Setup x = base(); x.s.pp = 8; x.s.dp = 1; return x; }},
      // A custom layout over 28 layers, PP 2: "Et*14|t*14L" (14 + 14) passes; "Et*14|t*13L" holds
      // 27 decoder layers ("Number of decoder layers 27 must match num_layers 28").
      {"pp.layout", [] { Setup x = base(); x.s.pp = 2; x.s.dp = 4; x.s.pipeline_layout = "Et*14|t*14L"; return x; },
       [] { Setup x = base(); x.s.pp = 2; x.s.dp = 4; x.s.pipeline_layout = "Et*14|t*13L"; return x; }},
      // Interleaving needs PP >= 2: PP 2 VPP 2 (28 % 4 = 0; 64 / 4 = 16 micro-batches, a multiple
      // of PP) passes; PP 1 VPP 2 fails.
      {"vpp.requires-pp", [] { Setup x = base(); x.s.pp = 2; x.s.vpp = 2; x.s.dp = 4; return x; },
       [] { Setup x = base(); x.s.vpp = 2; return x; }},
      // CP 4 needs seq % (2 x 4) == 0: 4104 = 8 x 513 passes, 4100 = 8 x 512 + 4 fails.
      {"cp.divides-sequence", [] { Setup x = base(); x.s.cp = 4; x.s.dp = 2; x.w.seq_len = 4104; return x; },
       [] { Setup x = base(); x.s.cp = 4; x.s.dp = 2; x.w.seq_len = 4100; return x; }},
      // ETP alone (EP 1) on a dense model fails; the same ETP on the MoE shape passes.
      {"ep.requires-moe", [] { Setup x = moe(); x.s.etp = 2; return x; }, [] { Setup x = base(); x.s.etp = 2; return x; }},
      // 6 experts: EP 2 divides them (and 8 GPUs); EP 4 does not (6 % 4 = 2).
      {"ep.divides-experts", [] { Setup x = moe(6); x.s.ep = 2; return x; }, [] { Setup x = moe(6); x.s.ep = 4; return x; }},
      // ETP x EP x PP divides 8: 2 x 4 x 1 = 8 passes; 2 x 4 x 2 = 16 fails (PP 2: 28 % 2 = 0, DP 4).
      {"ep.divides-world", [] { Setup x = moe(); x.s.etp = 2; x.s.ep = 4; return x; },
       [] { Setup x = moe(); x.s.etp = 2; x.s.ep = 4; x.s.pp = 2; x.s.dp = 4; return x; }},
      // Ulysses SP over 28 heads and 4 KV heads: 4 divides both; 8 does not divide 28.
      {"ulysses.divides-heads", [] { Setup x = base(); x.s.backend = Backend::fsdp; x.s.ulysses_sp = 4; return x; },
       [] { Setup x = base(); x.s.backend = Backend::fsdp; x.s.ulysses_sp = 8; return x; }},
      // SP 2 on 6 GPUs divides 6 (and 28 heads, 4 KV heads); SP 4 does not (6 % 4 = 2).
      // (global batch 48 = 6 x 8)
      {"ulysses.divides-world",
       [] { Setup x = base(6); x.s.backend = Backend::fsdp; x.s.ulysses_sp = 2; x.w.global_batch = 48; return x; },
       [] { Setup x = base(6); x.s.backend = Backend::fsdp; x.s.ulysses_sp = 4; x.w.global_batch = 48; return x; }},
      // Hybrid shard group over DP 8: 4 divides it, 3 does not.
      {"fsdp.shard-size", [] { Setup x = base(); x.s.backend = Backend::fsdp; x.s.fsdp_shard_size = 4; return x; },
       [] { Setup x = base(); x.s.backend = Backend::fsdp; x.s.fsdp_shard_size = 3; return x; }},
      // Block recompute on PP 2: a stage chunk holds 28 / 2 = 14 layers: 14 passes, 15 fails.
      {"recompute.num-layers",
       [] { Setup x = base(); x.s.pp = 2; x.s.dp = 4; x.s.recompute = Recompute::full;
            x.s.recompute_method = RecomputeMethod::block; x.s.recompute_num_layers = 14; return x; },
       [] { Setup x = base(); x.s.pp = 2; x.s.dp = 4; x.s.recompute = Recompute::full;
            x.s.recompute_method = RecomputeMethod::block; x.s.recompute_num_layers = 15; return x; }},
      // Selective recompute of mla_up_proj: an MLA model passes, the standard-attention shape fails.
      {"recompute.mla-up-proj",
       [] { Setup x = base(); x.m.attention.kind = AttentionKind::mla; x.s.recompute = Recompute::selective;
            x.s.recompute_modules = kRecomputeMlaUpProj; return x; },
       [] { Setup x = base(); x.s.recompute = Recompute::selective; x.s.recompute_modules = kRecomputeMlaUpProj;
            return x; }},
      // Megatron-core cpu_offloading_num_layers on 28 layers: 27 passes, 28 fails.
      {"offload.activations-layers", [] { Setup x = base(); x.s.activation_offload_layers = 27; return x; },
       [] { Setup x = base(); x.s.activation_offload_layers = 28; return x; }},
      // Activation offloading at PP 1 passes; at PP 2 (DP 4) Megatron-core refuses it.
      {"offload.activations-pp", [] { Setup x = base(); x.s.activation_offload_layers = 4; return x; },
       [] { Setup x = base(); x.s.activation_offload_layers = 4; x.s.pp = 2; x.s.dp = 4; return x; }},
      // Without recompute it passes; with selective recompute Megatron-core refuses it.
      {"offload.activations-recompute", [] { Setup x = base(); x.s.activation_offload_layers = 4; return x; },
       [] { Setup x = base(); x.s.activation_offload_layers = 4; x.s.recompute = Recompute::selective; return x; }},
      // EP all-to-all overlap (transformer_config.py __post_init__): EP 2 on the 8-expert shape
      // passes, EP 1 fails ("only supported with expert model parallelism").
      {"moe.a2a-overlap-ep", [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; return x; },
       [] { Setup x = moe(); x.s.moe_a2a_overlap = true; return x; }},
      // The overlap on a GPT MoE model passes; on the same layers as single-sublayer hybrid layers
      // (a Megatron-core HybridModel, which has no build_schedule_plan) it fails.
      {"moe.a2a-overlap-gpt-model", [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; return x; },
       [] {
         Setup x = moe();
         x.s.ep = 2;
         x.s.moe_a2a_overlap = true;
         x.m.hybrid_layer_pattern = std::string(static_cast<std::size_t>(x.m.num_layers), 'E');  // a HybridModel
         return x;
       }},
      // PP 2 with VPP 2 (28 layers, 7 a chunk; global 64 / DP 4 = 16 micro-batches, a multiple of
      // PP) passes; PP 2 without interleaving fails.
      {"moe.a2a-overlap-vpp",
       [] { Setup x = moe(); x.s.ep = 2; x.s.pp = 2; x.s.vpp = 2; x.s.dp = 4; x.s.moe_a2a_overlap = true; return x; },
       [] { Setup x = moe(); x.s.ep = 2; x.s.pp = 2; x.s.dp = 4; x.s.moe_a2a_overlap = true; return x; }},
      // Selective recompute of core attention passes; recomputing the MoE layer fails.
      {"moe.a2a-overlap-recompute",
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.recompute = Recompute::selective; return x; },
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.recompute = Recompute::selective;
            x.s.recompute_modules = kRecomputeMoe; return x; }},
      // fp16 passes ("bf16 or fp16 model"); fp32 (the A100's 19.5 TFLOP/s) fails.
      {"moe.a2a-overlap-dtype",
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.compute_dtype = Dtype::fp16; return x; },
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.compute_dtype = Dtype::fp32;
            x.c.groups.front().gpu.fp32_flops = 19.5e12; return x; }},
      // Training one MTP layer passes; two fail ("MTP supports at most one layer").
      {"moe.a2a-overlap-mtp",
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.train_mtp = true; x.m.num_mtp_layers = 1; return x; },
       [] { Setup x = moe(); x.s.ep = 2; x.s.moe_a2a_overlap = true; x.s.train_mtp = true; x.m.num_mtp_layers = 2; return x; }},
      // MXFP8 (Transformer Engine check_mxfp8_support): passes on an NVIDIA Blackwell part, fails on
      // the base case's A100 (Ampere; FP8 given a peak so the dtype rule passes).
      {"fp8.mxfp8-blackwell",
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_recipe = Fp8Recipe::mxfp8;
            x.c.groups.front().gpu.fp8_flops = 4.5e15; x.c.groups.front().gpu.vendor = "NVIDIA";
            x.c.groups.front().gpu.arch = "Blackwell (2 dies)"; return x; },
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_recipe = Fp8Recipe::mxfp8;
            x.c.groups.front().gpu.fp8_flops = 624e12; x.c.groups.front().gpu.vendor = "NVIDIA";
            x.c.groups.front().gpu.arch = "Ampere GA100"; return x; }},
      // fp8_output_proj (TransformerConfig.__post_init__ at d0b3b775): the mxfp8 recipe passes, the
      // default delayed one fails ("fp8_output_proj requires fp8_recipe='mxfp8'").
      {"fp8.output-proj-mxfp8",
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_recipe = Fp8Recipe::mxfp8; x.s.fp8_output_proj = true;
            x.c.groups.front().gpu.fp8_flops = 4.5e15; x.c.groups.front().gpu.vendor = "NVIDIA";
            x.c.groups.front().gpu.arch = "Blackwell (2 dies)"; return x; },
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_output_proj = true;
            x.c.groups.front().gpu.fp8_flops = 624e12; return x; }},
      // FP8 attention over attention sinks (Transformer Engine get_attention_backend): on Blackwell
      // it passes (FusedAttention from v2.15), on the base case's A100 no backend takes it.
      {"fp8.attention-sinks-blackwell",
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_attention = true; x.m.attention.sinks = true;
            x.c.groups.front().gpu.fp8_flops = 4.5e15; x.c.groups.front().gpu.vendor = "NVIDIA";
            x.c.groups.front().gpu.arch = "Blackwell (2 dies)"; return x; },
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp8; x.s.fp8_attention = true; x.m.attention.sinks = true;
            x.c.groups.front().gpu.fp8_flops = 624e12; x.c.groups.front().gpu.vendor = "NVIDIA"; return x; }},
      // NVFP4 (Transformer Engine check_nvfp4_support): passes where the GPU has an NVFP4 peak (a
      // Blackwell part), fails on the base case's A100 (none).
      {"fp4.nvfp4-blackwell",
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp4; x.c.groups.front().gpu.fp4_flops = 10e15;
            x.c.groups.front().gpu.vendor = "NVIDIA"; x.c.groups.front().gpu.arch = "Blackwell (2 dies)"; return x; },
       [] { Setup x = base(); x.s.compute_dtype = Dtype::fp4; x.c.groups.front().gpu.vendor = "NVIDIA"; return x; }},
      // Transformer Engine's op fuser (TEGroupedMLP._is_fused_impl_supported): ETP 1 passes, ETP 2
      // (EP 2 x ETP 2 of the 8 GPUs) fails ("Tensor parallelism is not supported").
      {"moe.op-fuser-etp", [] { Setup x = moe(); x.s.ep = 2; x.s.te_op_fuser = true; return x; },
       [] { Setup x = moe(); x.s.ep = 2; x.s.etp = 2; x.s.te_op_fuser = true; return x; }},
      // DeepEP's cooperative launch: as many SMs as the GPU has pass (the base case's A100, 108),
      // one more fails.
      {"moe.flex-sms-gpu",
       [] { Setup x = moe(); x.s.moe_dispatcher = MoeDispatcher::flex; x.s.moe_dispatcher_sms = 108;
            x.c.groups.front().gpu.sm_count = 108; return x; },
       [] { Setup x = moe(); x.s.moe_dispatcher = MoeDispatcher::flex; x.s.moe_dispatcher_sms = 109;
            x.c.groups.front().gpu.sm_count = 108; return x; }},
      // CUDA graphs (transformer_config.py __post_init__, "if self.cuda_graph_impl != \"none\":").
      // The Megatron backend takes them; the FSDP backend (ZeRO-3 over 8) has none.
      {"graph.megatron", [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::local; return x; },
       [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::local; x.s.backend = Backend::fsdp;
            x.s.zero = ZeroStage::zero3; return x; }},
      // Full recompute passes under full_iteration and fails under per-layer graphs.
      {"graph.full-recompute",
       [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::full_iteration; x.s.recompute = Recompute::full;
            return x; },
       [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::local; x.s.recompute = Recompute::full; return x; }},
      // Offloading 4 layers' activations passes under full_iteration, fails under per-layer graphs.
      {"graph.cpu-offload",
       [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::full_iteration; x.s.activation_offload_layers = 4;
            return x; },
       [] { Setup x = base(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.activation_offload_layers = 4; return x; }},
      // moe_router on the 8-expert shape passes; moe with moe_router fails.
      {"graph.moe-modules",
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoeRouter; return x; },
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoeRouter | kGraphMoe; return x; }},
      // mlp on a model whose 28 layers are all MoE fails (Megatron: moe_layer_freq == 1); with one
      // dense layer (27 MoE layers of 28) it passes.
      {"graph.mlp-dense-layers",
       [] { Setup x = moe(); x.m.moe->num_moe_layers = 27; x.s.cuda_graph_impl = CudaGraphImpl::local;
            x.s.cuda_graph_modules = kGraphAttn | kGraphMlp; return x; },
       [] { Setup x = moe(); x.m.moe->num_moe_layers = 28; x.s.cuda_graph_impl = CudaGraphImpl::local;
            x.s.cuda_graph_modules = kGraphAttn | kGraphMlp; return x; }},
      // Transformer Engine's graphs: moe_router + moe_preprocess passes, moe_preprocess alone fails.
      {"graph.moe-preprocess",
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoeRouter | kGraphMoePreprocess; return x; },
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoePreprocess; return x; }},
      // A graphed router with selective recompute of core attention passes; recomputing moe fails.
      {"graph.moe-recompute",
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoeRouter; x.s.recompute = Recompute::selective; return x; },
       [] { Setup x = moe(); x.s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
            x.s.cuda_graph_modules = kGraphMoeRouter; x.s.recompute = Recompute::selective;
            x.s.recompute_modules = kRecomputeMoe; return x; }},
      // DP 8 x micro 2 = 16: global 64 passes, 56 = 3 x 16 + 8 fails.
      {"batch.global-divisible", [] { Setup x = base(); x.s.micro_batch = 2; return x; },
       [] { Setup x = base(); x.s.micro_batch = 2; x.w.global_batch = 56; return x; }},
      // verl R9: train 16 >= mini 16 passes (local 16 x 1 / 8 = 2 % micro 1 = 0); mini 17 fails.
      {"rl.train-batch-ge-mini", [] { return rl(16, 16, 1); }, [] { return rl(16, 17, 1); }},
      // Local mini = 16 x 1 / DP 8 = 2: micro 2 divides it; micro 4 does not.
      {"rl.mini-batch-divisible", [] { Setup x = rl(16, 16, 1); x.w.rl.ppo_micro_batch_per_gpu = 2; return x; },
       [] { Setup x = rl(16, 16, 1); x.w.rl.ppo_micro_batch_per_gpu = 4; return x; }},
      // PP 2 VPP 2 DP 4 micro 1: global 8 gives 8 / 4 = 2 micro-batches (= PP) and passes;
      // global 12 gives 3, not a multiple of PP 2, and fails.
      {"vpp.micro-batch-groups", [] { Setup x = base(); x.s.pp = 2; x.s.vpp = 2; x.s.dp = 4; x.w.global_batch = 8; return x; },
       [] { Setup x = base(); x.s.pp = 2; x.s.vpp = 2; x.s.dp = 4; x.w.global_batch = 12; return x; }},
      // Rollout TP 4 tiles 8 GPUs and divides 28 heads and 4 KV heads; TP 8 does not divide 28.
      {"rl.rollout-tp", [] { Setup x = rl(16, 16, 1); x.w.rl.rollout_tp = 4; return x; },
       [] { Setup x = rl(16, 16, 1); x.w.rl.rollout_tp = 8; return x; }},
  };
  return list;
}

}  // namespace

TEST_CASE("every strategy rule has a boundary case") {
  std::set<std::string> covered;
  for (const BoundaryCase& c : cases()) covered.insert(c.rule);
  for (const RuleInfo& rule : strategy_rules()) CHECK_MESSAGE(covered.count(std::string(rule.id)) == 1, rule.id);
}

TEST_CASE("each strategy rule passes at its boundary and fails one step past it") {
  for (const BoundaryCase& c : cases()) {
    const std::string rule = c.rule;
    CAPTURE(rule);
    const Setup pass = c.passing();
    const std::vector<std::string> passing = ids(pass);
    CHECK_MESSAGE(passing.empty(), "passing side breaks " << (passing.empty() ? "" : passing.front()));
    const Setup fail = c.failing();
    const std::vector<std::string> failing = ids(fail);
    std::string broken;
    for (const std::string& id : failing) broken += id + " ";
    // Every TP that divides the KV heads divides the heads too (query groups divide the heads),
    // so tp.divides-heads never fails alone: its failing side breaks tp.divides-kv-heads as well.
    const std::vector<std::string> expected =
        rule == "tp.divides-heads" ? std::vector<std::string>{rule, "tp.divides-kv-heads"} : std::vector<std::string>{rule};
    CHECK_MESSAGE(failing == expected, "failing side breaks " << broken);
    CHECK(first_violation(fail.s, fail.m, fail.c, fail.w) == rule);
  }
}

TEST_CASE("more boundaries: local mini batch of 0, fewer micro-batches than PP, rollout TP 3") {
  // 4 x 1 / 8 = 0 sequences per GPU: nothing to split (verl: "should be larger than 0").
  Setup empty = rl(16, 4, 1);
  CHECK(ids(empty) == std::vector<std::string>{"rl.mini-batch-divisible"});
  // global 4 on DP 4: 1 micro-batch < PP 2.
  Setup few = base();
  few.s.pp = 2;
  few.s.vpp = 2;
  few.s.dp = 4;
  few.w.global_batch = 4;
  CHECK(ids(few) == std::vector<std::string>{"vpp.micro-batch-groups"});
  // Rollout TP 3 does not tile 8 GPUs per node.
  Setup three = rl(16, 16, 1);
  three.w.rl.rollout_tp = 3;
  CHECK(ids(three) == std::vector<std::string>{"rl.rollout-tp"});
  // Block recompute with VPP 2 on PP 2: a chunk holds 28 / (2 x 2) = 7 layers; 8 fails.
  Setup vpp = base();
  vpp.s.pp = 2;
  vpp.s.vpp = 2;
  vpp.s.dp = 4;
  vpp.s.recompute = Recompute::full;
  vpp.s.recompute_method = RecomputeMethod::block;
  vpp.s.recompute_num_layers = 7;
  CHECK(ids(vpp).empty());
  vpp.s.recompute_num_layers = 8;
  CHECK(ids(vpp) == std::vector<std::string>{"recompute.num-layers"});
  // With a size below 1 only strategy.positive is reported: the other rules divide by the sizes.
  Setup zero = base();
  zero.s.tp = 0;
  CHECK(ids(zero) == std::vector<std::string>{"strategy.positive"});
}

}  // namespace meshplan
