// Mamba-2's SSD scan in a hybrid (Nemotron-H): the FLOPs Megatron counts for it, no causal half, at
// the SSD chunk kernel's measured share of the 16-bit peak (mamba_kernels.hpp), worked by hand for
// Nemotron 3 Nano (23 Mamba-2 layers of 64 heads x 64, state 128) on one H100.
#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "cost/time/compute_time.hpp"
#include "cost/time/mamba_kernels.hpp"
#include "cost/time/time_fixtures.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/flops.hpp"
#include "model/model_presets.hpp"
#include "model/parsed_model.hpp"

namespace meshplan {
TEST_CASE("ssd scan: Nemotron 3 Nano's Mamba-2 scan, uncausal, at the SSD kernel's measured rate") {
  const ModelSpec model = test::preset_model("nvidia-nemotron-3-nano-30b-a3b-bf16");
  // Megatron-LM training.py mamba_layer_flops' "scan": 7 FLOPs an element of the inner width x
  // state, 7 x 64 x 64 x 128 = 3,670,016 a layer, x 23 layers = 84,410,368 a token; part of the
  // score FLOPs (the model's FLOPs and MFU count it there).
  const ForwardFlops flops = forward_flops_per_token(model, 8192);
  CHECK(flops.state_space_scan == 84410368.0);
  CHECK(flops.attention_scores > flops.state_space_scan);
  // TileLang's chunk-scan benchmark on H800: 134.362 of 989 TFLOP/s.
  CHECK(kSsdScanPeakShare == test::approx(0.135856).epsilon(1e-5));
  // One H100 (989 TFLOP/s bf16), 8,192 tokens, TP 1: 84,410,368 x 8,192 / (989e12 x 0.135856)
  // = 5.146 ms a forward, the whole scan (no causal half: a causal attention kernel would do half).
  const NodeGroup node = test::catalog_node("H100-80GB");
  Strategy strategy;
  strategy.ep = 8;
  CHECK(test::traced_compute_term(model, node, strategy, 8192, "time/compute/ssd_scan") == test::approx(84410368.0 * 8192 / (989e12 * 0.135856)));
  CHECK(test::traced_compute_term(model, node, strategy, 8192, "time/compute/ssd_scan") == test::approx(5.146e-3).epsilon(1e-3));
  // TP splits the heads.
  strategy.tp = 2;
  strategy.sequence_parallel = true;
  CHECK(test::traced_compute_term(model, node, strategy, 8192, "time/compute/ssd_scan") == test::approx(84410368.0 * 8192 / 2 / (989e12 * 0.135856)));
}

}  // namespace meshplan
