#pragma once
// The time estimate of one step: what `meshplan estimate` prints under `time` and what the
// planner ranks. Plain values with fixed storage, so that estimating allocates nothing.
#include <array>
#include <cstdint>

#include "cost/time/efficiency.hpp"

namespace meshplan {

/// Knobs of the time model that are not part of the parallel layout.
struct TimeOptions {
  EfficiencyConstants constants = fitted_efficiency_constants();
  /// Fused causal attention kernels (FlashAttention / cuDNN via Transformer Engine) compute
  /// only the lower triangle of the s×s scores; false models Megatron's 2021 unfused softmax.
  bool flash_attention = true;
  bool tp_comm_overlap = false;       ///< Megatron --tp-comm-overlap
  /// Without --tp-comm-overlap, the TP linears' backward runs the input all-gather (sequence
  /// parallelism) and the input gradient's reduce-scatter or all-reduce async, behind the dgrad and
  /// wgrad GEMMs, as Transformer Engine's linears do (module/linear.py, layernorm_linear.py,
  /// layernorm_mlp.py backward: async_op=True) and Megatron-core's own (tensor_parallel/layers.py
  /// LinearWithGradAccumulationAndAsyncCommunication). false: every collective waits, as
  /// Megatron-LM's linears did in Narayanan et al. 2021.
  bool tp_backward_async = true;
  bool overlap_grad_reduce = true;    ///< Megatron --overlap-grad-reduce (FSDP always prefetches)
  bool overlap_param_gather = true;   ///< Megatron --overlap-param-gather
  /// The FSDP backend runs Hugging Face modeling code (verl's FSDP workers, fsdp_sft_trainer);
  /// false: Megatron's own model code under ZeRO-3 (Narayanan et al. 2021 Table 2).
  bool hf_modeling = true;
  /// ZeRO-3 as DeepSpeed ran it in Narayanan et al. 2021 (Table 2): each rank's share of every
  /// parameter gather and gradient reduce-scatter crosses the group's slowest link, ~16-18 GB/s a
  /// GPU measured across Selene's nodes. false: NCCL's collective over the group, NVLink inside a
  /// node and the node's NICs together across nodes, as PyTorch FSDP2 and Megatron-FSDP run it
  /// (NeMo Automodel's FSDP2 rows across 8-128 H100 nodes, docs/accuracy.md).
  bool zero3_bottleneck_gather = false;
  /// MoE routing as a trained softmax router with an auxiliary loss spreads a micro-batch's tokens
  /// (Qwen3's, measured dropless): the most loaded EP rank sets each MoE layer's pace
  /// (compute_time.hpp moe_load_factor). false: every EP rank gets the mean, as force-balanced
  /// benchmarks (Megatron --moe-router-force-load-balancing) run and as the time model was fit.
  bool moe_dropless_imbalance = false;
  /// RL rollout: sequences one inference replica can decode at once, as the memory model's KV
  /// budget allows (0: not limited by memory, only by the batch).
  std::int64_t rollout_concurrent_sequences = 0;
};

/// Where the seconds of a step go; the parts sum to the step time.
struct TimeBreakdown {
  double compute = 0;          ///< GEMMs, attention, memory-bound kernels, optimizer step
  /// GPU idle while the host launches MoE layers: Megatron-core's token dispatcher syncs with the
  /// device in every MoE layer, so the host cannot run ahead (compute_time.cpp, moe_host_wait)
  double moe_host_wait = 0;
  double tp_comm = 0;          ///< exposed tensor-parallel collectives
  double pp_bubble = 0;        ///< pipeline fill/drain ((p−1)/v micro-batches) and stage imbalance
  double pp_comm = 0;          ///< pipeline point-to-point sends
  double dp_comm_exposed = 0;  ///< data-parallel gradient/parameter traffic not hidden by compute
  double cp_comm = 0;          ///< exposed ring-attention K/V exchange
  double ep_comm = 0;          ///< expert-parallel all-to-all
  double offload = 0;          ///< host↔device copies and CPU optimizer
  double rollout = 0;          ///< RL generation (prefill + decode) and the weight sync before it

  double total() const {
    return compute + moe_host_wait + tp_comm + pp_bubble + pp_comm + dp_comm_exposed + cp_comm + ep_comm + offload +
           rollout;
  }
  double communication() const { return tp_comm + pp_comm + dp_comm_exposed + cp_comm + ep_comm; }
  void add(const TimeBreakdown& other, double times = 1.0);
};

/// One phase of a step: "train" for pretraining/SFT; verl's timing_s/* names for RL.
struct TimePhase {
  const char* name = "";
  double seconds = 0;
};

struct TimeEstimate {
  static constexpr int kMaxPhases = 7;
  double step_seconds = 0;
  std::array<TimePhase, kMaxPhases> phases{};
  int num_phases = 0;
  TimeBreakdown breakdown;
  double tokens_per_second_per_gpu = 0;  ///< trained tokens (RL: prompt+response of the batch)
  double model_tflops_per_gpu = 0;       ///< model FLOPs (no recomputation) / step / GPU, 1e12
  double hardware_tflops_per_gpu = 0;    ///< with recomputation (Narayanan 2021 Eq. 3 style)
  double mfu = 0;                        ///< model FLOP/s over the dense peak of the compute dtype
  double comm_fraction = 0;              ///< exposed communication / step time
  double actor_update_mfu = 0;           ///< RL: the actor update alone, as verl's perf/mfu/actor
  /// RL, colocated: the weight update moves a MoE whose expert matrices are small (under
  /// 10 MB, rl_step_time.cpp), whose measured updates vary most (SGLang's per-expert loading up to
  /// 17x verl's rate; docs/accuracy.md "The weight update, measured apart").
  bool weight_sync_per_tensor_bound = false;

  void add_phase(const char* name, double seconds);
  /// The MoE layers' host wait over the step (0 without a step).
  double moe_host_wait_share() const { return step_seconds > 0 ? breakdown.moe_host_wait / step_seconds : 0.0; }
  /// Puts a phase at `index`, the later ones one place on.
  void insert_phase(int index, const char* name, double seconds);
};

}  // namespace meshplan
