// Mamba-2's backward moves about 2.5x its forward's bytes through HBM (mamba_ssm's combined backward
// reruns the conv and four forward SSD kernels, then runs its own: cost/time/mamba_kernels.hpp), where
// a backward costed at twice its forward has 2x. The excess goes to the backward alone, worked by
// hand for Nemotron 3 Nano (23 Mamba-2 layers) on one H100.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
TEST_CASE("mamba backward: the bytes beyond twice the forward's, in the backward only") {
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16");
  const NodeGroup node = test::catalog_node("H100-80GB");
  Strategy strategy = test::expert_parallel(8);
  // tests/model/nemotron_h_test.cpp: 206,720 B a token and layer forward, 518,528 backward. The
  // excess, 518,528 - 2 x 206,720 = 105,088 B, x 8,192 tokens x 23 layers / 3.35 TB/s = 5.911 ms.
  const double excess_s = test::traced_compute_term(model, node, strategy, 8192, "time/compute/mamba_backward");
  CHECK(excess_s == test::approx(105088.0 * 8192 * 23 / 3.35e12));
  CHECK(excess_s == test::approx(5.911e-3).epsilon(1e-3));
  // It is in the backward and not the forward: the backward is twice the forward plus it.
  const StageCompute stage = stage_compute(model, node, strategy, 8192, 1, TimeOptions{}, nullptr);
  CHECK(stage.layers_backward_s == test::approx(2.0 * stage.layers_forward_s + excess_s));
  // TP splits the heads and groups.
  strategy.tp = 2;
  strategy.sequence_parallel = true;
  CHECK(test::traced_compute_term(model, node, strategy, 8192, "time/compute/mamba_backward") == test::approx(excess_s / 2));
}

}  // namespace meshplan
