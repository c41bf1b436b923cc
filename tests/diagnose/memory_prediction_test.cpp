#include <doctest/doctest.h>

#include "core/std_regex.hpp"
#include <string>

#include "diagnose/fix_renderer.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"

namespace meshplan {

TEST_CASE("predicted peak: halving the update's micro-batch lowers the memory model's update_actor peak") {
  const auto config = find_model_preset_config("qwen2.5-7b-instruct");
  REQUIRE(config.has_value());
  auto model = parse_model_config(*config, "qwen2.5-7b-instruct");
  REQUIRE(model.ok());
  auto gpu = find_gpu(builtin_gpu_catalog(), "H100-80GB");
  REQUIRE(gpu.ok());
  FixContext context;
  context.model = *model;
  FixContext::Job job;
  job.strategy.backend = Backend::fsdp;
  job.strategy.zero = ZeroStage::zero3;
  job.strategy.dp = 8;
  job.strategy.micro_batch = 16;
  job.workload.kind = WorkloadKind::rl;
  job.workload.global_batch = 256;
  job.workload.rl.n = 8;
  job.workload.rl.prompt_len = 1024;
  job.workload.rl.response_len = 8192;
  job.workload.seq_len = 9216;
  job.workload.rl.ppo_micro_batch_per_gpu = 16;
  job.cluster.groups.push_back(NodeGroup{1, 8, *gpu});
  context.job = job;
  const auto text = fill_placeholders("{d:predicted_peak}", {}, "update_actor", context);
  REQUIRE(text.has_value());
  CAPTURE(*text);
  // "update_actor peak A GiB -> B GiB with micro-batch 8 (usable C GiB)": B < A, since the
  // activations and logits scale with the micro-batch while the model states do not.
  std::smatch match;
  const std::regex pattern(R"(update_actor peak ([\d.]+) GiB -> ([\d.]+) GiB with micro-batch 8 \(usable ([\d.]+) GiB\))");
  REQUIRE(std::regex_match(*text, match, pattern));
  CHECK(std::stod(match[2]) < std::stod(match[1]));
  CHECK(std::stod(match[3]) > 70.0);
  // Without the job the prediction is not offered.
  context.job.reset();
  CHECK_FALSE(fill_placeholders("{d:predicted_peak}", {}, "update_actor", context).has_value());
}

}  // namespace meshplan
