#include <doctest/doctest.h>

#include "approx.hpp"
#include "search/data_loader.hpp"

namespace meshplan {

TEST_CASE("data-loader workers keep up with the step") {
  // 512 prompts x 2 images = 1024 images; 20 ms each = 20.48 CPU-seconds per step.
  // A 4 s step needs ceil(20.48 / 4) = 6 workers; a 30 s step 1.
  Workload workload;
  workload.kind = WorkloadKind::rl;
  workload.global_batch = 512;
  workload.images_per_sample = 2;
  const DataLoaderNeed fast = data_loader_need(workload, 4.0, 0.020);
  CHECK(fast.images_per_step == 1024);
  CHECK(fast.cpu_seconds_per_step == test::approx(20.48));
  CHECK(fast.workers == 6);
  CHECK(data_loader_need(workload, 30.0, 0.020).workers == 1);
  workload.images_per_sample = 0;
  CHECK(data_loader_need(workload, 4.0, 0.020).workers == 0);
}

TEST_CASE("the default CPU cost of an image follows its pixels") {
  // 448 x 448 = 200,704 pixels = 0.2007 MP x 0.4 s/MP = 80.3 ms; a 1280 x 28 x 28 image
  // (1,003,520 pixels) 0.401 s, the figure reported for the HF Qwen2-VL processor.
  CHECK(default_cpu_seconds_per_image(448 * 448) == test::approx(0.0802816));
  CHECK(default_cpu_seconds_per_image(1280 * 28 * 28) == test::approx(0.401408));
}

}  // namespace meshplan
