#include <doctest/doctest.h>

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
  CHECK(fast.cpu_seconds_per_step == doctest::Approx(20.48));
  CHECK(fast.workers == 6);
  CHECK(data_loader_need(workload, 30.0, 0.020).workers == 1);
  workload.images_per_sample = 0;
  CHECK(data_loader_need(workload, 4.0, 0.020).workers == 0);
}

}  // namespace meshplan
