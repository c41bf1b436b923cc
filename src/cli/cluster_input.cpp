#include "cli/cluster_input.hpp"

#include <filesystem>

#include "cli/command.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"

namespace meshplan {
namespace {

bool looks_like_file(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::exists(arg, ec)) return true;
  const std::string extension = std::filesystem::path(arg).extension().string();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

}  // namespace

Result<Cluster> load_cluster_argument(const std::string& arg, const std::vector<GpuSpec>& catalog) {
  if (looks_like_file(arg)) {
    auto text = read_text_file(arg);
    if (!text.ok()) return text.error();
    return parse_cluster_file(*text, arg, catalog);
  }
  auto cluster = parse_cluster_spec(arg, catalog);
  if (!cluster.ok()) {
    Error error = cluster.error();
    error.key = "--cluster";
    return error;
  }
  return cluster;
}

Result<std::vector<GpuSpec>> load_gpu_catalog_argument(const std::string& path_or_empty) {
  if (path_or_empty.empty()) {
    if (!builtin_gpu_catalog().empty()) return builtin_gpu_catalog();
    return parse_gpu_catalog(builtin_gpu_catalog_text(), kBuiltinGpuCatalogName);  // reports the defect
  }
  auto text = read_text_file(path_or_empty);
  if (!text.ok()) return text.error();
  return parse_gpu_catalog(*text, path_or_empty);
}

}  // namespace meshplan
