// Megatron-core first_last_layers_bf16 (fp8_utils.py is_first_last_bf16_layer at d98e8a64d): the
// first and last decoder layers, by global index, run outside the fp8 / NVFP4 autocast. Their GEMMs
// go at the 16-bit rate and cast nothing; the others keep the compute dtype's.
#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {

namespace {

/// The value of the trace term `name` of one stage_compute at 2,048 tokens.
double traced(const ModelSpec& model, const NodeGroup& node, const Strategy& strategy, const std::string& name) {
  return test::traced_compute_term(model, node, strategy, 2048, name);
}

}  // namespace

TEST_CASE("bf16 edge layers: the share of the stage's layers kept in bf16") {
  Strategy s;
  s.compute_dtype = Dtype::fp4;
  s.bf16_last_layers = 14;  // Nemotron 3 Super's NVFP4 recipe: the last 14 of 88 layers
  CHECK(s.bf16_layer_share(88, 88) == test::approx(14.0 / 88));
  s.bf16_first_layers = 1;
  CHECK(s.bf16_layer_share(88, 88) == test::approx(15.0 / 88));
  // PP 4: the first stage holds the first layer, the last stage the last 14 of its 22.
  s.pp = 4;
  CHECK(s.bf16_layer_share(88, 22) == test::approx(14.0 / 22));
  // Only under a quantized compute dtype.
  s.compute_dtype = Dtype::bf16;
  CHECK(s.bf16_layer_share(88, 22) == 0.0);
}

TEST_CASE("bf16 edge layers: their GEMMs at the bf16 rate, their casts gone") {
  // tiny_gpt's 2 layers in fp8 on an H100 with the first one in bf16: half the dense GEMM time at
  // the fp8 rate and half at the bf16 rate; the fp8 casts of half the layers.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::catalog_node("H100-80GB");
  Strategy fp8;
  fp8.compute_dtype = Dtype::fp8;
  fp8.fp8_recipe = Fp8Recipe::tensorwise;
  Strategy bf16 = fp8;
  bf16.compute_dtype = Dtype::bf16;
  Strategy edge = fp8;
  edge.bf16_first_layers = 1;
  edge.bf16_last_layers = 0;
  const double low = traced(model, node, fp8, "time/compute/dense_gemm");
  const double sixteen = traced(model, node, bf16, "time/compute/dense_gemm");
  CHECK(sixteen > 1.5 * low);
  CHECK(traced(model, node, edge, "time/compute/dense_gemm") == test::approx(0.5 * low + 0.5 * sixteen));
  CHECK(traced(model, node, edge, "time/compute/fp8_cast") ==
        test::approx(0.5 * traced(model, node, fp8, "time/compute/fp8_cast")));
}

}  // namespace meshplan
