// Activation offloading's time: the copy of each offloaded layer's saved tensors to host memory
// and back that outlasts the layer's compute (verl utils/activation_offload.py and Transformer
// Engine's cpu_offload.py wait for the copy at each layer boundary).
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/time/offload_time.hpp"
#include "cost/time/time_fixtures.hpp"

namespace meshplan {
namespace {

TEST_CASE("activation offloading: the copies beyond each layer's forward and backward are exposed") {
  // Tiny GPT (h 1024, 16 heads of 64, 4h GeLU MLP, no dropout), 1024 tokens, FlashAttention.
  // One layer keeps: norm inputs, QKV and fc1 inputs 8sbh = 8,388,608; Q, K 2sb(1024 + 1024) =
  // 4,194,304; V and the output projection input 2 x 2,097,152; LSE 4 x 16 x 1024 = 65,536; GeLU
  // fc1 output and fc2 input 2 x 2 x 4096 x 1024 = 16,777,216: 33,619,968 bytes.
  // Over the A100's 26.3 GB/s host link: 1.27833e-3 s each way. The layer's forward is
  // (3.30622e-4 + 6.27011e-5) / 2 = 1.96662e-4 s, its backward twice that (compute_time_test):
  // exposed (1.27833e-3 - 1.96662e-4) + (1.27833e-3 - 3.93323e-4) = 1.96666e-3 s per micro-batch.
  const ModelSpec model = test::tiny_gpt();
  const NodeGroup node = test::a100_node();
  Strategy strategy;
  strategy.activation_offload_layers = 1;
  const TimeOptions options = test::simple_options();
  const StageCompute stage = stage_compute(model, node, strategy, 1024, 1, options, nullptr);
  CHECK(activation_offload_seconds(model, node, strategy, 1024, 1, stage, options, nullptr) ==
        test::approx(1.96666e-3).epsilon(1e-4));
  // NVLink-C2C class host links (GB200: 450 GB/s): 7.5e-5 s a copy, hidden behind the layer.
  NodeGroup grace = node;
  grace.gpu.host_to_device_Bps = 450e9;
  CHECK(activation_offload_seconds(model, grace, strategy, 1024, 1, stage, options, nullptr) == 0.0);
  // Nothing offloaded, nothing exposed; at most L - 1 = 1 of the 2 layers is offloaded.
  strategy.activation_offload_layers = 0;
  CHECK(activation_offload_seconds(model, node, strategy, 1024, 1, stage, options, nullptr) == 0.0);
  strategy.activation_offload_layers = kOffloadAllButLastLayer;
  CHECK(activation_offload_seconds(model, node, strategy, 1024, 1, stage, options, nullptr) ==
        test::approx(1.96666e-3).epsilon(1e-4));
}

}  // namespace
}  // namespace meshplan
