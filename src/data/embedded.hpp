#pragma once
// Files from the repository's data/ folder, compiled into the library (cmake/embed_data.cmake),
// so the tool needs nothing beside its binary: GPU catalog, model presets, verl schema, ...
#include <optional>
#include <span>
#include <string_view>

namespace meshplan {

struct EmbeddedFile {
  std::string_view path;      ///< relative to data/, e.g. "models/qwen3-8b.json"
  std::string_view contents;  ///< the file's bytes
};

/// Every embedded file, sorted by path.
std::span<const EmbeddedFile> embedded_files();

/// The contents of data/<path>, or nullopt when no such file was embedded.
std::optional<std::string_view> embedded_file(std::string_view path);

}  // namespace meshplan
