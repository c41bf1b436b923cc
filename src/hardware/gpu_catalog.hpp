#pragma once
// The GPU catalog: data/hardware/gpus.json compiled into the binary, or a user's file of the
// same shape (--gpu-catalog). Lookup is case-insensitive on ids and aliases.
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "hardware/gpu_spec.hpp"

namespace meshplan {

/// Reads a catalog ({"gpus": [ {...}, ... ]}, JSON or YAML). Every field is required and checked
/// (type, range); ids and aliases must be unique case-insensitively. Errors name file, line, key.
Result<std::vector<GpuSpec>> parse_gpu_catalog(std::string_view json_text, std::string_view source_name);

/// The embedded catalog (parsed once). Its validity is a build-time fact checked by the tests;
/// load_gpu_catalog_argument("") reports a parse error as a value instead.
const std::vector<GpuSpec>& builtin_gpu_catalog();

/// The embedded catalog's text, "hardware/gpus.json".
std::string_view builtin_gpu_catalog_text();
inline constexpr std::string_view kBuiltinGpuCatalogName = "hardware/gpus.json";

/// The entry whose id or alias equals `name` (case-insensitive); otherwise
/// "unknown GPU 'X'; did you mean 'Y'? Known GPUs: ...".
Result<GpuSpec> find_gpu(const std::vector<GpuSpec>& catalog, std::string_view name);

/// "nvlink", "pcie", "xgmi", "hccs" (the catalog's spelling).
std::string_view link_kind_name(LinkKind kind);

}  // namespace meshplan
