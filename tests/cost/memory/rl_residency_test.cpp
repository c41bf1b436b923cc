// Per-stage memory of an uneven pipeline split, the weight-sync buffers verl really allocates,
// the reference model's offload, and vLLM's start-up check that the KV cache holds one
// max_model_len sequence: hand-worked numbers in the comments.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/model_states.hpp"
#include "cost/memory/rl_phases.hpp"
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

/// verl's FSDP actor on 8 GPUs: ZeRO-3 over all of them, full recomputation.
Strategy fsdp8() {
  Strategy fsdp;
  fsdp.backend = Backend::fsdp;
  fsdp.zero = ZeroStage::zero3;
  fsdp.dp = 8;
  fsdp.recompute = Recompute::full;
  return fsdp;
}

/// The estimate of Qwen2.5-7B on one node of 8 x 80 GiB.
MemoryEstimate qwen_on_node(const Strategy& s, const Workload& w) {
  return estimate_memory(test::qwen25_7b(), test::cluster_of(test::gpu_with_memory(80), 1, 8), s, w,
                         MemoryOptions{}, nullptr);
}

TEST_CASE("weight sync: the update bucket plus one full tensor in flight, an FSDP reference is on the host") {
  const ModelSpec m = test::qwen25_7b();
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Strategy fsdp = fsdp8();
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

TEST_CASE("an FSDP reference is sharded over fsdp_size on the host, and a LoRA run has no reference model") {
  // Qwen2.5-7B on 8 GPUs with actor_rollout_ref.ref.fsdp_config.fsdp_size 4: the reference's fp32
  // shard is 4 x 7,615,616,512 / 4 = 7,615,616,512 bytes a GPU, x 8 GPUs a node on the host.
  Strategy fsdp = fsdp8();
  fsdp.fsdp_shard_size = 4;
  Workload with_ref = grpo();
  Workload without_ref = grpo();
  without_ref.rl.use_reference = false;
  const double host_with = qwen_on_node(fsdp, with_ref).host_bytes_per_node;
  const double host_without =
      qwen_on_node(fsdp, without_ref).host_bytes_per_node;
  CHECK(host_with - host_without == test::approx(8 * 7615616512.0));

  // With LoRA verl computes the reference log-probs with the actor's adapters disabled
  // (use_reference, ref_in_actor): no reference model on the host or on any phase's GPU.
  fsdp.lora.rank = 32;
  const MemoryEstimate lora = qwen_on_node(fsdp, with_ref);
  CHECK(lora.host_bytes_per_node ==
        test::approx(qwen_on_node(fsdp, without_ref).host_bytes_per_node));
  Strategy megatron;
  megatron.tp = 4;
  megatron.dp = 2;
  megatron.lora.rank = 32;
  const MemoryEstimate mg = qwen_on_node(megatron, with_ref);
  for (int i = 0; i < mg.phase_count; ++i) CHECK(mg.phases[i][C::reference_model] == 0.0);
}

const PhaseMemory& phase_of(const MemoryEstimate& e, MemoryPhaseKind kind) {
  for (int i = 0; i < e.phase_count; ++i) {
    if (e.phases[i].kind == kind) return e.phases[i];
  }
  FAIL("no such phase");
  return e.phases[0];
}

TEST_CASE("log-prob passes: the old one adds the entropy, the reference streams, LoRA reuses the actor") {
  // Old and reference log-prob passes run the same micro-batch (2 sequences) through the same LM
  // head: the old one also computes the entropy (7 bytes a logit against 2; fsdp_workers.py
  // compute_log_prob: calculate_entropy = not is_lora), the reference does not.
  Strategy fsdp = fsdp8();
  const MemoryEstimate full = qwen_on_node(fsdp, grpo());
  const PhaseMemory& old_pass = phase_of(full, MemoryPhaseKind::old_log_prob);
  const PhaseMemory& ref_pass = phase_of(full, MemoryPhaseKind::ref_log_prob);
  CHECK(old_pass[C::logits] > ref_pass[C::logits]);
  // The FSDP reference (CPUOffload) brings one unit's gathered parameters to the GPU at a time, the
  // same unit the actor gathers, not its 3,807,808,256-byte shard.
  CHECK(ref_pass[C::reference_model] == old_pass[C::gathered_params]);
  CHECK(ref_pass[C::reference_model] > 0.0);
  CHECK(ref_pass[C::reference_model] < 3807808256.0);

  // LoRA: no entropy in the old pass, and the reference pass loads the actor (adapters disabled)
  // even when its parameters are offloaded between phases.
  fsdp.lora.rank = 32;
  fsdp.offload.params = true;
  const MemoryEstimate lora = qwen_on_node(fsdp, grpo());
  const PhaseMemory& lora_old = phase_of(lora, MemoryPhaseKind::old_log_prob);
  const PhaseMemory& lora_ref = phase_of(lora, MemoryPhaseKind::ref_log_prob);
  CHECK(lora_old[C::logits] == lora_ref[C::logits]);
  CHECK(lora_ref[C::weights] > 0.0);
  CHECK(lora_ref[C::weights] == lora_old[C::weights]);
  CHECK(phase_of(lora, MemoryPhaseKind::update_actor)[C::weights] == lora_old[C::weights]);
}

TEST_CASE("the update's logits carry the entropy only when the loss uses it") {
  // Same micro-batch as the log-prob passes: with actor.entropy_coeff != 0 the update's logits are
  // the old pass's (entropy), without it the reference pass's (log-probs only).
  Strategy fsdp = fsdp8();
  Workload w = grpo();
  const MemoryEstimate plain = qwen_on_node(fsdp, w);
  CHECK(phase_of(plain, MemoryPhaseKind::update_actor)[C::logits] ==
        phase_of(plain, MemoryPhaseKind::ref_log_prob)[C::logits]);
  w.rl.entropy_in_update = true;
  const MemoryEstimate entropy = qwen_on_node(fsdp, w);
  CHECK(phase_of(entropy, MemoryPhaseKind::update_actor)[C::logits] ==
        phase_of(entropy, MemoryPhaseKind::old_log_prob)[C::logits]);
}

TEST_CASE("Megatron's weight sync gathers one routed expert's fc1 over the EP group") {
  // Mixtral-8x7B at TP 2, EP 4: one expert's fc1 is 2 x 14,336 x 4096 = 117,440,512 elements,
  // gathered over 4 EP ranks (megatron_utils.py per_tensor_generator): 469,762,048, more than the
  // 32,000 x 4096 vocabulary. 4 bytes an element (TP shards gathered, then concatenated) =
  // 1,879,048,192 + the 2048 MB bucket 2,147,483,648 = 4,026,531,840.
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Strategy megatron;
  megatron.tp = 2;
  megatron.dp = 4;
  megatron.ep = 4;
  const MemoryEstimate e = estimate_memory(test::mixtral_8x7b(), cluster, megatron, grpo(), MemoryOptions{}, nullptr);
  CHECK(phase_of(e, MemoryPhaseKind::weight_sync)[C::resharding_buffer] == 4026531840.0);
}

TEST_CASE("FSDP with offloaded parameters has no actor weights on the GPU during the weight sync") {
  // fsdp_workers.py rollout_mode: an offloaded actor streams its shards from the host; the GPU
  // holds the bucket and the tensor in flight, not the actor's weight shard.
  Strategy fsdp = fsdp8();
  const MemoryEstimate resident = qwen_on_node(fsdp, grpo());
  CHECK(phase_of(resident, MemoryPhaseKind::weight_sync)[C::weights] > 0.0);
  fsdp.offload.params = true;
  const MemoryEstimate offloaded = qwen_on_node(fsdp, grpo());
  CHECK(phase_of(offloaded, MemoryPhaseKind::weight_sync)[C::weights] == 0.0);
}

TEST_CASE("the trainer's tokens a sequence: real lengths with remove-padding, padded ones without") {
  RlSettings rl;
  rl.prompt_len = 512;
  rl.response_len = 1024;
  rl.mean_prompt_len = 300;
  rl.mean_response_len = 700;
  CHECK(rl_trainer_tokens_per_sequence(rl) == 1000.0);
  rl.use_remove_padding = false;
  CHECK(rl_trainer_tokens_per_sequence(rl) == 1536.0);
}

TEST_CASE("a dynamic-batch micro-batch is capped by the GPU's share of the mini-batch") {
  // verl-rules.md §0: ppo_mini_batch 64 x rollout.n 4 sequences over 8 GPUs in Ulysses groups of
  // 2 = 4 data-parallel groups: 64 sequences a group, each split in 2 = 768 tokens a GPU a
  // sequence: 49,152 tokens. A token budget at or above that gives one micro-batch of exactly those
  // tokens; one token less splits it.
  Strategy fsdp = fsdp8();
  fsdp.ulysses_sp = 2;
  Workload w = grpo();
  w.rl.use_remove_padding = false;
  w.rl.use_dynamic_bsz = true;
  auto update_activations = [&](std::int64_t budget) {
    w.rl.ppo_max_token_len_per_gpu = budget;
    const MemoryEstimate e = qwen_on_node(fsdp, w);
    return phase_of(e, MemoryPhaseKind::update_actor)[C::activations];
  };
  CHECK(update_activations(1000000) == update_activations(49152));
  CHECK(update_activations(49151) < update_activations(49152));
}

TEST_CASE("runtime overhead in RL: the weight-sync communicator, and one process when engines have their own GPUs") {
  // Colocated: the trainer and the engine's server are 2 processes (512 MiB of CUDA context each);
  // FSDP's DP communicator plus, with rollout TP > 1, the weight-sync one: 2 x 256 MiB of NCCL.
  const Strategy fsdp = fsdp8();
  Workload w = grpo();
  const MemoryEstimate colocated = qwen_on_node(fsdp, w);
  const PhaseMemory& update = phase_of(colocated, MemoryPhaseKind::update_actor);
  CHECK(update[C::cuda_context] == 2 * 512.0 * 1048576);
  CHECK(update[C::nccl_buffers] == 2 * 256.0 * 1048576);
  w.rl.rollout_tp = 1;  // no weight-sync communicator
  CHECK(phase_of(qwen_on_node(fsdp, w), MemoryPhaseKind::update_actor)[C::nccl_buffers] == 256.0 * 1048576);
  // Engines on 8 GPUs of their own: one process on each trainer GPU, and the trainer joins the
  // weight broadcast's communicator whatever the rollout TP.
  w.rl.rollout_gpus = 8;
  const MemoryEstimate standalone = qwen_on_node(fsdp, w);
  const PhaseMemory& own_update = phase_of(standalone, MemoryPhaseKind::update_actor);
  CHECK(own_update[C::cuda_context] == 512.0 * 1048576);
  CHECK(own_update[C::nccl_buffers] == 2 * 256.0 * 1048576);
}

TEST_CASE("host RAM holds the offloaded critic as well as the actor, and the sleeping engine's weights") {
  Strategy fsdp = fsdp8();
  Workload w = grpo();
  auto host = [&](const Strategy& s, const Workload& wl) {
    return qwen_on_node(s, wl).host_bytes_per_node;
  };
  const double kept = host(fsdp, w);
  fsdp.offload.params = true;
  fsdp.offload.optimizer = true;
  const double actor_offloaded = host(fsdp, w) - kept;
  REQUIRE(actor_offloaded > 0.0);
  // The critic (the same model, offloaded alike) adds as much again.
  Workload with_critic = w;
  with_critic.rl.use_critic = true;
  CHECK(host(fsdp, with_critic) - host(fsdp, w) == test::approx(actor_offloaded));
  // vLLM sleep level 1 (free_cache_engine) keeps the engine's weights in pinned host memory: 8 GPUs
  // a node, each the rollout phase's engine weights.
  const MemoryEstimate sleeping = qwen_on_node(fsdp, w);
  Workload awake = w;
  awake.rl.free_cache_engine = false;
  CHECK(host(fsdp, w) - host(fsdp, awake) ==
        test::approx(8 * phase_of(sleeping, MemoryPhaseKind::rollout)[C::rollout_weights]));
}

TEST_CASE("SGLang sizes its KV cache against what the trainer keeps resident, the reference included") {
  // Megatron keeps the bf16 reference on the GPU; SGLang's mem_fraction_static is taken of the
  // memory left (model_runner.profile_max_num_token), so the reference's bytes come out of the KV.
  Strategy megatron;
  megatron.tp = 2;
  megatron.dp = 4;
  Workload w = grpo();
  w.rl.engine = RolloutEngine::sglang;
  w.rl.gpu_memory_utilization = 0.9;  // room for a KV cache beside the resting actor
  const MemoryEstimate with_ref = qwen_on_node(megatron, w);
  w.rl.use_reference = false;
  const MemoryEstimate without_ref = qwen_on_node(megatron, w);
  const double reference = phase_of(with_ref, MemoryPhaseKind::rollout)[C::reference_model];
  REQUIRE(reference > 0.0);
  REQUIRE(with_ref.rollout.kv_cache_bytes > 0.0);
  CHECK(without_ref.rollout.kv_cache_bytes - with_ref.rollout.kv_cache_bytes == test::approx(reference));
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
