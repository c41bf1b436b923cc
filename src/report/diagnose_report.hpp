#pragma once
// Prints a DiagnosisReport: a terminal report (root cause first) or the JSON contract of
// `meshplan diagnose --json`.
#include <string>

#include "diagnose/diagnosis.hpp"

namespace meshplan {

std::string diagnosis_text(const DiagnosisReport& report);

/// {"diagnoses": [{"category", "severity", "root_cause", "evidence": [{"file", "line", "text"}],
///  "explanation", "numbers": {...}, "fixes": [{"kind": "override|env|action", "text"}]}], "summary"}
std::string diagnosis_json(const DiagnosisReport& report);

}  // namespace meshplan
