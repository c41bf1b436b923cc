// Per-stage memory of an uneven pipeline split, the weight-sync buffers verl really allocates,
// the reference model's offload, and vLLM's start-up check that the KV cache holds one
// max_model_len sequence: hand-worked numbers in the comments.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"
#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

using C = MemoryComponent;

TEST_CASE("uneven pipeline split: each stage holds its own layers, embedding first, LM head last") {
  // Llama-2-7B (202,383,360 params per layer, embedding and LM head 131,072,000 each; the vocab
  // 32000 is already a multiple of 128) on PP 4 with 5 layers first and 3 last: the two middle
  // stages take (32 - 8) / 2 = 12 each.
  const ModelSpec m = test::llama2_7b();
  Strategy s;
  s.pp = 4;
  s.dp = 2;
  s.first_stage_layers = 5;
  s.last_stage_layers = 3;
  auto weights = [&](PipelineStage stage) {
    return model_state_bytes(m, s, stage, OffloadMode::training, nullptr).weights;
  };
  // first: 2 x (5 x 202,383,360 + 131,072,000) = 2,285,977,600 bytes
  CHECK(weights(PipelineStage::first) == test::approx(2285977600.0));
  // middle: 2 x 12 x 202,383,360 = 4,857,200,640 bytes
  CHECK(weights(PipelineStage::middle) == test::approx(4857200640.0));
  // last: 2 x (3 x 202,383,360 + 131,072,000 + final norm 4,096) = 1,476,452,352 bytes
  CHECK(weights(PipelineStage::last) == test::approx(1476452352.0));
  CHECK(pipeline_stage_index(s, PipelineStage::middle) == 1);
  CHECK(pipeline_stage_index(s, PipelineStage::last) == 3);

  // The training step's most loaded rank is the middle stage (12 layers, p - 1 = 3 micro-batches in
  // flight), not a stage charged the largest stage's layers.
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  const MemoryEstimate e = estimate_memory(m, test::cluster_of(test::gpu_with_memory(80), 1, 8), s, w,
                                           MemoryOptions{}, nullptr);
  CHECK(e.phases[0].stage == 1);
  CHECK(e.phases[0][C::weights] == test::approx(4857200640.0));
}

Workload grpo() {
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 64;
  w.rl.rollout_tp = 2;
  w.rl.n = 4;
  w.rl.prompt_len = 512;
  w.rl.response_len = 1024;
  w.rl.ppo_micro_batch_per_gpu = 2;
  w.rl.log_prob_micro_batch_per_gpu = 2;
  return w;
}

TEST_CASE("weight sync: the update bucket plus one full tensor in flight, an FSDP reference is on the host") {
  const ModelSpec m = test::qwen25_7b();
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Strategy fsdp;
  fsdp.backend = Backend::fsdp;
  fsdp.zero = ZeroStage::zero3;
  fsdp.dp = 8;
  fsdp.recompute = Recompute::full;
  Workload w = grpo();
  const MemoryEstimate e = estimate_memory(m, cluster, fsdp, w, MemoryOptions{}, nullptr);
  const PhaseMemory& sync = e.phases[e.phase_count - 1];
  REQUIRE(sync.kind == MemoryPhaseKind::weight_sync);
  // The largest tensor is the 152,064 x 3,584 = 544,997,376-element embedding; FSDP gathers it in
  // fp32 and casts it to bf16 (6 bytes per element = 3,269,984,256) next to the 2048 MB bucket
  // (2,147,483,648): 5,417,467,904 bytes.
  CHECK(sync[C::resharding_buffer] == test::approx(5417467904.0));
  CHECK(sync[C::kv_cache] == 0);  // the KV cache wakes after the weights
  // verl wraps an FSDP reference in CPUOffload(offload_params=True) whatever
  // ref.fsdp_config.param_offload says (fsdp_workers.py v0.6.1:492; the engine workers' FSDP engine
  // for a forward_only engine at 1dda039b9): no phase but its own holds it, and host RAM holds its
  // shard, in fp32 (ref.fsdp_config.model_dtype, set by verl >= 0.6's engine/fsdp.yaml):
  // 4 x 7,615,616,512 / 8 = 3,807,808,256 bytes a GPU; verl <= 0.5 loaded it in bf16, half of that.
  CHECK(sync[C::reference_model] == 0);
  Workload bf16_ref = w;
  bf16_ref.rl.ref_param_bytes = 2;
  const MemoryEstimate old = estimate_memory(m, cluster, fsdp, bf16_ref, MemoryOptions{}, nullptr);
  CHECK(old.phases[old.phase_count - 1][C::reference_model] == 0);
  CHECK(e.host_bytes_per_node - old.host_bytes_per_node == test::approx(8 * 3807808256.0 / 2));  // 8 GPUs a node
  w.rl.ref_param_offload = true;  // ref.fsdp_config.param_offload=True: the same
  const MemoryEstimate offloaded = estimate_memory(m, cluster, fsdp, w, MemoryOptions{}, nullptr);
  CHECK(offloaded.phases[offloaded.phase_count - 1][C::reference_model] == 0);
  CHECK(offloaded.host_bytes_per_node == test::approx(e.host_bytes_per_node));

  // Megatron TP 4: bf16 TP shards all-gathered and concatenated (2 + 2 bytes per element):
  // 4 x 544,997,376 = 2,179,989,504 + the bucket = 4,327,473,152 bytes.
  Strategy megatron;
  megatron.tp = 4;
  megatron.dp = 2;
  const MemoryEstimate mg = estimate_memory(m, cluster, megatron, grpo(), MemoryOptions{}, nullptr);
  CHECK(mg.phases[mg.phase_count - 1][C::resharding_buffer] == test::approx(4327473152.0));
}

TEST_CASE("vLLM refuses to start when the KV cache holds less than one max_model_len sequence") {
  // Qwen2.5-7B, rollout TP 1, prompt 1024 + response 8192, gpu_memory_utilization 0.20 on an
  // 80 GiB GPU: budget 0.2 x 85,899,345,920 = 17,179,869,184; weights 2 x 7,615,616,512 =
  // 15,231,233,024; profile run 8192 x 2 x (2 x 3584 + 4608 + 3 x 18944) = 1,124,073,472 + sampler
  // 256 x 152,064 x 8 = 311,427,072; KV = 513,135,616 bytes / 57,344 per token = 8,948 tokens
  // < 9,216. One sequence needs (15,231,233,024 + 1,435,500,544 + 9,216 x 57,344) / capacity
  // = 0.2002 of the GPU.
  const ModelSpec m = test::qwen25_7b();
  Strategy s;
  s.backend = Backend::fsdp;
  s.zero = ZeroStage::zero3;
  s.dp = 8;
  s.recompute = Recompute::full;
  Workload w = grpo();
  w.rl.rollout_tp = 1;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 8192;
  w.rl.gpu_memory_utilization = 0.20;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate e = estimate_memory(m, cluster, s, w, MemoryOptions{}, nullptr);
  CHECK(e.rollout.kv_tokens_per_replica == 8948);
  CHECK(e.rollout.max_model_len == 9216);
  CHECK_FALSE(e.rollout.holds_one_sequence);
  CHECK(e.kv_below_one_sequence);
  CHECK_FALSE(e.fits);
  CHECK(e.rollout.gpu_memory_utilization_for_one_sequence == test::approx(17195215872.0 / 85899345920.0));
  w.rl.gpu_memory_utilization = 0.21;
  const MemoryEstimate fixed = estimate_memory(m, cluster, s, w, MemoryOptions{}, nullptr);
  CHECK(fixed.rollout.holds_one_sequence);
  CHECK_FALSE(fixed.kv_below_one_sequence);
  // rollout.max_model_len 8192 (8,192 x 57,344 = 469,762,048 bytes) fits the 0.20 budget's KV.
  w.rl.max_model_len = 8192;
  w.rl.gpu_memory_utilization = 0.20;
  CHECK(estimate_memory(m, cluster, s, w, MemoryOptions{}, nullptr).rollout.holds_one_sequence);
}

}  // namespace
}  // namespace meshplan
