// Measured rates of the trainer-to-engine weight update, by framework and placement: model bytes
// (bf16, every parameter once) over the seconds the framework reports for a whole update. None is
// fit on step times; each is the median (or the sum) of the update times its framework's sources
// publish (docs/accuracy.md "The weight update, measured apart").
#pragma once

namespace meshplan {

// Colocated verl (the sharding managers, then the checkpoint engine's "naive" backend over CUDA IPC
// buckets, verl/checkpoint_engine/base.py ColocatedCheckpointEngine), vLLM engines: the median of 17
// measured updates of models meshplan has a preset of, 1.8 to 25 GB/s (dense FSDP fastest, Megatron
// at low TP slowest):
//   ISEEKYAN/verl_megatron_practice at dfd811adc (mid-2025, `timing_s/reshard`, which holds the
//     engine's wake-up): Qwen2.5-(Math-)7B FSDP 1.0 / 1.4 s, Megatron TP 4 3.2 s, TP 2 4.4 / 8.6 s,
//     TP 2 CP 2 on H20 7.6 s; Qwen2.5-32B FSDP 2.614 s, TP 8 PP 2 6.225 s; Qwen3-30B-A3B FSDP 13 s,
//     TP 4 EP 16 5.5 s, EP 8 8.5 s, EP 32 4.5 s, EP 8 on H20 12 s; Qwen3-235B-A22B TP 4 PP 8 EP 32 25 s;
//   verl PR #7348 (2026-08, `timing_s/update_weights`): Qwen3-30B-A3B TP 2 PP 4 EP 8, 7.8 s;
//   verl PR #4280 / issue #5311 (2026-01/02): DeepSeek-V3.1 TP 8 PP 16 EP 8 120 s, PP 16 EP 16 80 s.
// (The same PR's Qwen3-VL-30B-A3B, 5 s, has no preset.) tests/cost/calibration/verl_weight_sync_test.cpp
// recomputes the median from the presets' parameter counts.
inline constexpr double kVerlColocatedSyncBps = 10.53e9;

// Colocated NeMo RL (refit_policy_generation: packed CUDA IPC buffers, streamed over ZMQ from v0.4,
// PR #1267), the median of four measured refits, 28-38 GB/s:
//   DeepSeek-V3: PR #638 (2025-07) 55 s of which ~20 s the offload, so ~35 s; NeMo RL's refit blog
//     (2025-08) 47.2 s (12.2 s gather, 33.5 s IPC, 1.5 s load); PR #1267's review (2025-10) ~35 s;
//   Qwen3-30B-A3B on 16 GB200: PR #3461 (2026-08) 1.895 s.
inline constexpr double kNemoRlColocatedRefitBps = 35.3e9;

// verl's checkpoint engine with the nccl backend, engines on GPUs of their own (verl
// docs/advance/delta_weight_sync.md at 1dda039b9, "Measured results": H100 nodes, verl V1
// separate_async, steady-state sync of the full broadcast): the payload leaves one sender (actor
// rank 0) after the full tensors are gathered and bucketed, far below the link's rate. Model bytes
// (bf16) over seconds, summed over the rows with parameter offload off:
//   dense: Qwen2.5-32B on 2+2 nodes 65.5 GB in 14.2 s, Qwen2.5-72B on 4+4 nodes 145.4 GB in
//          28.5-29.1 s (28.8): 210.9 GB / 43.0 s = 4.90 GB/s;
//   MoE (expert stacks restacked into per-expert tensors): Qwen3-30B-A3B on 1+1 nodes 61.1 GB in
//          32.2 s, Qwen3-235B-A22B on 8+2 nodes 470.2 GB in 246-266 s (256): 531.3 GB / 288.2 s
//          = 1.84 GB/s.
// The rate does not grow with the nodes (one sender). With parameter offload the shards are
// paged back first (Qwen2.5-32B: 17.7-18.1 s); that is not costed.
inline constexpr double kVerlBroadcastDenseBps = 4.90e9;
inline constexpr double kVerlBroadcastMoeBps = 1.84e9;

}  // namespace meshplan
