#include "cost/memory/rollout_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "cost/memory/memory_trace.hpp"
#include "model/kv_cache.hpp"

namespace meshplan {
namespace {

constexpr double kEngineDtypeBytes = 2;       // bf16 weights, activations and KV (verl rollout.dtype)
constexpr double kSamplerLogitBytes = 4 + 4;  // fp32 logits + probabilities in the sampler

// vLLM's profile run: one forward of max_num_batched_tokens tokens (one layer's activations live
// at a time: residual, QKV, attention output, gated MLP) plus the sampler's fp32 logits for
// max_num_seqs sequences. An approximation of gpu_worker.determine_available_memory's peak.
double engine_workspace_bytes(const ModelSpec& model, const RlSettings& rl) {
  const double tp = std::max(rl.rollout_tp, 1);
  const AttentionSpec& a = model.attention;
  const double qkv = double((a.num_heads + 2 * a.num_kv_heads) * a.head_dim) / tp;
  const double ffn = double(model.moe ? model.moe->expert_intermediate_size * model.moe->experts_per_token +
                                            model.moe->shared_intermediate_size
                                      : model.dense_mlp.intermediate_size) /
                     tp;
  const double per_token = kEngineDtypeBytes * (2.0 * double(model.hidden_size) + qkv + 3.0 * ffn);
  return double(rl.max_num_batched_tokens) * per_token +
         double(rl.max_num_seqs) * double(model.vocab_size) / tp * kSamplerLogitBytes;
}

}  // namespace

double kv_bytes_per_token(const ModelSpec& model, int rollout_tp) {
  return kv_cache_shape(model, int(kEngineDtypeBytes), rollout_tp).bytes_per_token_bound();
}

int rollout_replica_gpus(const RlSettings& rl) {
  // A launch may give any sizes: the product is taken in 64 bits and capped, never overflowed.
  const std::int64_t gpus = std::int64_t{std::max(rl.rollout_tp, 1)} * std::max(rl.rollout_dp, 1);
  return static_cast<int>(std::min<std::int64_t>(gpus, std::numeric_limits<int>::max()));
}

int rollout_gpus(const Strategy& trainer, const RlSettings& rl) {
  return rl.rollout_gpus > 0 ? rl.rollout_gpus : trainer.world_size();
}

double rollout_linear_weight_bytes(const RlSettings& rl) { return rl.rollout_fp8 ? 1.0 : kEngineDtypeBytes; }

double rollout_unquantized_params(const ModelSpec& model) {
  const ParamBreakdown& p = model.params;
  return double(p.embedding + p.lm_head + p.position_embedding + p.routers + p.layer_norms + p.final_norm);
}

double rollout_weight_bytes(const ModelSpec& model, const RlSettings& rl) {
  const double norms = double(model.params.layer_norms + model.params.final_norm);
  const double routed = double(model.params.routed_experts);
  const double kept = rollout_unquantized_params(model) - norms;  // sharded, in the rollout dtype
  const double linear = double(model.total_params) - norms - routed - kept;
  const double q = rollout_linear_weight_bytes(rl);
  // vLLM FusedMoEParallelConfig.make (model_executor/layers/fused_moe/config.py): the routed
  // experts are split over all rollout_tp x rollout_dp GPUs of the replica, each expert sharded
  // (TP flattened across DP) or, with enable_expert_parallel, whole experts per GPU: the same bytes.
  return (kEngineDtypeBytes * kept + q * linear) / std::max(rl.rollout_tp, 1) + q * routed / rollout_replica_gpus(rl) +
         kEngineDtypeBytes * norms;
}

RolloutMemory rollout_memory(const ModelSpec& model, const Workload& w, int world, double capacity,
                             double other, Trace* trace) {
  const RlSettings& rl = w.rl;
  RolloutMemory m;
  m.weights = rollout_weight_bytes(model, rl);
  m.workspace = engine_workspace_bytes(model, rl);
  m.cuda_graphs = rl.enforce_eager ? 0.0 : kCudaGraphBytes;
  const bool vllm = rl.engine == RolloutEngine::vllm;
  double kv = 0;
  if (rl.engine == RolloutEngine::trtllm) {
    // TensorRT-LLM: rollout.gpu_memory_utilization is KvCacheConfig.free_gpu_memory_fraction (verl
    // trtllm_async_server.py launch_server), the share of the memory still free once the weights
    // are loaded and the profile run is done (what the trainer keeps resident is not free).
    kv = rl.gpu_memory_utilization * (capacity - other - m.weights - m.workspace);
    m.budget = m.weights + m.workspace + std::max(kv, 0.0);
  } else {
    m.budget = rl.gpu_memory_utilization * capacity;
    kv = vllm ? m.budget - m.weights - m.workspace : m.budget - other - m.weights;
  }
  m.kv_cache = std::max(kv, 0.0);

  RolloutCapacity& c = m.capacity;
  c.replicas = world / rollout_replica_gpus(rl);
  c.tokens_per_sequence = rl.prompt_len + rl.response_len;
  // Per token of a full-length sequence: sliding layers capped at the window, linear-attention
  // state once per sequence (model/kv_cache.hpp, vLLM's hybrid allocator).
  const KvCacheShape shape = kv_cache_shape(model, int(kEngineDtypeBytes), rl.rollout_tp);
  c.kv_bytes_per_token = c.tokens_per_sequence > 0
                             ? shape.bytes_per_sequence(c.tokens_per_sequence) / double(c.tokens_per_sequence)
                             : shape.bytes_per_token_bound();
  c.kv_cache_bytes = m.kv_cache;
  // Each of the replica's rollout_dp engine instances keeps its own KV cache over its rollout_tp
  // GPUs and schedules at most max_num_seqs sequences.
  const std::int64_t engines = std::max(rl.rollout_dp, 1);
  const std::int64_t kv_tokens_per_engine = c.kv_bytes_per_token > 0 ? std::int64_t(m.kv_cache / c.kv_bytes_per_token) : 0;
  c.kv_tokens_per_replica = engines * kv_tokens_per_engine;
  const std::int64_t held = c.tokens_per_sequence > 0 ? kv_tokens_per_engine / c.tokens_per_sequence : 0;
  c.concurrent_sequences_per_replica = engines * std::min<std::int64_t>(held, rl.max_num_seqs);
  c.sequences_per_step = std::int64_t(rl.n) * w.global_batch;
  c.kv_tokens_needed = c.sequences_per_step * c.tokens_per_sequence;
  c.kv_holds_all = c.kv_tokens_per_replica * std::int64_t(c.replicas) >= c.kv_tokens_needed;
  // vLLM's start-up check (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory): the KV
  // cache must hold one max_model_len sequence; verl sets max_model_len = prompt + response unless
  // rollout.max_model_len is given (vllm_async_server.py). SGLang starts and caps request lengths.
  c.max_model_len = rl.max_model_len > 0 ? rl.max_model_len : c.tokens_per_sequence;
  const double one_sequence = double(c.max_model_len) * c.kv_bytes_per_token;
  c.holds_one_sequence = !vllm || m.kv_cache >= one_sequence;
  c.gpu_memory_utilization_for_one_sequence =
      capacity > 0 ? (m.weights + m.workspace + one_sequence) / capacity : 0.0;

  trace_bytes(trace, "memory/rollout/weights", m.weights,
              "2 * ((params - norms - routed experts) / rollout_tp + routed experts / (rollout_tp * rollout_dp) + norms)",
              "vLLM/SGLang tensor-parallel linear and vocab layers (norms replicated); vLLM "
              "FusedMoEParallelConfig.make (experts over the replica's TP x DP GPUs)",
              [&] {
                return fmt::format("params={} routed_experts={} rollout_tp={} rollout_dp={} expert_parallel={}",
                                   model.total_params, model.params.routed_experts, rl.rollout_tp, rl.rollout_dp,
                                   rl.rollout_ep > 1);
              });
  trace_bytes(trace, "memory/rollout/engine_workspace", m.workspace,
              "max_num_batched_tokens * 2 * (2h + qkv/tp + 3*ffn/tp) + max_num_seqs * V/tp * 8",
              "approximation of vLLM's profile run (gpu_worker.determine_available_memory)", [&] {
                return fmt::format("max_num_batched_tokens={} max_num_seqs={}", rl.max_num_batched_tokens,
                                   rl.max_num_seqs);
              });
  const bool trtllm = rl.engine == RolloutEngine::trtllm;
  trace_bytes(trace, "memory/rollout/kv_cache", m.kv_cache,
              vllm     ? "gpu_memory_utilization * capacity - weights - workspace"
              : trtllm ? "free_gpu_memory_fraction * (capacity - resident_other - weights - workspace)"
                       : "mem_fraction_static * capacity - resident_other - weights",
              vllm ? "vLLM V1 from 0.9.2 (fraction of total memory from a start-up snapshot; 0.9.1 and older count "
                     "the GPU's other memory inside it, verl/fit/vllm_budget.hpp; formulas.md)"
              : trtllm ? "TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction = rollout.gpu_memory_utilization "
                         "(verl trtllm_async_server.py launch_server)"
                       : "SGLang model_runner.profile_max_num_token (fraction of free memory)",
              [&] {
                return fmt::format(
                    "utilization={} capacity={:.6g} resident_other={:.6g} kv_per_token={:.6g} "
                    "kv_tokens={} concurrent_sequences={} needed_tokens={} max_model_len={} holds_one={}",
                    rl.gpu_memory_utilization, capacity, other, c.kv_bytes_per_token, c.kv_tokens_per_replica,
                    c.concurrent_sequences_per_replica, c.kv_tokens_needed, c.max_model_len, c.holds_one_sequence);
              });
  trace_bytes(trace, "memory/rollout/cuda_graphs", m.cuda_graphs, "0.5 GiB unless enforce_eager",
              "vLLM 'Graph capturing finished ... took X GiB' (assumed constant)",
              [&] { return fmt::format("enforce_eager={}", rl.enforce_eager); });
  return m;
}

}  // namespace meshplan
