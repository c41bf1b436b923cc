#pragma once
// Reading the calibration files (published_runs.json, rl_runs.json): fields that may be null or
// absent, and the array of rows, each turned into a run or skipped with the reason.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace meshplan {

struct SkippedRun {
  std::string id;
  std::string reason;
};

inline std::optional<std::int64_t> json_int(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<std::int64_t>();
}

inline std::optional<double> json_number(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

inline std::string json_string(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// The conventions of the source a row id starts with (each table entry has `id_prefix`);
/// null for a source with no conventions recorded.
template <class Source, std::size_t N>
const Source* source_of(const std::string& id, const Source (&sources)[N]) {
  const Source* found = nullptr;
  for (const Source& candidate : sources) {
    if (id.rfind(candidate.id_prefix, 0) == 0) found = &candidate;
  }
  return found;
}

template <class Run>
struct CalibrationRows {
  std::vector<Run> runs;
  std::vector<SkippedRun> skipped;
};

/// Every object of the JSON array `json_text` through `build` (row -> Result<Run>); a row whose
/// build fails is skipped with the Error's key (the row id) and message. `what` names the rows
/// in the errors ("published runs", "RL runs").
template <class Run, class Build>
Result<CalibrationRows<Run>> read_calibration_rows(std::string_view json_text, const std::string& file_name,
                                                   const std::string& what, Build build) {
  const nlohmann::json rows = nlohmann::json::parse(json_text, nullptr, false);
  if (rows.is_discarded() || !rows.is_array()) return Error{file_name, 0, "", "expected a JSON array of " + what};
  CalibrationRows<Run> set;
  for (const nlohmann::json& row : rows) {
    if (!row.is_object()) return Error{file_name, 0, "", "every one of the " + what + " must be a JSON object"};
    Result<Run> run = build(row);
    if (run) {
      set.runs.push_back(std::move(run.value()));
    } else {
      set.skipped.push_back({run.error().key, run.error().message});
    }
  }
  return set;
}

}  // namespace meshplan
