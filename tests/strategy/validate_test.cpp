#include <doctest/doctest.h>

#include "strategy/validate.hpp"

namespace meshplan {
namespace {

// Qwen2.5-7B's shape (config.json): 28 layers, 28 heads, 4 KV heads.
ModelSpec qwen25_7b_shape() {
  ModelSpec model;
  model.name = "qwen2.5-7b-shape";
  model.num_layers = 28;
  model.hidden_size = 3584;
  model.attention.num_heads = 28;
  model.attention.num_kv_heads = 4;
  model.attention.head_dim = 128;
  return model;
}

Cluster nodes_of_8(int nodes, double bf16_flops = 312e12) {
  NodeGroup group;
  group.nodes = nodes;
  group.gpus_per_node = 8;
  group.gpu.id = bf16_flops > 0 ? "A100-80GB" : "V100-32GB";
  group.gpu.bf16_flops = bf16_flops;
  group.gpu.fp16_flops = 125e12;
  return Cluster{{group}};
}

Strategy layout(int tp, int pp, int dp) {
  Strategy strategy;
  strategy.tp = tp;
  strategy.pp = pp;
  strategy.dp = dp;
  return strategy;
}

}  // namespace

TEST_CASE("a valid Megatron layout has no violation") {
  Workload workload;
  workload.global_batch = 64;  // 64 % (dp=2 x micro=1) == 0
  CHECK(validate_strategy(layout(4, 2, 2), qwen25_7b_shape(), nodes_of_8(2), workload).empty());
  CHECK(first_violation(layout(4, 2, 2), qwen25_7b_shape(), nodes_of_8(2), workload).empty());
}

TEST_CASE("world factorization names the derived DP") {
  const auto violations = validate_strategy(layout(4, 1, 1), qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "world.factorization");
  CHECK(violations[0].message == "TP x PP x CP x DP = 4 x 1 x 1 x 1 = 4 but the cluster has 8 GPUs");
  CHECK(violations[0].valid == "DP = 2");
}

TEST_CASE("TP must divide heads and KV heads, the valid values are listed") {
  // TP=8 divides neither 28 heads nor 4 KV heads; valid TP divide both 28 and 4: {1, 2, 4}.
  const auto violations = validate_strategy(layout(8, 1, 1), qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].rule == "tp.divides-heads");
  CHECK(violations[0].message == "TP=8 does not divide 28 attention heads");
  CHECK(violations[0].valid == "TP in {1, 2, 4}");
  CHECK(violations[1].rule == "tp.divides-kv-heads");
  CHECK(first_violation(layout(8, 1, 1), qwen25_7b_shape(), nodes_of_8(1), Workload{}) == "tp.divides-heads");
}

TEST_CASE("a hybrid model's TP and rollout TP must divide its linear-attention heads") {
  // 16 heads, 16 KV heads (TP 8 divides both) but linear attention with 12 key and 24 value heads:
  // Megatron's GatedDeltaNet and vLLM's gated_delta_net_state_shape split them by TP. Valid TP
  // divide 16, 16, 12 and 24: {1, 2, 4}.
  ModelSpec model = qwen25_7b_shape();
  model.attention.num_heads = 16;
  model.attention.num_kv_heads = 16;
  LinearAttentionSpec linear;
  linear.num_layers = 21;
  linear.num_key_heads = 12;
  linear.num_value_heads = 24;
  model.linear_attention = linear;
  const auto violations = validate_strategy(layout(8, 1, 1), model, nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "tp.divides-linear-heads");
  CHECK(violations[0].message == "TP=8 does not divide the 12 key and 24 value heads of the linear-attention layers");
  CHECK(violations[0].valid == "TP in {1, 2, 4}");
  CHECK(validate_strategy(layout(4, 1, 2), model, nodes_of_8(1), Workload{}).empty());
  Workload rl;
  rl.kind = WorkloadKind::rl;
  rl.global_batch = 64;
  rl.rl.ppo_mini_batch = 16;
  rl.rl.rollout_tp = 8;
  CHECK(first_violation(layout(4, 1, 2), model, nodes_of_8(1), rl) == "rl.rollout-tp");
  rl.rl.rollout_tp = 4;
  CHECK(first_violation(layout(4, 1, 2), model, nodes_of_8(1), rl).empty());
}

TEST_CASE("the embedding and the loss counted as pipeline layers: the even split Megatron-core checks") {
  // Megatron-core TransformerConfig.__post_init__ (account_for_embedding/loss_in_pipeline_split):
  // num_layers + 2 must split over PP x VPP, and neither the first/last stage counts nor a custom
  // layout may be set beside them. 28 layers + 2 = 30: PP 6 (on 24 GPUs) passes where 28 layers
  // alone do not.
  Strategy strategy = layout(1, 6, 4);
  const auto refused = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(3), Workload{});
  REQUIRE_FALSE(refused.empty());
  CHECK(refused[0].rule == "pp.divides-layers");
  // The fix is offered where it works (30 % 6 = 0), and only then (28 + 2 over PP 8 is not).
  CHECK(refused[0].valid.find(", or the embedding and the loss counted as layers (30 over PP x VPP; Megatron-core "
                              "account_for_embedding/loss_in_pipeline_split)") != std::string::npos);
  const auto pp8 = validate_strategy(layout(1, 8, 1), qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE_FALSE(pp8.empty());
  CHECK(pp8[0].valid.find("counted as layers") == std::string::npos);
  strategy.pipeline_counts_embedding = true;
  strategy.pipeline_counts_loss = true;
  CHECK(validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(3), Workload{}).empty());
  strategy.pp = 4;
  strategy.dp = 2;
  auto violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "pp.divides-layers");
  CHECK(violations[0].message == "PP x VPP = 4 x 1 does not divide 28 layers + the embedding and the loss counted as "
                                 "layers = 30");
  CHECK(violations[0].valid == "PP x VPP in {1, 2, 3, 5, 6, 10, 15, 30}");
  strategy.pp = 2;
  strategy.dp = 4;
  strategy.first_stage_layers = 13;
  violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].message.find("cannot be set with account_for_embedding/loss_in_pipeline_split") !=
        std::string::npos);
  strategy.first_stage_layers = 0;
  strategy.pipeline_layout = "Et*14|t*14L";
  violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "pp.layout");
}

TEST_CASE("PP x VPP must divide the layers, VPP needs PP > 1") {
  Strategy strategy = layout(1, 8, 1);  // 28 layers % 8 != 0
  auto violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "pp.divides-layers");
  // 28 layers on PP=8: ceil(28/8) = 4 per middle stage, 4 short -> first 2, last 2 (2 + 6 x 4 + 2).
  CHECK(violations[0].valid ==
        "PP x VPP in {1, 2, 4, 7, 14, 28}, or at VPP 1 an uneven split such as first stage 2, last stage 2 (Megatron "
        "num_layers_in_first/last_pipeline_stage)");
  // With that split the strategy is valid.
  Strategy uneven = strategy;
  uneven.first_stage_layers = 2;
  uneven.last_stage_layers = 2;
  CHECK(validate_strategy(uneven, qwen25_7b_shape(), nodes_of_8(1), Workload{}).empty());
  strategy = layout(1, 1, 8);
  strategy.vpp = 2;
  violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "vpp.requires-pp");
}

TEST_CASE("expert parallelism needs an MoE model whose experts it divides") {
  Strategy strategy = layout(1, 1, 8);
  strategy.ep = 2;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{}) == "ep.requires-moe");
  ModelSpec moe = qwen25_7b_shape();
  moe.moe = MoeSpec{};
  moe.moe->num_experts = 60;
  strategy.ep = 8;  // 60 % 8 != 0
  const auto violations = validate_strategy(strategy, moe, nodes_of_8(1), Workload{});
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "ep.divides-experts");
  CHECK(violations[0].valid == "EP in {1, 2, 4}");  // divisors of 60 that divide 8 GPUs
}

TEST_CASE("context parallelism needs seq_len divisible by 2*CP") {
  Strategy strategy = layout(1, 1, 2);
  strategy.cp = 4;
  Workload workload;
  workload.seq_len = 4100;  // 4100 % 8 = 4
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload) == "cp.divides-sequence");
  workload.seq_len = 4096;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload).empty());
}

TEST_CASE("bf16 on a GPU without bf16 is rejected") {
  CHECK(first_violation(layout(1, 1, 8), qwen25_7b_shape(), nodes_of_8(1, 0), Workload{}) == "dtype.supported");
  Strategy fp16 = layout(1, 1, 8);
  fp16.compute_dtype = Dtype::fp16;
  CHECK(first_violation(fp16, qwen25_7b_shape(), nodes_of_8(1, 0), Workload{}).empty());
}

TEST_CASE("Megatron global batch must be a multiple of DP x micro-batch") {
  Workload workload;
  workload.global_batch = 100;
  Strategy strategy = layout(1, 1, 8);  // 100 % 8 = 4
  const auto violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), workload);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "batch.global-divisible");
}

TEST_CASE("FSDP with Ulysses: the global batch divides over the DP of sequence groups, not over the GPUs") {
  // 8 GPUs, Ulysses 2: 4 groups of 2 ranks, each group one sequence stream (verl device mesh
  // (dp, sp)). 4 sequences a step fit 4 groups of micro-batch 1; 6 do not.
  Strategy strategy = layout(1, 1, 8);
  strategy.backend = Backend::fsdp;
  strategy.zero = ZeroStage::zero3;
  strategy.ulysses_sp = 2;
  Workload workload;
  workload.global_batch = 4;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload).empty());
  workload.global_batch = 6;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload) == "batch.global-divisible");
}

TEST_CASE("verl RL batch rules: train >= mini, mini*n/dp a multiple of the micro-batch") {
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 128;
  workload.rl.ppo_mini_batch = 256;  // R9: 128 < 256
  workload.rl.n = 5;
  workload.rl.rollout_tp = 2;
  Strategy strategy = layout(1, 1, 8);
  strategy.backend = Backend::fsdp;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload) == "rl.train-batch-ge-mini");
  // mini 32 x n 5 / dp 8 = 20 per GPU; micro 8 does not divide 20, micro 4 does.
  workload.rl.ppo_mini_batch = 32;
  workload.rl.ppo_micro_batch_per_gpu = 8;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload) == "rl.mini-batch-divisible");
  workload.rl.ppo_micro_batch_per_gpu = 4;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), workload).empty());
}

TEST_CASE("rollout TP must tile a node and the heads") {
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 64;
  workload.rl.rollout_tp = 8;  // 28 % 8 != 0
  Strategy strategy = layout(1, 1, 8);
  const auto violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), workload);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "rl.rollout-tp");
  CHECK(violations[0].valid == "rollout TP in {1, 2, 4}");
}

TEST_CASE("a rollout replica larger than a node spans whole nodes (verl R53)") {
  // 2 nodes of 8, 28 heads / 4 KV heads: TP=14 is not a multiple of 8; TP=16 is, but 28 % 16 != 0.
  // A 32-head model on 4 nodes: TP=16 (2 whole nodes, 32 % 16 == 0) is valid, TP=12 is not.
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 64;
  workload.rl.rollout_tp = 16;
  CHECK(first_violation(layout(1, 1, 16), qwen25_7b_shape(), nodes_of_8(2), workload) == "rl.rollout-tp");
  ModelSpec heads32 = qwen25_7b_shape();
  heads32.attention.num_heads = 32;
  heads32.attention.num_kv_heads = 8;
  CHECK(first_violation(layout(1, 1, 32), heads32, nodes_of_8(4), workload).empty());
  workload.rl.rollout_tp = 12;
  CHECK(first_violation(layout(1, 1, 32), heads32, nodes_of_8(4), workload) == "rl.rollout-tp");
}

TEST_CASE("FSDP has no model parallelism, Ulysses must fit the heads") {
  Strategy strategy = layout(2, 1, 4);
  strategy.backend = Backend::fsdp;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{}) == "fsdp.no-model-parallel");
  strategy = layout(1, 1, 8);
  strategy.backend = Backend::fsdp;
  strategy.ulysses_sp = 8;  // 28 heads % 8 != 0
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{}) == "ulysses.divides-heads");
  strategy.ulysses_sp = 4;  // 28 % 4 == 0 and 4 KV heads % 4 == 0
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), Workload{}).empty());
}

TEST_CASE("VPP > 1 needs the micro-batches of an update in whole groups of PP") {
  // 8 GPUs as TP=1, PP=4, DP=2, VPP=7 (28 layers = 4 x 7 chunks of 1).
  Strategy strategy = layout(1, 4, 2);
  strategy.vpp = 7;
  strategy.micro_batch = 2;
  Workload pretrain;
  pretrain.global_batch = 24;  // 24 / (DP 2 x micro 2) = 6 micro-batches: 6 % 4 != 0
  auto violations = validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), pretrain);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].rule == "vpp.micro-batch-groups");
  CHECK(violations[0].message ==
        "6 micro-batches per step with PP=4 and VPP=7: the interleaved schedule runs them in groups of PP");
  pretrain.global_batch = 32;  // 8 micro-batches: two groups of 4
  CHECK(validate_strategy(strategy, qwen25_7b_shape(), nodes_of_8(1), pretrain).empty());
  // RL: mini 16 x n 2 / DP 2 = 16 sequences per GPU, micro 2 -> 8 micro-batches: fine; micro 8 -> 2 < PP.
  Workload rl;
  rl.kind = WorkloadKind::rl;
  rl.global_batch = 64;
  rl.rl.ppo_mini_batch = 16;
  rl.rl.n = 2;
  rl.rl.ppo_micro_batch_per_gpu = 2;
  rl.rl.rollout_tp = 1;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), rl).empty());
  rl.rl.ppo_micro_batch_per_gpu = 8;
  CHECK(first_violation(strategy, qwen25_7b_shape(), nodes_of_8(1), rl) == "vpp.micro-batch-groups");
}

TEST_CASE("every rule id is unique and documented") {
  const auto& rules = strategy_rules();
  CHECK(rules.size() == 47);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    CHECK_FALSE(rules[i].description.empty());
    CHECK_FALSE(rules[i].source.empty());
    for (std::size_t j = i + 1; j < rules.size(); ++j) CHECK(rules[i].id != rules[j].id);
  }
}

}  // namespace meshplan
