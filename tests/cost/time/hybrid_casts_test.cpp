// The fp8 casts of a hybrid of one-sublayer layers (Nemotron-H): each layer casts its own
// sublayer's GEMM inputs, worked by hand for Nemotron 3 Nano (h 2,688, TP 1, no sequence parallel).
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {

TEST_CASE("hybrid casts: Nemotron 3 Nano casts each layer's own output projection, expert and shared-expert inputs") {
  // Elements a token cast apart, forward (compute_time.cpp fp8_cast_elements_per_token):
  //   6 attention layers, the output projection's input 32 x 128 = 4,096: 24,576;
  //   23 Mamba-2 layers, out_proj's input, the inner width 64 x 64 = 4,096: 94,208;
  //   23 MoE layers, 6 routed rows' FC1 and FC2 inputs 6 x (2,688 + 1,856) = 27,264 and the shared
  //   expert's 2,688 + 3,712 = 6,400: 774,272;
  //   no MLP layer. 893,056 in all, at 4 bytes an element (row-wise and column-wise casts, read and
  //   written), 8,192 tokens, over the H100's HBM bandwidth.
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16");
  const NodeGroup node = test::catalog_node("H100-80GB");
  Strategy strategy = test::expert_parallel(8);
  strategy.compute_dtype = Dtype::fp8;
  strategy.fp8_recipe = Fp8Recipe::tensorwise;
  const double cast = test::traced_compute_term(model, node, strategy, 8192, "time/compute/fp8_cast");
  CHECK(cast == test::approx(4.0 * 8192 * 893056 / node.gpu.memory_bandwidth_Bps));
}

}  // namespace meshplan
