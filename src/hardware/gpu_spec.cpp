#include "hardware/gpu_spec.hpp"

namespace meshplan {

double GpuSpec::peak_flops(Dtype dtype) const {
  switch (dtype) {
    case Dtype::fp32: return fp32_flops;
    case Dtype::tf32: return tf32_flops;
    case Dtype::bf16: return bf16_flops;
    case Dtype::fp16: return fp16_flops;
    case Dtype::fp8: return fp8_flops;
  }
  return 0;
}

}  // namespace meshplan
