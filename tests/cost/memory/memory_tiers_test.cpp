// Verdict tiers of an RL memory estimate: the default expected length, and the mean response
// length where a launch that fits at its expected lengths tips over.
#include "cost/memory/memory_tiers.hpp"

#include <doctest/doctest.h>

#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

TEST_CASE("the default expected length is a quarter of the maximum, rounded up, at least one token") {
  CHECK(default_expected_length(1024) == 256);
  CHECK(default_expected_length(1023) == 256);  // 255.75 rounds up
  CHECK(default_expected_length(1) == 1);
  const RlSettings rl = with_expected_lengths(RlSettings{.prompt_len = 512, .response_len = 3000});
  CHECK(rl.mean_prompt_len == 128);
  CHECK(rl.mean_response_len == 750);
}

TEST_CASE("fits_expected names the first mean response length at which a phase no longer fits") {
  // Qwen2.5-7B GRPO on 8 GPUs (FSDP, micro-batches of 8 real-length sequences): at mean lengths
  // 256 + 1024 the peak is lower than with every sequence at 1024 + 8192. Given a capacity between
  // the two, the tier is fits_expected and the tipping length is where the peak crosses it: the
  // length before it still fits, it does not.
  const ModelSpec m = test::qwen25_7b();
  const Cluster cluster = test::cluster_of(test::gpu_with_memory(80), 1, 8);
  Strategy s;
  s.backend = Backend::fsdp;
  s.zero = ZeroStage::zero3;
  s.dp = 8;
  Workload w;
  w.kind = WorkloadKind::rl;
  w.global_batch = 64;
  w.rl.n = 8;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 8192;
  w.rl.mean_prompt_len = 256;
  w.rl.mean_response_len = 1024;
  w.rl.ppo_micro_batch_per_gpu = 8;
  w.rl.log_prob_micro_batch_per_gpu = 8;
  const MemoryTiers wide = memory_tiers(m, cluster, s, w, MemoryOptions{}, 1e15);
  REQUIRE(wide.tier == MemoryTier::fits);
  REQUIRE(wide.expected.peak_bytes < wide.worst.peak_bytes);
  const double capacity = 0.5 * (wide.expected.peak_bytes + wide.worst.peak_bytes);
  const MemoryTiers tiers = memory_tiers(m, cluster, s, w, MemoryOptions{}, capacity);
  REQUIRE(tiers.tier == MemoryTier::fits_expected);
  REQUIRE(tiers.tipping_mean_response_len > w.rl.mean_response_len);
  REQUIRE(tiers.tipping_mean_response_len <= w.rl.response_len);
  auto peak_at = [&](std::int64_t mean_response) {
    Workload probe = w;
    probe.rl.mean_response_len = mean_response;
    return estimate_memory(m, cluster, s, probe, MemoryOptions{}, nullptr).peak_bytes;
  };
  CHECK(peak_at(tiers.tipping_mean_response_len) > capacity);
  CHECK(peak_at(tiers.tipping_mean_response_len - 1) <= capacity);
}

}  // namespace
}  // namespace meshplan
