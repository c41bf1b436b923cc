// The step again at the host's measured per-op time (Grace: 2.75x the fit's x86 hosts), for MoE
// layers that launch from the host; worked by hand for Qwen3-30B-A3B on one GB200 tray of 8.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/host_cpu_sensitivity.hpp"
#include "cost/time/step_time.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
namespace {

Cluster cluster_of(const char* text) {
  auto cluster = parse_cluster_spec(text, builtin_gpu_catalog());
  REQUIRE(cluster.ok());
  return *cluster;
}

Workload pretrain(int global_batch) {
  Workload workload;
  workload.kind = WorkloadKind::pretrain;
  workload.seq_len = 4096;
  workload.global_batch = global_batch;
  return workload;
}

}  // namespace

TEST_CASE("host cpu sensitivity: the MoE host time at Grace's per-op ratio, where layers launch from the host") {
  const ModelSpec model = test::preset_model("qwen3-30b-a3b");
  const Cluster gb200 = cluster_of("1x8xGB200-NVL72");
  Strategy strategy;
  strategy.ep = 8;
  strategy.dp = 8;
  const Workload workload = pretrain(64);  // 8 micro-batches of one sequence a rank
  const TimeOptions options;
  const TimeEstimate base = estimate_time(model, gb200, strategy, workload, options, nullptr);
  const auto host = host_cpu_sensitivity(model, gb200, strategy, workload, options);
  REQUIRE(host.has_value());
  CHECK(host->host_op_time_ratio == 2.75);
  // No graphs: a layer's host time is 3 ms + 0.2 ms x 16 local experts = 6.2 ms, above the GPU's
  // (4,096 tokens), so both estimates wait on the host in every MoE layer: the wait grows by
  // (2.75 - 1) x 6.2 ms x 48 layers x 3 (forward, backward 2x) x 8 micro-batches = 12.499 s.
  REQUIRE(base.breakdown.moe_host_wait > 0);
  CHECK(host->moe_host_wait_seconds - base.breakdown.moe_host_wait == test::approx(1.75 * 6.2e-3 * 48 * 3 * 8));
  CHECK(host->step_seconds - base.step_seconds == test::approx(1.75 * 6.2e-3 * 48 * 3 * 8));
  // Graphs of the router and preprocessing leave the experts' launches: 16 x 0.2 ms a layer.
  strategy.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  strategy.cuda_graph_modules = kGraphMoeRouter | kGraphMoePreprocess;
  CHECK(host_cpu_sensitivity(model, gb200, strategy, workload, options).has_value());
  // A full-iteration graph launches nothing from the host: no sensitivity.
  strategy.cuda_graph_impl = CudaGraphImpl::full_iteration;
  strategy.cuda_graph_modules = 0;
  CHECK_FALSE(host_cpu_sensitivity(model, gb200, strategy, workload, options).has_value());
  // An RL step (eager again), an x86 host (the fit's) or a dense model: none. NeMo RL's GB200 GRPO
  // steps, eager MoE updates from Grace, meet the model as it stands.
  strategy.cuda_graph_impl = CudaGraphImpl::none;
  Workload rl = workload;
  rl.kind = WorkloadKind::rl;
  CHECK_FALSE(host_cpu_sensitivity(model, gb200, strategy, rl, options).has_value());
  CHECK_FALSE(host_cpu_sensitivity(model, cluster_of("1x8xH100-80GB"), strategy, workload, options).has_value());
  Strategy dense;
  dense.dp = 8;
  CHECK_FALSE(host_cpu_sensitivity(test::preset_model("qwen2.5-7b-instruct"), gb200, dense, workload, options).has_value());
}

}  // namespace meshplan
