#include <doctest/doctest.h>

#include "diagnose/error_events.hpp"
#include "diagnose/error_line.hpp"
#include "diagnose/signature.hpp"

namespace meshplan {

TEST_CASE("find_error: Python exceptions, wrapped classes, bare assertions") {
  const auto value = find_error("ValueError: Total number of attention heads (52) must be divisible", LogLevel::none);
  REQUIRE(value.has_value());
  CHECK(value->kind == "ValueError");
  CHECK(value->message == "Total number of attention heads (52) must be divisible");
  CHECK_FALSE(value->echo);
  const auto torch = find_error("torch.OutOfMemoryError: CUDA out of memory.", LogLevel::none);
  REQUIRE(torch.has_value());
  CHECK(torch->kind == "torch.OutOfMemoryError");
  const auto ray = find_error("ray.exceptions.RayTaskError(ValueError): ray::TaskRunner.run() (pid=1)", LogLevel::none);
  REQUIRE(ray.has_value());
  CHECK(ray->kind == "ray.exceptions.RayTaskError");
  CHECK(ray->wrapped == "ValueError");
  CHECK(ray->echo);
  const auto bare = find_error("AssertionError", LogLevel::none);
  REQUIRE(bare.has_value());
  CHECK(bare->message.empty());
  // After a truncated vLLM prefix, inside a pytest "E   " line.
  CHECK(find_error("RROR 12-18 19:47:34 engine.py:366] ValueError: x", LogLevel::none)->kind == "ValueError");
  CHECK(find_error("E    ray.exceptions.OutOfMemoryError: Task was killed", LogLevel::none)->kind ==
        "ray.exceptions.OutOfMemoryError");
}

TEST_CASE("find_error: source lines, warnings and prose are not errors") {
  CHECK_FALSE(find_error("raise ValueError(\"No available memory for the cache blocks. \"", LogLevel::none));
  CHECK_FALSE(find_error("Error executing job with overrides: ['a=1']", LogLevel::none));
  CHECK_FALSE(find_error("RuntimeError(s) in loading state_dict for X:", LogLevel::none));
  CHECK_FALSE(find_error("UserWarning: FSDP is switching to use NO_SHARD", LogLevel::none));
  CHECK_FALSE(find_error("File \"/x/y.py\", line 3, in f", LogLevel::error));
  CHECK_FALSE(find_error("the ErrorHandler was installed", LogLevel::none));
  // PyTorch's native backtrace after a watchdog abort (verl#5750, OpenRLHF#427): C++ frames.
  CHECK_FALSE(find_error("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in "
                         "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)",
                         LogLevel::none));
  CHECK_FALSE(find_error("terminate called after c10::Error::Error(c10::SourceLocation, std::string)", LogLevel::none));
}

TEST_CASE("find_error: NCCL, CUDA and kernel asserts, ERROR-level lines are echoes") {
  const auto warn = find_error("node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4",
                               LogLevel::none);
  REQUIRE(warn.has_value());
  CHECK(warn->kind == "NCCL WARN");
  CHECK(warn->message.starts_with("socketPollConnect"));
  CHECK(find_error("NCCL failure common.cu:921 'unhandled system error'", LogLevel::none)->kind == "NCCL failure");
  CHECK(find_error("Indexing.cu:1284: indexSelectLargeIndex: block: [37,0,0] Assertion `srcIndex < n` failed.",
                   LogLevel::none)
            ->kind == "device assert");
  const auto logged = find_error("EngineCore failed to start.", LogLevel::error);
  REQUIRE(logged.has_value());
  CHECK(logged->echo);
  CHECK_FALSE(find_error("EngineCore failed to start.", LogLevel::info));
}

TEST_CASE("parse_frame reads file, line and function") {
  const auto frame = parse_frame("File \"/usr/lib/python3/dist-packages/vllm/config.py\", line 280, in verify");
  REQUIRE(frame.has_value());
  CHECK(frame->file == "/usr/lib/python3/dist-packages/vllm/config.py");
  CHECK(frame->line == "280");
  CHECK(frame->function == "verify");
  CHECK_FALSE(parse_frame("Megatron-LM/megatron/training/arguments.py\", line 561, in validate_args"));
}

TEST_CASE("framework_of: the installed package, else the innermost framework directory") {
  CHECK(framework_of("/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py") == "vLLM");
  CHECK(framework_of("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py") == "PyTorch");
  CHECK(framework_of("/data/EasyR1/verl/trainer/main.py") == "verl");
  CHECK(framework_of("/opt/megatron-lm/megatron/core/parallel_state.py") == "Megatron-LM");
  CHECK(framework_of("/home/me/train.py").empty());
}

// Message shapes (signatures_shape.cpp) on real messages that no literal signature knows; each
// from an issue thread of tests/fixtures/logs/real/index.json.
TEST_CASE("classify_error_text: the shape decides the category, general over exact wording") {
  const auto category = [](std::string_view text) {
    return std::string(signatures()[classify_error_text(text)].category);
  };
  CHECK(category("AssertionError: n_physical_experts=256 must be divisible by ep_size=3.") == "parallel_mismatch");
  CHECK(category("AssertionError: rollout world_size: 1 is not divisible by infer_tp: 2") == "parallel_mismatch");
  CHECK(category("AssertionError: 4 is not divisible by 8") == "parallel_mismatch");
  CHECK(category("ValueError: The global train batch size (7 x 1) must be evenly divisible by the number of "
                 "generations per prompt (8).") == "batch_config");
  CHECK(category("AssertionError: Check batch related parameters. train_batch_size is not equal to "
                 "micro_batch_per_gpu * gradient_acc_step * world_size 16 != 1 * 8 * 1") == "batch_config");
  CHECK(category("AssertionError: Micro batch size per gpu: 0 has to be greater than 0") == "batch_config");
  CHECK(category("ModuleNotFoundError: No module named 'nemo'") == "environment");
  CHECK(category("RuntimeError: CUDA error: an illegal memory access was encountered") == "cuda_fault");
  CHECK(category("AssertionError: local_world_size must be less than or equal to the number of visible devices") ==
        "device_visibility");
  CHECK(category("NCCL trace: ncclSystemError") == "nccl_network");
  CHECK(category("ValueError: Not enough GPUs available. Requested 16 GPUs, but only 8 are available") == "resources");
  CHECK(category("KeyError: 'response_mask'") == "unclassified");
}

}  // namespace meshplan
