#include "report/diagnose_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "diagnose/fix_renderer.hpp"

namespace meshplan {

namespace {

std::string_view fix_kind_name(FixKind kind) {
  switch (kind) {
    case FixKind::override_line: return "override";
    case FixKind::env: return "env";
    case FixKind::action: return "action";
  }
  return "action";
}

std::string number_text(const NumberValue& value) { return value.is_text ? value.text : format_number(value.value); }

std::string heading(const Diagnosis& diagnosis) {
  if (diagnosis.root_cause) return diagnosis.severity == Severity::info ? "SLOW-RUN FINDING" : "ROOT CAUSE";
  return diagnosis.consequence ? "CONSEQUENCE" : "ALSO FOUND";
}

}  // namespace

std::string diagnosis_text(const DiagnosisReport& report) {
  std::string out = report.summary + "\n";
  for (const std::string& note : report.notes) out += fmt::format("({})\n", note);
  for (const Diagnosis& diagnosis : report.diagnoses) {
    out += fmt::format("\n{}: {} [{}]", heading(diagnosis), diagnosis.category, severity_name(diagnosis.severity));
    if (!diagnosis.phase.empty()) out += fmt::format(" in {}", diagnosis.phase);
    out += fmt::format("\n  {}\n", diagnosis.explanation);
    if (!diagnosis.numbers.empty()) {
      out += "  numbers:";
      for (const auto& [name, value] : diagnosis.numbers) out += fmt::format(" {}={}", name, number_text(value));
      out += "\n";
    }
    out += "  evidence:\n";
    for (const Evidence& evidence : diagnosis.evidence) {
      out += fmt::format("    {}:{}: {}\n", evidence.file, evidence.line, evidence.text);
    }
    if (diagnosis.occurrences > static_cast<std::int64_t>(diagnosis.evidence.size())) {
      out += fmt::format("    ({} matching lines in all)\n", diagnosis.occurrences);
    }
    if (!diagnosis.fixes.empty()) {
      out += "  fixes (cheapest first):\n";
      int rank = 1;
      for (const Fix& fix : diagnosis.fixes) {
        out += fmt::format("    {}. [{}] {}\n", rank++, fix_kind_name(fix.kind), fix.text);
      }
    }
  }
  return out;
}

std::string diagnosis_json(const DiagnosisReport& report) {
  nlohmann::json diagnoses = nlohmann::json::array();
  for (const Diagnosis& diagnosis : report.diagnoses) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const Evidence& e : diagnosis.evidence) evidence.push_back({{"file", e.file}, {"line", e.line}, {"text", e.text}});
    nlohmann::json numbers = nlohmann::json::object();
    for (const auto& [name, value] : diagnosis.numbers) {
      if (value.is_text) {
        numbers[name] = value.text;
      } else if (value.value == std::floor(value.value) && std::fabs(value.value) < 9e15) {
        numbers[name] = static_cast<std::int64_t>(value.value);  // counts and sizes in tokens print as integers
      } else {
        numbers[name] = value.value;
      }
    }
    nlohmann::json fixes = nlohmann::json::array();
    for (const Fix& fix : diagnosis.fixes) fixes.push_back({{"kind", fix_kind_name(fix.kind)}, {"text", fix.text}});
    diagnoses.push_back({{"category", diagnosis.category},
                         {"severity", severity_name(diagnosis.severity)},
                         {"root_cause", diagnosis.root_cause},
                         {"evidence", evidence},
                         {"explanation", diagnosis.explanation},
                         {"numbers", numbers},
                         {"fixes", fixes}});
  }
  // docs/json.md: `meshplan diagnose --json` (schema_version 1).
  nlohmann::json out = {{"schema_version", 1}, {"diagnoses", diagnoses}, {"summary", report.summary}};
  return out.dump(2) + "\n";
}

}  // namespace meshplan
