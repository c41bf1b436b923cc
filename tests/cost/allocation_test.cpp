// estimate_time allocates nothing when the trace is null (the planner calls it millions of
// times). Counts every operator new in this test binary while the estimate runs.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "cost/step_time.hpp"
#include "cost/time_fixtures.hpp"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
}  // namespace

void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too: every form of new must pair with the free() below (ASan checks it).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace meshplan {
namespace {

long allocations_of(const ModelSpec& model, const Cluster& cluster, const Strategy& strategy, const Workload& workload) {
  const TimeOptions options;
  g_allocations = 0;
  g_counting = true;
  const TimeEstimate estimate = estimate_time(model, cluster, strategy, workload, options, nullptr);
  g_counting = false;
  CHECK(estimate.step_seconds > 0);
  return g_allocations.load();
}

TEST_CASE("estimate_time allocates nothing without a trace (training and RL)") {
  const ModelSpec model = test::gpt_24x2048();
  const Cluster cluster = test::a100_cluster(4);
  Strategy strategy;
  strategy.tp = 2;
  strategy.pp = 2;
  strategy.vpp = 2;
  strategy.cp = 2;
  strategy.dp = 4;
  strategy.recompute = Recompute::full;
  strategy.offload.optimizer = true;
  strategy.lora.rank = 8;
  strategy.lora.target_modules = {"q_proj", "v_proj"};  // a Strategy copy would allocate these
  Workload workload;
  workload.seq_len = 2048;
  workload.global_batch = 64;
  CHECK(allocations_of(model, cluster, strategy, workload) == 0);
  workload.kind = WorkloadKind::rl;
  workload.rl.rollout_tp = 2;
  workload.rl.n = 4;
  workload.rl.use_critic = true;
  CHECK(allocations_of(model, cluster, strategy, workload) == 0);
}

}  // namespace
}  // namespace meshplan
