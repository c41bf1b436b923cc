// The rollout engine's own memory: the profile run of a MoE model, CUDA graphs under
// enforce_eager, and which engine refuses to start below one max_model_len sequence.
#include "cost/memory/rollout_memory.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"
#include "cost/hand_models.hpp"

namespace meshplan {
namespace {

constexpr double k80GiB = 85899345920.0;

Workload rollout_workload() {
  Workload w;
  w.global_batch = 64;
  w.rl.n = 4;
  w.rl.prompt_len = 1024;
  w.rl.response_len = 8192;
  w.rl.gpu_memory_utilization = 0.2;
  return w;
}

TEST_CASE("the profile run of a MoE model holds every routed expert a token reaches") {
  // Mixtral-8x7B at rollout TP 2 (h 4096, 32 heads + 2 x 8 KV heads of 128, top-2 experts of
  // 14,336): a token's layer holds 2 x (2 x 4096 + 6144 / 2 + 3 x 2 x 14,336 / 2) = 108,544 bytes,
  // x 8192 batched tokens = 889,192,448; the sampler's fp32 logits and probabilities
  // 256 x 32,000 / 2 x 8 = 32,768,000.
  Workload w = rollout_workload();
  w.rl.rollout_tp = 2;
  const RolloutMemory m = rollout_memory(test::mixtral_8x7b(), w, 8, k80GiB, 0.0, nullptr);
  CHECK(m.workspace == 921960448.0);
}

TEST_CASE("an engine run with enforce_eager captures no CUDA graphs") {
  Workload w = rollout_workload();
  CHECK(rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 0.0, nullptr).cuda_graphs == kCudaGraphBytes);
  w.rl.enforce_eager = true;
  CHECK(rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 0.0, nullptr).cuda_graphs == 0.0);
}

TEST_CASE("fp8 rollout holds the linear layers in a byte a weight, the embeddings, LM head and norms in bf16") {
  // Qwen2.5-7B at rollout TP 1 with rollout.quantization=fp8: the 28 layers' projections and MLPs,
  // 28 x (29,364,736 + 203,685,888) = 6,525,417,472 weights at 1 byte (their 129,024 biases, which
  // vLLM keeps in bf16, counted with them), and the embedding and LM head (2 x 544,997,376) and the
  // norms (28 x 7,168 + 3,584) at 2: 6,525,417,472 + 2 x 1,090,199,040 = 8,705,815,552 bytes,
  // against 15,231,233,024 in bf16. The KV cache gets the 6,525,417,472 bytes the weights leave.
  Workload w = rollout_workload();
  const RolloutMemory bf16 = rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr);
  CHECK(bf16.weights == 15231233024.0);
  w.rl.rollout_fp8 = true;
  const RolloutMemory fp8 = rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr);
  CHECK(fp8.weights == 8705815552.0);
  CHECK(fp8.kv_cache - bf16.kv_cache == test::approx(6525417472.0));
}

TEST_CASE("TensorRT-LLM sizes its KV cache as a share of the memory left free, not of the whole GPU") {
  // Qwen2.5-7B at rollout TP 1, utilization 0.2, the trainer holding 1.5e9: vLLM's budget is 0.2 x
  // 80 GiB = 17,179,869,184, of which the 15,231,233,024 bytes of weights and the profile run's
  // workspace leave under 2 GB of KV; TensorRT-LLM's free_gpu_memory_fraction 0.2 is of the
  // 85,899,345,920 - 1.5e9 - 15,231,233,024 - workspace still free: about 13.8 GB.
  Workload w = rollout_workload();
  const RolloutMemory vllm = rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr);
  CHECK(vllm.kv_cache == test::approx(17179869184.0 - 15231233024.0 - vllm.workspace));
  w.rl.engine = RolloutEngine::trtllm;
  const RolloutMemory trt = rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr);
  CHECK(trt.weights == vllm.weights);
  CHECK(trt.kv_cache == test::approx(0.2 * (k80GiB - 1.5e9 - 15231233024.0 - trt.workspace)));
  CHECK(trt.kv_cache > 13.5e9);
  CHECK(trt.kv_cache < 13.9e9);
}

TEST_CASE("SGLang starts with a KV cache below one max_model_len sequence, vLLM does not") {
  // Qwen2.5-7B at rollout TP 1, 0.2 of 80 GiB = 17,179,869,184, the trainer holding 1.5e9 and the
  // weights 15,231,233,024: SGLang's KV is 448,636,160 bytes, under one 9,216-token sequence of
  // 57,344 bytes a token (528,482,304). vLLM's check_enough_kv_cache_memory refuses that start;
  // SGLang starts and caps the requests' lengths (model_runner.profile_max_num_token).
  Workload w = rollout_workload();
  w.rl.engine = RolloutEngine::sglang;
  const RolloutMemory sglang = rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr);
  CHECK(sglang.kv_cache == 448636160.0);
  CHECK(sglang.kv_cache < 9216.0 * 57344.0);
  CHECK(sglang.capacity.holds_one_sequence);
  w.rl.engine = RolloutEngine::vllm;
  CHECK_FALSE(rollout_memory(test::qwen25_7b(), w, 8, k80GiB, 1.5e9, nullptr).capacity.holds_one_sequence);
}

}  // namespace
}  // namespace meshplan
