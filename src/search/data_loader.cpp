#include "search/data_loader.hpp"

#include <algorithm>
#include <cmath>

namespace meshplan {

double default_cpu_seconds_per_image(std::int64_t image_pixels) {
  return static_cast<double>(image_pixels) / 1e6 * kCpuSecondsPerMegapixel;
}

DataLoaderNeed data_loader_need(const Workload& workload, double step_seconds, double cpu_seconds_per_image) {
  DataLoaderNeed need;
  need.images_per_step = workload.global_batch * workload.images_per_sample;
  if (need.images_per_step <= 0 || step_seconds <= 0) return need;
  need.cpu_seconds_per_step = static_cast<double>(need.images_per_step) * cpu_seconds_per_image;
  need.workers = std::max(1, static_cast<int>(std::ceil(need.cpu_seconds_per_step / step_seconds)));
  return need;
}

}  // namespace meshplan
