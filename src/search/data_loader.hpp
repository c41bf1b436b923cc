#pragma once
// Multimodal input pipeline: how many CPU data-loader workers keep the GPUs fed. verl decodes
// and preprocesses images in the dataset's __getitem__ (verl/utils/dataset/rl_dataset.py), i.e.
// in the driver's DataLoader workers (data.dataloader_num_workers), one step's batch ahead.
#include <cstdint>

#include "strategy/strategy.hpp"

namespace meshplan {

/// CPU seconds per megapixel to decode and preprocess an image with the Hugging Face Qwen2-VL
/// image processor (resize, rescale, normalise, patchify): reports against Qwen2-VL
/// (github.com/QwenLM/Qwen3-VL issues #491 and #514, 2024) measured about 0.2 s for a 1k x 1k
/// image and 0.4 s for a 1280 x 28 x 28-pixel one; the larger figure is taken so that the
/// workers suffice. The torchvision "fast" processor is quicker: --cpu-ms-per-image gives a
/// measured figure instead.
inline constexpr double kCpuSecondsPerMegapixel = 0.4;

/// The default CPU cost of one image of `image_pixels` pixels.
double default_cpu_seconds_per_image(std::int64_t image_pixels);

struct DataLoaderNeed {
  std::int64_t images_per_step = 0;  ///< prompts per step x images per sample
  double cpu_seconds_per_step = 0;
  int workers = 0;  ///< ceil(cpu seconds per step / step seconds): enough to finish within a step
};

/// Zero workers when the workload has no images. RL loads each prompt once per step (the n
/// responses share it), so images per step = train_batch_size x images_per_sample.
DataLoaderNeed data_loader_need(const Workload& workload, double step_seconds, double cpu_seconds_per_image);

}  // namespace meshplan
