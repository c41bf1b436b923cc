// The whole estimate: logits, rollout KV accounting, the training phase of a 7B model worked by
// hand, RL phases, and the trace.
#include "cost/memory/memory_estimate.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"
#include "cost/memory/logits.hpp"
#include "cost/memory/rollout_memory.hpp"
#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

using C = MemoryComponent;

TEST_CASE(
    "Logits: Megatron cross entropy 6 bytes per element, verl log-prob 2 (7 with entropy), chunked bounded") {
  Strategy megatron;
  RlSettings rl;
  // Llama-2-7B, 4096 tokens: 2*4096*4096 = 33,554,432 + 6*4096*32000 = 786,432,000.
  CHECK(logits_bytes(test::llama2_7b(), megatron, 4096, LossKind::cross_entropy, rl, nullptr) == 819986432.0);
  Strategy fsdp;
  fsdp.backend = Backend::fsdp;
  // Qwen2.5-7B, 4096 tokens: 2*4096*3584 = 29,360,128 + 7*4096*152064 = 4,359,979,008.
  CHECK(logits_bytes(test::qwen25_7b(), fsdp, 4096, LossKind::verl_log_prob_entropy, rl, nullptr) ==
        4389339136.0);
  // Log-probs only: 29,360,128 + 2*4096*152064 = 1,245,708,288.
  CHECK(logits_bytes(test::qwen25_7b(), fsdp, 4096, LossKind::verl_log_prob, rl, nullptr) == 1275068416.0);
  // Chunked (2048): 29,360,128 + 2*4096*152064 = 1,245,708,288 + 5*2048*152064 = 1,557,135,360.
  rl.entropy_chunking = true;
  rl.entropy_chunk_tokens = 2048;
  CHECK(logits_bytes(test::qwen25_7b(), fsdp, 4096, LossKind::verl_log_prob_entropy, rl, nullptr) ==
        2832203776.0);
  // Fused kernels (use_fused_kernels, FusedLinearForPPO): one 512-token chunk of fp32 logits,
  // log-softmax and probabilities at a time: 29,360,128 + 12*512*152064 = 934,281,216.
  rl.use_fused_kernels = true;
  CHECK(logits_bytes(test::qwen25_7b(), fsdp, 4096, LossKind::verl_log_prob_entropy, rl, nullptr) ==
        963641344.0);
}

TEST_CASE("Logits: Megatron pads the vocabulary to a multiple of 128 x TP before splitting it") {
  // Megatron-LM training/tokenizer _vocab_size_with_padding (make_vocab_size_divisible_by 128):
  // GPT-2's 50,257 tokens at TP 2 pad to 197 x 256 = 50,432, 25,216 a rank. 4096 tokens of a
  // 4096-wide model: 2*4096*4096 = 33,554,432 + 6*4096*25,216 = 619,708,416.
  ModelSpec model = test::llama2_7b();
  model.vocab_size = 50257;
  Strategy megatron;
  megatron.tp = 2;
  CHECK(logits_bytes(model, megatron, 4096, LossKind::cross_entropy, RlSettings{}, nullptr) == 653262848.0);
}

TEST_CASE("a trained MTP module adds its own logits and a layer's activations on the last stage") {
  // Llama-2-7B with one (dense) MTP module, 4096 tokens at PP 1: the logits double (819,986,432 x 2,
  // above); the activations grow by one layer and the module's enorm, hnorm and eh_proj inputs
  // (8sbh = 8 x 4096 x 4096 = 134,217,728 bytes).
  ModelSpec model = test::llama2_7b();
  model.num_mtp_layers = 1;
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 8;
  Strategy s;
  s.dp = 8;
  NodeGroup group;
  group.gpus_per_node = 8;
  group.gpu.memory_bytes = 80LL << 30;
  const Cluster cluster{{group}};
  const MemoryEstimate plain = estimate_memory(model, cluster, s, w, MemoryOptions{}, nullptr);
  s.train_mtp = true;
  const MemoryEstimate mtp = estimate_memory(model, cluster, s, w, MemoryOptions{}, nullptr);
  CHECK(mtp.phases[0][C::logits] == 2 * plain.phases[0][C::logits]);
  CHECK(plain.phases[0][C::logits] == 819986432.0);
  const double layer = (plain.phases[0][C::activations] - 8.0 * 4096) / 32;  // 32 layers + token ids
  CHECK(mtp.phases[0][C::activations] - plain.phases[0][C::activations] == test::approx(layer + 134217728.0));
}

TEST_CASE("KV bytes per token: GQA replicated when TP > KV heads, MLA latent not split") {
  // Qwen2.5-7B: 2 x 28 layers x 4 heads x 128 x 2 bytes = 57,344; TP 2: 28,672; TP 8: 1 head each.
  CHECK(kv_bytes_per_token(test::qwen25_7b(), 1) == 57344.0);
  CHECK(kv_bytes_per_token(test::qwen25_7b(), 2) == 28672.0);
  CHECK(kv_bytes_per_token(test::qwen25_7b(), 8) == 14336.0);
  // DeepSeek-V2-Lite: 27 x (512 + 64) x 2 = 31,104 at any TP.
  CHECK(kv_bytes_per_token(test::deepseek_v2_lite(), 4) == 31104.0);
}

TEST_CASE("Llama-2-7B pretraining on 8 x 80 GiB, Megatron DP8, full recompute: every term by hand") {
  // weights 13,476,831,232 + grads 26,953,662,464 + optimizer 10,107,623,424
  // + activations 1,613,266,944 + logits 819,986,432 = 52,971,370,496 torch bytes;
  // fragmentation 5% = 2,648,568,524.8; CUDA context 512 MiB; NCCL one DP communicator 256 MiB.
  // Peak 56,425,245,388.8 bytes (52.55 GiB).
  Strategy s;
  s.dp = 8;
  s.recompute = Recompute::full;
  s.recompute_num_layers = 1;
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate e = estimate_memory(test::llama2_7b(), cluster, s, w, MemoryOptions{}, nullptr);
  REQUIRE(e.phase_count == 1);
  const PhaseMemory& p = e.phases[0];
  CHECK(p[C::weights] == 13476831232.0);
  CHECK(p[C::gradients] == 26953662464.0);
  CHECK(p[C::optimizer_states] == 10107623424.0);
  CHECK(p[C::activations] == test::approx(1613266944.0));
  CHECK(p[C::logits] == 819986432.0);
  CHECK(p[C::fragmentation] == test::approx(2648568524.8));
  CHECK(p[C::cuda_context] == 536870912.0);
  CHECK(p[C::nccl_buffers] == 268435456.0);
  CHECK(e.peak_bytes == test::approx(56425245388.8));
  CHECK(e.fits);
  CHECK(e.headroom_bytes == test::approx(80.0 * 1073741824 - 56425245388.8));

  // Overrides replace the constants; on a 40 GiB GPU it no longer fits.
  MemoryOptions o;
  o.overhead_bytes = 0;
  o.fragmentation = 0;
  const MemoryEstimate bare = estimate_memory(test::llama2_7b(), cluster, s, w, o, nullptr);
  CHECK(bare.peak_bytes == test::approx(52971370496.0));
  const MemoryEstimate small = estimate_memory(
      test::llama2_7b(), test::cluster_of(test::gpu_with_memory(40), 1, 8), s, w, MemoryOptions{}, nullptr);
  CHECK_FALSE(small.fits);
  CHECK(small.headroom_bytes < 0);
}

TEST_CASE("Pipeline parallel: the most loaded stage is reported") {
  Strategy s;
  s.pp = 4;
  s.dp = 2;
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate e = estimate_memory(test::llama2_7b(), cluster, s, w, MemoryOptions{}, nullptr);
  // First stage: 4 micro-batches of 8 layers' activations dominate the last stage's logits.
  CHECK(e.peak().stage == 0);
  s.recompute = Recompute::full;
  s.recompute_num_layers = 8;
  w.seq_len = 32768;
  s.cp = 1;
  const MemoryEstimate long_seq = estimate_memory(test::llama2_7b(), cluster, s, w, MemoryOptions{}, nullptr);
  // With whole-stage recompute the last stage's 32k x 32000 logits dominate.
  CHECK(long_seq.peak().stage == 3);
}

Workload grpo_workload() {
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 256;
  w.rl.rollout_tp = 2;
  w.rl.n = 4;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 1024;
  w.rl.gpu_memory_utilization = 0.5;
  w.rl.ppo_mini_batch = 64;
  w.rl.ppo_micro_batch_per_gpu = 4;
  w.rl.log_prob_micro_batch_per_gpu = 8;
  return w;
}

Strategy fsdp8() {
  Strategy s;
  s.backend = Backend::fsdp;
  s.dp = 8;
  s.zero = ZeroStage::zero3;
  s.recompute = Recompute::full;
  s.recompute_num_layers = 1;
  return s;
}

TEST_CASE("verl GRPO on Qwen2.5-7B, FSDP on 8 x 80 GiB: phases, KV budget and concurrent sequences") {
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate e =
      estimate_memory(test::qwen25_7b(), cluster, fsdp8(), grpo_workload(), MemoryOptions{}, nullptr);
  REQUIRE(e.phase_count == 5);  // rollout, old_log_prob, ref_log_prob, update_actor, weight_sync
  CHECK(e.phases[0].kind == MemoryPhaseKind::rollout);
  CHECK(e.phases[2].kind == MemoryPhaseKind::ref_log_prob);
  CHECK(e.phases[4].kind == MemoryPhaseKind::weight_sync);
  // Budget 0.5 x 80 GiB = 42,949,672,960. Engine weights 2 x ((P - norms)/2 + norms) =
  // 7,615,820,800; workspace 8192 x 75,776 + 256 x 76,032 x 8 = 776,470,528;
  // KV = 34,557,381,632 -> 1,205,265 tokens of 28,672 bytes -> 588 sequences of 2048, capped at
  // max_num_seqs 256.
  CHECK(e.phases[0][C::rollout_weights] == 7615820800.0);
  CHECK(e.phases[0][C::engine_workspace] == 776470528.0);
  CHECK(e.rollout.kv_cache_bytes == 34557381632.0);
  CHECK(e.rollout.kv_tokens_per_replica == 1205265);
  CHECK(e.rollout.concurrent_sequences_per_replica == 256);
  CHECK(e.rollout.replicas == 4);
  CHECK(e.rollout.sequences_per_step == 1024);
  CHECK(e.rollout.kv_tokens_needed == 1024 * 2048);
  CHECK(e.rollout.kv_holds_all);
  // The sleeping engine keeps only its CUDA graphs during the update.
  CHECK(e.phases[3][C::kv_cache] == 0);
  CHECK(e.phases[3][C::cuda_graphs] == 0.5 * 1073741824);
  // Update: the full sharded actor (16 bytes/param / 8) is on the GPU.
  CHECK(e.phases[3][C::weights] + e.phases[3][C::gradients] + e.phases[3][C::optimizer_states] ==
        16.0 * 7615616512 / 8);
  CHECK(e.fits);
}

TEST_CASE(
    "RL: offloading the actor frees it during rollout, keeping the engine awake costs its whole budget") {
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Strategy s = fsdp8();
  const MemoryEstimate kept =
      estimate_memory(test::qwen25_7b(), cluster, s, grpo_workload(), MemoryOptions{}, nullptr);
  s.offload.params = true;
  s.offload.optimizer = true;
  const MemoryEstimate offloaded =
      estimate_memory(test::qwen25_7b(), cluster, s, grpo_workload(), MemoryOptions{}, nullptr);
  CHECK(offloaded.phases[0][C::weights] == 0);
  CHECK(offloaded.phases[0][C::optimizer_states] == 0);
  CHECK(kept.phases[0][C::optimizer_states] == 8.0 * 7615616512 / 8);  // Adam m, v in fp32
  CHECK(offloaded.host_bytes_per_node > kept.host_bytes_per_node);
  Workload awake = grpo_workload();
  awake.rl.free_cache_engine = false;
  const MemoryEstimate e =
      estimate_memory(test::qwen25_7b(), cluster, fsdp8(), awake, MemoryOptions{}, nullptr);
  CHECK(e.phases[3][C::kv_cache] == e.rollout.kv_cache_bytes);
}

TEST_CASE("RL: a budget smaller than the engine weights leaves no KV cache, which does not fit") {
  Workload w = grpo_workload();
  w.rl.gpu_memory_utilization = 0.05;
  w.rl.rollout_tp = 1;
  const MemoryEstimate e =
      estimate_memory(test::qwen25_7b(), test::cluster_of(test::gpu_with_memory(80), 1, 8), fsdp8(), w,
                      MemoryOptions{}, nullptr);
  CHECK(e.kv_cache_exhausted);
  CHECK(e.rollout.concurrent_sequences_per_replica == 0);
  CHECK_FALSE(e.fits);
}

TEST_CASE(
    "Dynamic batch size: the token budget sets the micro-batch, SGLang sizes KV against resident memory") {
  Workload w = grpo_workload();
  w.rl.use_dynamic_bsz = true;
  w.rl.ppo_max_token_len_per_gpu = 16384;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate e = estimate_memory(test::qwen25_7b(), cluster, fsdp8(), w, MemoryOptions{}, nullptr);
  // 16384 tokens, log-probs only (no entropy in the loss): 2*16384*3584 + 2*16384*152064 = 5,100,273,664.
  CHECK(e.phases[3][C::logits] == 5100273664.0);
  // The old log-prob pass computes the entropy too: 2*16384*3584 + 7*16384*152064 = 17,557,356,544.
  CHECK(e.phases[1][C::logits] == 17557356544.0);
  w.rl.engine = RolloutEngine::sglang;
  const MemoryEstimate sg = estimate_memory(test::qwen25_7b(), cluster, fsdp8(), w, MemoryOptions{}, nullptr);
  CHECK(sg.rollout.kv_cache_bytes < e.rollout.kv_cache_bytes);  // the resident actor counts against it
}

TEST_CASE("Trace: null builds nothing and changes nothing, non-null names every term") {
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Trace trace;
  const MemoryEstimate plain =
      estimate_memory(test::qwen25_7b(), cluster, fsdp8(), grpo_workload(), MemoryOptions{}, nullptr);
  const MemoryEstimate traced =
      estimate_memory(test::qwen25_7b(), cluster, fsdp8(), grpo_workload(), MemoryOptions{}, &trace);
  CHECK(plain.peak_bytes == traced.peak_bytes);
  CHECK(trace.size() > 10);
  auto has = [&](const char* name) {
    return std::any_of(trace.begin(), trace.end(), [&](const TraceTerm& t) { return t.name == name; });
  };
  CHECK(has("memory/rollout/kv_cache"));
  CHECK(has("memory/logits"));
  CHECK(has("memory/phase/update_actor"));
  for (const TraceTerm& t : trace) {
    CHECK_FALSE(t.formula.empty());
    CHECK_FALSE(t.source.empty());
  }
}

TEST_CASE("Component and phase names come from a static table") {
  CHECK(std::string(memory_component_name(C::kv_cache)) == "kv_cache");
  CHECK(std::string(memory_component_name(C::fragmentation)) == "fragmentation");
  CHECK(std::string(memory_phase_name(MemoryPhaseKind::weight_sync)) == "weight_sync");
}

}  // namespace
}  // namespace meshplan
