#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "approx.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/memory/rollout_memory.hpp"
#include "cost/time/rl_step_time.hpp"
#include "cost/time/step_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/flops.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
namespace {

Workload rl_workload() {
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 4;
  workload.rl.n = 1;
  workload.rl.rollout_tp = 1;
  workload.rl.prompt_len = 128;
  workload.rl.response_len = 256;
  workload.seq_len = 384;
  // vLLM without async scheduling (before 0.14.0): the engine's host work adds to each step.
  workload.rl.vllm_async_scheduling = false;
  return workload;
}

TEST_CASE("decode is memory-bound: weights + KV of the batch read once per generated token") {
  // Tiny GPT, 27,267,072 params in bf16 = 54,534,144 B streamed at HBM 2.039e12 x the weights'
  // decode efficiency; 4 sequences at mean context 128 + 256/2 = 256 tokens x 8192 B = 8,388,608 B
  // of KV per step, read at 2.039e12 x the KV efficiency; each of the 256 steps also waits for the
  // engine's host work (vLLM).
  const ModelSpec model = test::tiny_gpt();
  CHECK(model.total_params == 27267072);
  const Workload workload = rl_workload();
  EfficiencyConstants k = test::simple_options().constants;
  k.decode_layer_seconds = 0;  // no per-layer floor: the step is the bytes it reads
  const RolloutTime rollout = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 0, k, nullptr);
  CHECK(rollout.concurrent_sequences == 4);
  CHECK(rollout.waves == 1);
  const double weights_s = 54534144.0 / (2.039e12 * k.decode_hbm_efficiency);
  const auto kv_s = [&](double bytes) { return bytes / (2.039e12 * k.decode_kv_efficiency); };
  CHECK(rollout.decode_s == test::approx(256 * (weights_s + kv_s(8388608.0) + k.engine_step_seconds)).epsilon(1e-6));

  SUBCASE("a per-layer floor of 1 ms sets the step of a model that reads little") {
    k.decode_layer_seconds = 1e-3;  // 2 layers: 2 ms per step, above the 57 us of weight and KV bytes
    const RolloutTime floored = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 0, k, nullptr);
    CHECK(floored.decode_s == test::approx(256 * (2e-3 + k.engine_step_seconds)).epsilon(1e-6));
  }

  SUBCASE("the longest response runs on alone after the batch's mean") {
    RlSettings tail = workload.rl;
    tail.mean_response_len = 128;  // mean 128 of at most 256: 4 x 128 / 4 = 128 steps of 4, then 128 steps of 1
    const RolloutTime rollout_tail = rollout_time(model, test::a100_node(), Strategy{}, tail, 4, 0, k, nullptr);
    // The 4 hold 128 + 128/2 = 192 tokens x 8192 B of KV on average; the last one runs from
    // position 128 to 256, holding 128 + 192 = 320 on average.
    const double step4 = weights_s + kv_s(4 * 192 * 8192.0) + k.engine_step_seconds;
    const double step1 = weights_s + kv_s(320 * 8192.0) + k.engine_step_seconds;
    CHECK(rollout_tail.decode_s == test::approx(128 * step4 + 128 * step1).epsilon(1e-6));
  }

  SUBCASE("fp8 rollout streams the linear layers' weights at a byte each") {
    // The tiny GPT's embedding (1000 x 1024), learned positions (1024 x 1024) and norms
    // (2 x 2 x 2048 + 2048) stay bf16: 2,082,816 weights x 2 B; its 25,184,256 projection and MLP
    // weights (biases counted with them) at 1 B: 29,349,888 B a step against 54,534,144. The A100
    // has no fp8 tensor cores, so vLLM dequantizes into 16-bit GEMMs (Marlin) and prefill is unchanged.
    RlSettings fp8 = workload.rl;
    fp8.rollout_fp8 = true;
    const RolloutTime quantized = rollout_time(model, test::a100_node(), Strategy{}, fp8, 4, 0, k, nullptr);
    const double fp8_weights_s = 29349888.0 / (2.039e12 * k.decode_hbm_efficiency);
    CHECK(quantized.decode_s == test::approx(256 * (fp8_weights_s + kv_s(8388608.0) + k.engine_step_seconds)).epsilon(1e-6));
    CHECK(quantized.prefill_s == test::approx(rollout.prefill_s));
  }

  SUBCASE("fp8 rollout on fp8 tensor cores: the projections' and MLPs' prefill GEMMs at the fp8 rate") {
    // The A100 given fp8 tensor cores at twice its bf16 peak and an fp8 GEMM as efficient as a bf16
    // one: the prompt's projection and MLP FLOPs take half the time, attention scores and the LM
    // head the same.
    NodeGroup node = test::a100_node();
    node.gpu.fp8_flops = 2 * 312e12;
    k.fp8_relative_efficiency = 1.0;
    RlSettings fp8 = workload.rl;
    fp8.rollout_fp8 = true;
    const RolloutTime bf16_prefill = rollout_time(model, node, Strategy{}, workload.rl, 4, 0, k, nullptr);
    const RolloutTime fp8_prefill = rollout_time(model, node, Strategy{}, fp8, 4, 0, k, nullptr);
    const ForwardFlops flops = forward_flops_per_token(model, 128);
    const double quantized = flops.attention_projections + flops.mlp;
    CHECK(quantized / flops.total() > 0.9);  // the tiny GPT's 128-token prompt is nearly all GEMMs
    CHECK(fp8_prefill.prefill_s ==
          test::approx(bf16_prefill.prefill_s * (flops.total() - quantized / 2) / flops.total()).epsilon(1e-9));
  }

  SUBCASE("without CUDA graphs (enforce_eager) a step is the longer of the GPU's work and the host's launches") {
    // The host launches each dense layer's kernels in 0.2 ms: the tiny GPT's 2 layers take 0.4 ms,
    // over its 57 us of weight and KV reads, so each of the 256 steps is 0.4 ms and the engine's
    // host work.
    RlSettings eager = workload.rl;
    eager.enforce_eager = true;
    const RolloutTime slow = rollout_time(model, test::a100_node(), Strategy{}, eager, 4, 0, k, nullptr);
    CHECK(slow.decode_s == test::approx(256 * (0.4e-3 + k.engine_step_seconds)).epsilon(1e-6));
    // With a GPU step of 2 ms (a 1 ms floor a layer) the launches hide behind it: nothing changes.
    k.decode_layer_seconds = 1e-3;
    const RolloutTime graphed = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 0, k, nullptr);
    const RolloutTime hidden = rollout_time(model, test::a100_node(), Strategy{}, eager, 4, 0, k, nullptr);
    CHECK(hidden.decode_s == test::approx(graphed.decode_s).epsilon(1e-9));
    CHECK(hidden.decode_s == test::approx(256 * (2e-3 + k.engine_step_seconds)).epsilon(1e-6));
  }

  SUBCASE("partial rollout: no step waits for the longest response, the warm-up batch decodes beside it") {
    // verl's V1 colocate_async: mean 128 of at most 256, one warm-up batch. The engine holds the
    // prompts of 2 batches (8 sequences, under max_num_seqs) and stops when a batch's worth of
    // tokens is done: 4 x 128 tokens in 64 steps of 8 sequences at a mean context of 128 + 64,
    // and no tail. The 8 aborted responses prefill their 128 + 64 tokens again.
    RlSettings partial = workload.rl;
    partial.mean_response_len = 128;
    partial.partial_rollout = true;
    partial.warmup_batches = 1;
    const RolloutTime resumed = rollout_time(model, test::a100_node(), Strategy{}, partial, 4, 0, k, nullptr);
    const double step8 = weights_s + kv_s(8 * 192 * 8192.0) + k.engine_step_seconds;
    CHECK(resumed.tail_s == 0);
    CHECK(resumed.concurrent_sequences == 8);
    CHECK(resumed.decode_s == test::approx(64 * step8).epsilon(1e-6));
    RlSettings waiting = partial;
    waiting.partial_rollout = false;
    const RolloutTime whole = rollout_time(model, test::a100_node(), Strategy{}, waiting, 4, 0, k, nullptr);
    CHECK(whole.tail_s > 0);
    CHECK(resumed.resume_prefill_s > 0);
    CHECK(resumed.prefill_s == test::approx(whole.prefill_s + resumed.resume_prefill_s));
    // Without the warm-up batch, 4 are in flight and aborted: half the prefill again.
    partial.warmup_batches = 0;
    const RolloutTime alone = rollout_time(model, test::a100_node(), Strategy{}, partial, 4, 0, k, nullptr);
    CHECK(alone.concurrent_sequences == 4);
    CHECK(alone.resume_prefill_s == test::approx(resumed.resume_prefill_s / 2));
  }

  SUBCASE("vLLM's async scheduling hides the host work behind the GPU step") {
    RlSettings async = workload.rl;
    async.vllm_async_scheduling = true;
    const RolloutTime overlapped = rollout_time(model, test::a100_node(), Strategy{}, async, 4, 0, k, nullptr);
    const double gpu_step = weights_s + kv_s(8388608.0);
    CHECK(overlapped.decode_s == test::approx(256 * std::max(gpu_step, k.engine_step_seconds)).epsilon(1e-6));
    CHECK(overlapped.decode_s < rollout.decode_s);
  }

  SUBCASE("SGLang's and TensorRT-LLM's overlap schedulers hide the host work behind the GPU step") {
    for (const RolloutEngine engine : {RolloutEngine::sglang, RolloutEngine::trtllm}) {
      RlSettings other = workload.rl;
      other.engine = engine;
      const RolloutTime overlapped = rollout_time(model, test::a100_node(), Strategy{}, other, 4, 0, k, nullptr);
      const double gpu_step = weights_s + kv_s(8388608.0);
      CHECK(overlapped.decode_s == test::approx(256 * std::max(gpu_step, k.engine_step_seconds)).epsilon(1e-6));
      // vLLM's sleep level 1 copies the weights to host memory and back; TensorRT-LLM's drops them.
      CHECK((overlapped.wake_sleep_s == 0) == (engine == RolloutEngine::trtllm));
    }
    CHECK(rollout.wake_sleep_s > 0);
  }

  SUBCASE("a KV budget of 2 full-length sequences carries all 4 while they are short, then fewer") {
    // The budget holds 2 x (128 + 256) = 768 tokens (paged KV, allocated as tokens arrive). The 4
    // sequences start together and grow together: at response position r each holds 128 + r, so
    // all 4 fit up to r = 64 (64 steps at a mean context of 160), then C(r) = 768 / (128 + r) of
    // them, each position taking 4 / C(r) steps: 4/768 x [(128 + r)^2 / 2] from 64 to 256 = 288
    // steps, every one reading the full 768 tokens of KV. At r = 256, 2 fit: 2 waves.
    const RolloutTime limited = rollout_time(model, test::a100_node(), Strategy{}, workload.rl, 4, 2, k, nullptr);
    CHECK(limited.waves == 2);
    CHECK(limited.concurrent_sequences == 2);
    const double step_short = weights_s + kv_s(4 * 160 * 8192.0) + k.engine_step_seconds;
    const double step_full = weights_s + kv_s(768 * 8192.0) + k.engine_step_seconds;
    CHECK(limited.decode_s == test::approx(64 * step_short + 288 * step_full).epsilon(1e-6));
    CHECK(limited.decode_s > rollout.decode_s);  // the weights are read more often
    // Taking every sequence at the mean context (3 in flight for 4 x 256 / 3 steps) undercounts.
    const double step3 = weights_s + kv_s(3 * 256 * 8192.0) + k.engine_step_seconds;
    CHECK(limited.decode_s > 4.0 * 256 / 3 * step3);
  }
}

TEST_CASE("MoE decode reads only the experts the step's tokens select") {
  // Qwen3-30B-A3B: 48 MoE layers of 128 experts, top-8. One token reads (1 - (120/128)^1) = 8/128
  // of the routed experts: exactly the active parameters (3,353,032,704 x 2 B). 1000 tokens
  // touch all but (120/128)^1000 ~ 1e-28 of them: the whole model (30,532,122,624 x 2 B).
  const ModelSpec model = test::qwen3_30b_a3b();
  RlSettings tp1;
  RlSettings tp2;
  tp2.rollout_tp = 2;
  CHECK(decode_weight_bytes(model, 1, tp1) == test::approx(3353032704.0 * 2));
  CHECK(decode_weight_bytes(model, 1000, tp2) == test::approx(30532122624.0 * 2 / 2));
  // 16 tokens: 1 - (15/16)^16 = 0.6439 of each layer's experts.
  const double routed = 48.0 * 128 * model.moe->routed_expert_params;
  const double expected = (30532122624.0 - routed * std::pow(120.0 / 128.0, 16)) * 2;
  CHECK(decode_weight_bytes(model, 16, tp1) == test::approx(expected));
}

TEST_CASE("the busiest GPU's touched experts: the expected largest of the replica's binomial counts") {
  // 2 experts a GPU, each touched with p = 1/2: X ~ Binomial(2, 1/2), F(0) = 1/4, F(1) = 3/4.
  // One GPU: E[X] = (1 - 1/4) + (1 - 3/4) = 1. Two GPUs: (1 - 1/16) + (1 - 9/16) = 1.375.
  CHECK(expected_max_touched_experts(2, 0.5, 1) == test::approx(1.0));
  CHECK(expected_max_touched_experts(2, 0.5, 2) == test::approx(1.375));
  CHECK(expected_max_touched_experts(32, 0.0, 4) == 0.0);
  CHECK(expected_max_touched_experts(32, 1.0, 4) == test::approx(32.0));
}

TEST_CASE("rollout data and expert parallelism: experts over the replica's GPUs, the busiest GPU sets the step") {
  // Qwen3-30B-A3B, rollout TP 1 x DP 4 (verl's examples/gspo_trainer/test_gspo_qwen30b_a3b_ep.sh):
  // routed experts 48 x 128 x 4,718,592 = 28,991,029,248 params over 4 GPUs, the other
  // 1,541,093,376 on each: 2 x (1,541,093,376 + 7,247,757,312) = 17,577,701,376 bytes a GPU.
  const ModelSpec model = test::qwen3_30b_a3b();
  RlSettings rl;
  rl.rollout_dp = 4;
  CHECK(rollout_weight_bytes(model, rl) == test::approx(17577701376.0));
  rl.rollout_ep = 4;
  CHECK(rollout_weight_bytes(model, rl) == test::approx(17577701376.0));  // whole experts: same bytes
  // One token of each engine routed (4 tokens): each expert touched with p = 1 - (120/128)^4.
  // Sharded, a GPU reads a quarter of every touched expert; with EP, 32 whole experts a GPU and
  // the step waits for the GPU with the most touched ones. With one token in all (p = 1/16):
  // E[max of 4 Binomial(32, 1/16)] = 3.452 experts a layer against the mean of 2.
  const double dense = (30532122624.0 - 28991029248.0) * 2;
  const double expert = 4718592.0 * 2;
  RlSettings sharded;
  sharded.rollout_dp = 4;
  CHECK(decode_weight_bytes(model, 1, sharded) == test::approx(dense + 48 * 2.0 * expert));
  CHECK(decode_weight_bytes(model, 1, rl) == test::approx(dense + 48 * 3.4519861596643735 * expert));
}

TEST_CASE("an RL step reports verl's phases and sums them") {
  const ModelSpec model = test::tiny_gpt();
  const Cluster cluster = test::a100_cluster();
  Workload workload = rl_workload();
  workload.rl.ppo_epochs = 2;
  workload.rl.ppo_mini_batch = 2;  // 2 mini-batches per epoch
  const TimeEstimate estimate = estimate_time(model, cluster, Strategy{}, workload, TimeOptions{}, nullptr);
  REQUIRE(estimate.num_phases == 4);
  CHECK(std::string(estimate.phases[0].name) == "timing_s/gen");
  CHECK(std::string(estimate.phases[1].name) == "timing_s/old_log_prob");
  CHECK(std::string(estimate.phases[2].name) == "timing_s/ref");
  CHECK(std::string(estimate.phases[3].name) == "timing_s/update_actor");
  double sum = 0;
  for (int i = 0; i < estimate.num_phases; ++i) sum += estimate.phases[static_cast<std::size_t>(i)].seconds;
  CHECK(sum == test::approx(estimate.step_seconds));
  CHECK(estimate.breakdown.total() == test::approx(estimate.step_seconds));
  // The update is 2 epochs x 2 mini-batches of one training step each on 2 sequences.
  const TimeBreakdown one = training_step_breakdown(model, cluster.groups[0], Strategy{}, 384, 2, 1, StepOffload::in_step, TimeOptions{}, nullptr);
  CHECK(estimate.phases[3].seconds == test::approx(4 * one.total()));
  CHECK(estimate.actor_update_mfu > 0.0);
  CHECK(estimate.actor_update_mfu < 1.0);

  SUBCASE("PPO with a critic adds values and update_critic") {
    workload.rl.use_critic = true;
    const TimeEstimate ppo = estimate_time(model, cluster, Strategy{}, workload, TimeOptions{}, nullptr);
    CHECK(ppo.num_phases == 6);
    CHECK(ppo.step_seconds > estimate.step_seconds);
  }
}

}  // namespace
}  // namespace meshplan

namespace meshplan {

TEST_CASE("rollout sizes from a launch are taken as given: a replica larger than the cluster, no overflow") {
  // data_parallel_size x tensor_model_parallel_size beyond int: the replica is capped at INT_MAX
  // GPUs (none of the cluster's 8 makes one), the memory and time models still return numbers.
  const ModelSpec model = test::qwen3_30b_a3b();
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 8;
  workload.rl.rollout_tp = 1 << 30;
  workload.rl.rollout_dp = 1 << 30;
  workload.rl.rollout_ep = 2;
  CHECK(rollout_replica_gpus(workload.rl) == std::numeric_limits<int>::max());
  Strategy strategy;
  strategy.dp = 8;
  const MemoryEstimate memory = estimate_memory(model, test::a100_cluster(), strategy, workload, MemoryOptions{}, nullptr);
  CHECK(memory.rollout.replicas == 0);
  const RolloutTime rollout =
      rollout_time(model, test::a100_node(), strategy, workload.rl, 8, 0, fitted_efficiency_constants(), nullptr);
  CHECK(std::isfinite(rollout.total()));
  CHECK(rollout.total() > 0);
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("engines on GPUs of their own: the step's critical path, hand-worked") {
  // Generation 100 s of which a 30 s tail and 4 s of weight sync; the trainer's work 70 s.
  RolloutTime rollout;
  rollout.weight_sync_s = 4;
  rollout.prefill_s = 6;
  rollout.decode_s = 90;
  rollout.tail_s = 30;
  TimeBreakdown trainer;
  trainer.compute = 60;
  trainer.dp_comm_exposed = 10;
  RlSettings rl;
  // Colocated: one phase after the other, 100 + 70.
  CHECK(rl_step_critical_path(rollout, trainer, rl, nullptr).total() == test::approx(170));
  // Own GPUs, on-policy: the trainer still waits: 170.
  rl.rollout_gpus = 16;
  CHECK(rl_step_critical_path(rollout, trainer, rl, nullptr).total() == test::approx(170));
  // One step off: max(96 of generation, 70 of training) + 4 of sync = 100; generation-bound, so
  // the breakdown is the rollout's.
  rl.off_policy_steps = 1;
  const TimeBreakdown one_off = rl_step_critical_path(rollout, trainer, rl, nullptr);
  CHECK(one_off.total() == test::approx(100));
  CHECK(one_off.rollout == test::approx(100));
  CHECK(one_off.compute == 0);
  // In-flight updates with one batch in flight keep the tail on the critical path: 100.
  rl.in_flight_weight_updates = true;
  CHECK(rl_step_critical_path(rollout, trainer, rl, nullptr).total() == test::approx(100));
  // With 8 batches in flight the tail overlaps: max(96 - 30, 70) + 4 = 74, trainer-bound: the
  // breakdown is the trainer's and the sync.
  rl.off_policy_steps = 8;
  const TimeBreakdown eight_off = rl_step_critical_path(rollout, trainer, rl, nullptr);
  CHECK(eight_off.total() == test::approx(74));
  CHECK(eight_off.compute == test::approx(60));
  CHECK(eight_off.rollout == test::approx(4));
}

TEST_CASE("engines on GPUs of their own receive the whole model over the network, never sleep") {
  // Tiny GPT (27,267,072 params, 54,534,144 B in bf16) on the A100 node. A pipelined broadcast (NeMo
  // RL) runs at the node's inter-node path when trainer (1 GPU) and pool (8) do not fit one node of
  // 8; colocated engines take the fitted refit rate and sleep mode.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  const EfficiencyConstants k = fitted_efficiency_constants();
  RlSettings rl = rl_workload().rl;
  rl.rollout_gpus = 8;
  rl.standalone_weight_sync = StandaloneWeightSync::link_rate;
  const RolloutTime standalone = rollout_time(model, node, Strategy{}, rl, 4, 0, k, nullptr);
  const LinkPath network = inter_node_link(node, k.nic_efficiency);
  CHECK(standalone.weight_sync_s == test::approx(p2p_seconds(54534144.0, network)));
  CHECK(standalone.wake_sleep_s == 0);
  // verl's grpo_3b_gsm8k_fsdp2_2_6.sh shape: a trainer of 2 and a pool of 6 on one node of 8 share
  // NVLink, which the broadcast takes (A100: 300 GB/s x 0.8 NCCL efficiency, not the 200 Gb/s NIC).
  Strategy trainer;
  trainer.dp = 2;
  rl.rollout_gpus = 6;
  const RolloutTime shared = rollout_time(model, node, trainer, rl, 4, 0, k, nullptr);
  CHECK(shared.weight_sync_s == test::approx(p2p_seconds(54534144.0, intra_node_link(node, k.nvlink_efficiency))));
  CHECK(shared.weight_sync_s < standalone.weight_sync_s);
  // verl's checkpoint engine (the default) sends from one rank at its measured 4.90 GB/s for a
  // dense model, slower than either link: 54,534,144 B / 4.90e9 B/s = 11.1 ms on both placements.
  rl.standalone_weight_sync = StandaloneWeightSync::verl_checkpoint_engine;
  CHECK(rollout_time(model, node, trainer, rl, 4, 0, k, nullptr).weight_sync_s == test::approx(54534144.0 / 4.90e9));
  rl.rollout_gpus = 8;
  CHECK(rollout_time(model, node, Strategy{}, rl, 4, 0, k, nullptr).weight_sync_s == test::approx(54534144.0 / 4.90e9));
  rl.rollout_gpus = 0;
  const RolloutTime colocated = rollout_time(model, node, Strategy{}, rl, 4, 0, k, nullptr);
  // Colocated, the framework's measured rate (weight_sync_rates.hpp) bounds the update: verl
  // 54,534,144 B / 10.53 GB/s = 5.18 ms, NeMo RL / 35.3 GB/s = 1.54 ms.
  CHECK(colocated.weight_sync_s == test::approx(54534144.0 / 10.53e9));
  CHECK(colocated.wake_sleep_s > 0);
  rl.framework = RlFramework::nemo_rl;
  CHECK(rollout_time(model, node, Strategy{}, rl, 4, 0, k, nullptr).weight_sync_s ==
        test::approx(54534144.0 / 35.3e9));
}

TEST_CASE("a colocated update of a MoE with small expert matrices is flagged as measured slower than its rate") {
  // Expert matrix bytes = hidden x expert intermediate x 2: Qwen3-30B-A3B 2048 x 768 x 2 = 3.1 MB and
  // Moonlight 2048 x 1408 x 2 = 5.8 MB (verl + vLLM 0.8-2.2x verl's rate, SGLang's per-expert loading up to 17x: verl #2418, slime #132);
  // DeepSeek-V3 7168 x 2048 x 2 = 29 MB (measured within the rate: NeMo RL #638); a dense model has none.
  const Cluster cluster = test::a100_cluster();
  const Workload workload = rl_workload();
  const auto flagged = [&](const char* preset, int rollout_gpus) {
    Workload w = workload;
    w.rl.rollout_gpus = rollout_gpus;
    return estimate_time(test::preset_model(preset), cluster, Strategy{}, w, TimeOptions{}, nullptr)
        .weight_sync_per_tensor_bound;
  };
  CHECK(flagged("qwen3-30b-a3b", 0));
  CHECK(flagged("moonlight-16b-a3b-instruct", 0));
  CHECK_FALSE(flagged("deepseek-v3", 0));
  CHECK_FALSE(flagged("qwen2.5-7b-instruct", 0));
  CHECK_FALSE(flagged("qwen3-30b-a3b", 8));  // engines of their own: a broadcast, costed apart
}

TEST_CASE("verl's checkpoint engine: the full broadcasts verl measured on H100 nodes") {
  // verl docs/advance/delta_weight_sync.md (1dda039b9), "Measured results", the nccl column (full
  // broadcast, parameter offload off where the table says so), against the presets' parameter
  // counts in bf16. The dense and MoE rates are these rows' bytes over their seconds (the
  // comment in cost/time/rl_step_time.cpp), so each row lands within the spread of the two.
  struct Row {
    const char* model;
    int trainer_gpus;
    int engine_gpus;
    double measured_low_s;
    double measured_high_s;
  };
  const Row rows[] = {
      {"qwen2.5-72b-instruct", 32, 32, 28.5, 29.1},  // 4+4 nodes, gen TP 8
      {"qwen3-30b-a3b", 8, 8, 32.2, 32.2},           // 1+1 nodes, 50-step median
      {"qwen3-235b-a22b", 64, 16, 246, 266},         // 8+2 nodes, gen TP 16
  };
  const NodeGroup node = make_node_group(10, 8, *find_gpu(builtin_gpu_catalog(), "H100-80GB"));
  const EfficiencyConstants k = fitted_efficiency_constants();
  for (const Row& row : rows) {
    const ModelSpec model = test::preset_model(row.model);
    RlSettings rl = rl_workload().rl;
    rl.rollout_gpus = row.engine_gpus;
    Strategy trainer;
    trainer.dp = row.trainer_gpus;
    const double predicted = rollout_time(model, node, trainer, rl, 4, 0, k, nullptr).weight_sync_s;
    const double measured = (row.measured_low_s + row.measured_high_s) / 2;
    CHECK_MESSAGE(std::fabs(predicted / measured - 1) < 0.10, row.model << " predicted " << predicted << " s");
  }
  // Qwen2.5-7B on 1+1 nodes with parameter offload on: 5.5-6.0 s measured; paging the shards back
  // is not costed, so the estimate (15.2 GB / 4.90 GB/s = 3.1 s) is below it.
  RlSettings rl = rl_workload().rl;
  rl.rollout_gpus = 8;
  Strategy trainer;
  trainer.dp = 8;
  const double seven_b = rollout_time(test::preset_model("qwen2.5-7b-instruct"), node, trainer, rl, 4, 0, k, nullptr).weight_sync_s;
  CHECK(seven_b == test::approx(3.1).epsilon(0.03));
  CHECK(seven_b < 5.5);
}

TEST_CASE("off-policy engines of their own hold the prompts of several steps at once") {
  // 64 sequences of one step on one replica; 8 steps off: up to 8 x 64 in flight, capped by
  // max_num_seqs 256. The same tokens take fewer, fuller decode steps.
  const ModelSpec model = test::tiny_gpt();
  RlSettings rl = rl_workload().rl;
  rl.rollout_gpus = 1;
  rl.max_num_seqs = 256;
  const EfficiencyConstants k = fitted_efficiency_constants();
  const RolloutTime one = rollout_time(model, test::a100_node(), Strategy{}, rl, 64, 0, k, nullptr);
  rl.off_policy_steps = 8;
  const RolloutTime eight = rollout_time(model, test::a100_node(), Strategy{}, rl, 64, 0, k, nullptr);
  CHECK(one.concurrent_sequences == 64);
  CHECK(eight.concurrent_sequences == 256);
  CHECK(eight.decode_s < one.decode_s);
}

}  // namespace meshplan
