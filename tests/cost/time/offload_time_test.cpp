#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/offload_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "model/config_reader.hpp"

namespace meshplan {
namespace {

TEST_CASE("offloaded model states cross the host link: weights in for every forward and backward, gradients out once") {
  // Tiny GPT (27,267,072 parameters, tied embedding) under FSDP ZeRO-3 over DP 4: each GPU holds
  // a quarter, 6,816,768 parameters, and the A100 node's host link copies 26.3 GB/s.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.backend = Backend::fsdp;
  strategy.zero = ZeroStage::zero3;
  strategy.dp = 4;
  const double shard = 27267072.0 / 4;
  CHECK(rank_params(model, strategy).total() / 4 == test::approx(shard));
  CHECK(offload_seconds(model, node, strategy, 3, StepOffload::in_step, nullptr) == 0.0);

  // FSDP CPUOffload(offload_params): the 16-bit shard comes in for the forward and again for the
  // backward of each of 3 micro-batches: 2 x 3 x 2 B x 6,816,768 = 81.8 MB.
  strategy.offload.params = true;
  CHECK(offload_seconds(model, node, strategy, 3, StepOffload::in_step, nullptr) ==
        test::approx(2 * 3 * 2 * shard / 26.3e9));
  // Gradients leave once per step in fp32: 4 B a parameter.
  strategy.offload.grads = true;
  CHECK(offload_seconds(model, node, strategy, 3, StepOffload::in_step, nullptr) ==
        test::approx((2 * 3 * 2 * shard + 4 * shard) / 26.3e9));
  // verl pages the states back before its update (StepOffload::paged): nothing streams in the step.
  CHECK(offload_seconds(model, node, strategy, 3, StepOffload::paged, nullptr) == 0.0);

  SUBCASE("the CPU optimizer: fp32 gradients down, 16-bit weights up, and Adam at the host's memory rate") {
    // Megatron's hybrid CPU optimizer on the whole shard: 6 B a parameter over the link, and
    // 30 B a parameter of CPU Adam at a rank's own rate, 20.9 GB/s (the node's 200 GB/s shared by
    // its 8 GPUs, 25 GB/s each, is not the bound).
    Strategy cpu = strategy;
    cpu.offload = Offload{};
    cpu.offload.optimizer = true;
    CHECK(offload_seconds(model, node, cpu, 3, StepOffload::in_step, nullptr) ==
          test::approx(6 * shard / 26.3e9 + 30 * shard / 20.9e9));
    cpu.offload.optimizer_fraction = 0.5;
    CHECK(offload_seconds(model, node, cpu, 3, StepOffload::in_step, nullptr) ==
          test::approx(0.5 * (6 * shard / 26.3e9 + 30 * shard / 20.9e9)));
  }
}

TEST_CASE("Megatron's CPU optimizer steps a rank's routed experts over the expert-DP group, not DP") {
  // verl's run_qwen3moe-30b_megatron_96gb.sh (optimizer_offload_fraction 1, EP 8) on 2 nodes:
  // Qwen3-30B-A3B, TP 1, PP 1, EP 8, DP 16. The rank's optimizer shard (compute_time_test's
  // hand count): 96,318,336 dense + 1,811,939,328 expert parameters = 1,908,257,664. Each crosses
  // the host link as 4 B of fp32 gradient down and 2 B of weight up (26.3 GB/s), and CPU Adam
  // streams 30 B of it at a rank's 20.9 GB/s: 0.435 + 2.739 = 3.174 s a step.
  const ModelSpec model = test::qwen3_30b_a3b();
  const NodeGroup node = test::a100_node(2);
  Strategy strategy;
  strategy.dp = 16;
  strategy.ep = 8;
  strategy.distributed_optimizer = true;
  strategy.offload.optimizer = true;
  strategy.offload.optimizer_fraction = 1.0;
  const double shard = 96318336.0 + 1811939328.0;
  CHECK(offload_seconds(model, node, strategy, 4, StepOffload::in_step, nullptr) ==
        test::approx(6 * shard / 26.3e9 + 30 * shard / 20.9e9));
  CHECK(offload_seconds(model, node, strategy, 4, StepOffload::in_step, nullptr) == test::approx(3.174).epsilon(1e-3));
}

TEST_CASE("a rank's CPU optimizer steps at its own rate when it has the node to itself: NeMo RL's measurement") {
  // NVIDIA-NeMo/RL#3628: Qwen3-0.6B on one H100 (Megatron, distributed optimizer), mean step
  // 0.752 s without the CPU optimizer, 1.678 s with all of it offloaded (overlap on), 1.187 s with
  // half (overlap off). Qwen3-0.6B's config.json: h 1024, 28 layers, 16 heads of 128, 8 KV heads,
  // MLP 3072, vocab 151,936, tied embedding. A layer: q 1024 x 2048, k and v 1024 x 1024 each,
  // o 2048 x 1024, q/k norms 2 x 128, MLP 3 x 1024 x 3072, 2 norms of 1024: 15,730,944; 28 of
  // them 440,466,432, the embedding 155,582,464 and the final norm 1,024: 596,049,920.
  const auto model = parse_model_config(
      R"({"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024,
          "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
          "intermediate_size": 3072, "vocab_size": 151936, "tie_word_embeddings": true,
          "max_position_embeddings": 40960, "hidden_act": "silu", "rms_norm_eps": 1e-06})",
      "qwen3-0.6b");
  REQUIRE(model.ok());
  CHECK(model->total_params == 596049920);
  NodeGroup node = test::a100_node();
  node.gpus_per_node = 1;
  node.gpu.host_to_device_Bps = 51e9;  // H100-80GB, gpus.md
  Strategy strategy;
  strategy.distributed_optimizer = true;
  strategy.offload.optimizer = true;
  strategy.offload.optimizer_fraction = 1.0;
  // All of it: the measurement the rank rate is read from, 0.926 s.
  const double full = offload_seconds(*model, node, strategy, 1, StepOffload::in_step, nullptr);
  CHECK(full == test::approx(1.678 - 0.752).epsilon(0.01));
  // Half of it, measured apart (without the overlap): 0.435 s; the model's half, 0.463 s, is 6% over.
  // (Given the node's whole 200 GB/s of DRAM, as before, the rank would take a sixth of that.)
  strategy.offload.optimizer_fraction = 0.5;
  CHECK(offload_seconds(*model, node, strategy, 1, StepOffload::in_step, nullptr) ==
        test::approx(1.187 - 0.752).epsilon(0.07));
}

TEST_CASE("verl's paging between phases: out and back over the slower of the host link and the node's shared DRAM") {
  // 1 GB each way; the A100 node's link (26.3 GB/s) is above its DRAM share (200 / 8 = 25 GB/s).
  const NodeGroup node = test::a100_node();
  CHECK(paging_seconds(1e9, node) == test::approx(2 * 1e9 / 25e9));
  CHECK(paging_seconds(0, node) == 0.0);
  NodeGroup two = node;
  two.gpus_per_node = 2;  // 100 GB/s of DRAM each: the link sets the pace
  CHECK(paging_seconds(1e9, two) == test::approx(2 * 1e9 / 26.3e9));
}

}  // namespace
}  // namespace meshplan
