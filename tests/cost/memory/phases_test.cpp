// Vision-tower activations, the critic phase and Megatron-specific residency in RL, by hand.
#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/vision_activations.hpp"
#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

using C = MemoryComponent;

/// A Qwen2.5-VL-like tower: depth 2, hidden 1280, 16 heads, SwiGLU 3420, patch 14, merge 2,
/// LM hidden 3584.
VisionSpec small_qwen25_vl_tower() {
  VisionSpec v;
  v.kind = "qwen2_5_vl";
  v.depth = 2;
  v.hidden_size = 1280;
  v.num_heads = 16;
  v.intermediate_size = 3420;
  v.patch_size = 14;
  v.temporal_patch_size = 2;
  v.spatial_merge_size = 2;
  v.out_hidden_size = 3584;
  return v;
}

TEST_CASE("Vision tower: patches from the resolution, per-layer activations, merger") {
  // A 448 x 448 image = 200,704 pixels -> 1,024 patches (256 LM tokens).
  // Per patch (FlashAttention, TP 1): 8h = 10,240; Q+K 2*(1280+1280) = 5,120; V 2,560; o 2,560;
  // lse 4*16 = 64; SwiGLU 6*3420 = 20,520 -> 41,064 bytes; x 1,024 = 42,049,536 per layer;
  // x 2 layers = 84,099,072; merger 2 x 1,024 x (1280 + 3584/4) = 4,456,448. Total 88,555,520.
  ModelSpec m = test::qwen25_7b();
  const VisionSpec v = small_qwen25_vl_tower();
  m.vision = v;
  CHECK(vision_patches_per_image(v, 448.0 * 448.0) == 1024.0);
  CHECK(vision_activation_bytes(m, Strategy{}, 1, 448.0 * 448.0, MemoryOptions{}, nullptr) == 88555520.0);
  CHECK(vision_activation_bytes(test::qwen25_7b(), Strategy{}, 1, 448.0 * 448.0, MemoryOptions{}, nullptr) ==
        0);
}

TEST_CASE("Vision activations: the first pipeline stage holds those of every micro-batch in flight") {
  // PP 2 with 1F1B: the first stage runs 2 forwards before its first backward, each with one
  // 448 x 448 image (88,555,520 bytes of tower activations, above): 177,111,040 bytes.
  ModelSpec m = test::qwen25_7b();
  m.vision = small_qwen25_vl_tower();
  Strategy s;
  s.pp = 2;
  s.dp = 4;
  Workload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.images_per_sample = 1;
  w.image_pixels = 448 * 448;
  const MemoryEstimate e =
      estimate_memory(m, test::cluster_of(test::gpu_with_memory(80), 1, 8), s, w, MemoryOptions{}, nullptr);
  double vision = 0;
  for (int i = 0; i < e.phase_count; ++i) vision = std::max(vision, e.phases[i][C::vision_activations]);
  CHECK(vision == 177111040.0);
}

Workload ppo() {
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 128;
  w.rl.rollout_tp = 2;
  w.rl.n = 1;
  w.rl.ppo_mini_batch = 32;
  w.rl.ppo_micro_batch_per_gpu = 2;
  w.rl.log_prob_micro_batch_per_gpu = 2;
  w.rl.use_critic = true;
  return w;
}

TEST_CASE("PPO with a critic adds update_critic and keeps the critic resident elsewhere") {
  Strategy s;
  s.backend = Backend::fsdp;
  s.dp = 8;
  s.zero = ZeroStage::zero3;
  s.recompute = Recompute::full;
  const MemoryEstimate e =
      estimate_memory(test::qwen25_7b(), test::cluster_of(test::gpu_with_memory(80), 1, 8), s, ppo(),
                      MemoryOptions{}, nullptr);
  REQUIRE(e.phase_count == 6);
  CHECK(e.phases[4].kind == MemoryPhaseKind::update_critic);
  // The critic (same shape) holds 16P/8 in its update plus the gathered units.
  CHECK(e.phases[4][C::critic_model] ==
        test::approx(16.0 * 7615616512 / 8 + 2.0 * (2.0 * 544997376 + 2.0 * 233057792)));
  // During the rollout the critic's fp32 weights (4) and Adam states (8) stay (no offload); FSDP
  // frees the gradients after the step: 12P/8.
  CHECK(e.phases[0][C::critic_model] == test::approx(12.0 * 7615616512 / 8));
  // The critic's loss is one fp32 value per token, no vocabulary logits: micro-batch 2 x 2048 tokens
  // -> 2*4096*3584 (head input) + 4*4096 = 29,376,512 bytes.
  CHECK(e.phases[4][C::logits] == 29376512.0);
}

TEST_CASE("Megatron RL: the grad buffer stays during the rollout unless grad_offload") {
  Strategy s;
  s.tp = 4;
  s.dp = 2;
  s.sequence_parallel = true;
  Workload w = ppo();
  w.rl.use_critic = false;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate kept = estimate_memory(test::qwen25_7b(), cluster, s, w, MemoryOptions{}, nullptr);
  CHECK(kept.phases[0][C::gradients] > 0);
  s.offload.grads = true;
  s.offload.params = true;
  s.offload.optimizer = true;
  const MemoryEstimate offloaded =
      estimate_memory(test::qwen25_7b(), cluster, s, w, MemoryOptions{}, nullptr);
  CHECK(offloaded.phases[0][C::gradients] == 0);
  CHECK(offloaded.phases[0][C::weights] == 0);
  // ...and comes back for the update.
  CHECK(offloaded.phases[3][C::gradients] == kept.phases[3][C::gradients]);
}

TEST_CASE("Megatron RL with a trained MTP module: its logits in the update, not in the forward-only passes") {
  // Each MTP depth computes its own logits in training (multi_token_prediction.py); verl's
  // log-prob passes run the main model's head only.
  ModelSpec m = test::qwen25_7b();
  m.num_mtp_layers = 1;
  Strategy s;
  s.tp = 4;
  s.dp = 2;
  Workload w = ppo();
  w.rl.use_critic = false;
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  const MemoryEstimate plain = estimate_memory(m, cluster, s, w, MemoryOptions{}, nullptr);
  s.train_mtp = true;
  const MemoryEstimate mtp = estimate_memory(m, cluster, s, w, MemoryOptions{}, nullptr);
  REQUIRE(plain.phases[1].kind == MemoryPhaseKind::old_log_prob);
  REQUIRE(plain.phases[3].kind == MemoryPhaseKind::update_actor);
  CHECK(mtp.phases[1][C::logits] == plain.phases[1][C::logits]);
  CHECK(mtp.phases[3][C::logits] == 2 * plain.phases[3][C::logits]);
}

TEST_CASE("fragmentation is the given fraction of every torch allocation, the reference model's included") {
  Strategy s;
  s.tp = 4;
  s.dp = 2;
  Workload w = ppo();
  MemoryOptions options;
  options.fragmentation = 0.1;
  const MemoryEstimate e = estimate_memory(test::qwen25_7b(), test::cluster_of(test::gpu_with_memory(80), 1, 8), s,
                                           w, options, nullptr);
  REQUIRE(e.phases[0][C::reference_model] > 0);  // Megatron keeps its reference on the GPU
  for (int i = 0; i < e.phase_count; ++i) {
    double torch_bytes = 0;
    for (C c : {C::weights, C::gradients, C::optimizer_states, C::lora_adapters, C::gathered_params, C::activations,
                C::logits, C::vision_activations, C::reference_model, C::critic_model, C::resharding_buffer}) {
      torch_bytes += e.phases[i][c];
    }
    CHECK(e.phases[i][C::fragmentation] == test::approx(0.1 * torch_bytes));
  }
}

}  // namespace
}  // namespace meshplan
