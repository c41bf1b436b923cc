#pragma once
// How `meshplan model` shows a ModelSpec: a readable table or a JSON document.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "model/model_spec.hpp"

namespace meshplan {

/// `meshplan model` reports the KV cache in bf16 (2 bytes per element), vLLM's default for bf16 models.
inline constexpr int kReportKvBytesPerElement = 2;

/// A count with a decimal unit: 7615616512 -> "7.62 B", 494032768 -> "494.03 M".
std::string human_count(std::int64_t count);

/// The terminal view: shape, MoE, parameter counts, KV cache and training FLOPs at `seq_len`,
/// and the per-component breakdown.
void print_model_table(const ModelSpec& model, std::int64_t seq_len, std::ostream& out);

/// The `--json` document (fields listed in docs/tour/model.md), pretty-printed.
std::string model_json(const ModelSpec& model, std::int64_t seq_len);

}  // namespace meshplan
