#pragma once
// Multimodal input pipeline: how many CPU data-loader workers keep the GPUs fed. verl decodes
// and preprocesses images in the dataset's __getitem__ (verl/utils/dataset/rl_dataset.py), i.e.
// in the driver's DataLoader workers (data.dataloader_num_workers), one step's batch ahead.
#include <cstdint>

#include "strategy/strategy.hpp"

namespace meshplan {

/// CPU seconds to decode and preprocess one image (resize, normalise, patchify): an assumption
/// (a few ms of JPEG decoding plus the HF image processor), not a measurement; the CLI's
/// --cpu-ms-per-image overrides it with the user's own figure.
inline constexpr double kDefaultCpuSecondsPerImage = 0.020;

struct DataLoaderNeed {
  std::int64_t images_per_step = 0;  ///< prompts per step x images per sample
  double cpu_seconds_per_step = 0;
  int workers = 0;  ///< ceil(cpu seconds per step / step seconds): enough to finish within a step
};

/// Zero workers when the workload has no images. RL loads each prompt once per step (the n
/// responses share it), so images per step = train_batch_size x images_per_sample.
DataLoaderNeed data_loader_need(const Workload& workload, double step_seconds, double cpu_seconds_per_image);

}  // namespace meshplan
