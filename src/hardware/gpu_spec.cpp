#include "hardware/gpu_spec.hpp"

#include <strings.h>

#include "core/text.hpp"

namespace meshplan {

double GpuSpec::peak_flops(Dtype dtype) const {
  switch (dtype) {
    case Dtype::fp32: return fp32_flops;
    case Dtype::tf32: return tf32_flops;
    case Dtype::bf16: return bf16_flops;
    case Dtype::fp16: return fp16_flops;
    case Dtype::fp8: return fp8_flops;
    case Dtype::fp4: return fp4_flops;
  }
  return 0;
}

std::string_view compute_dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::fp4: return "fp4";
  }
  return "";
}

bool GpuSpec::is_generation(std::string_view generation) const {
  return arch.size() >= generation.size() &&
         strncasecmp(arch.data(), generation.data(), generation.size()) == 0;
}

std::string GpuSpec::generation() const { return to_lower(arch.substr(0, arch.find(' '))); }

}  // namespace meshplan
