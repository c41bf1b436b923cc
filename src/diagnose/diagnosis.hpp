#pragma once
// What diagnose produces: plain values the report layer prints as text or JSON.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/signature.hpp"

namespace meshplan {

/// A number read from a message (value) or a text field (op type, parameter name, ...).
struct NumberValue {
  double value = 0;
  std::string text;
  bool is_text = false;
};
using Numbers = std::map<std::string, NumberValue>;

/// One matched line: a signature seen in a log.
struct LogEvent {
  std::size_t signature = 0;  ///< index into signatures()
  std::string category;       ///< after the signature's phase rules
  std::string phase;          ///< "" when unknown
  std::size_t file_index = 0;
  std::int64_t line = 0;
  std::string text;           ///< the cleaned line, cut to a readable length
  std::optional<double> time_seconds;  ///< its own stamp, else the last stamp before it in its file
  int rank = -1;
  std::int64_t pid = -1;
  Numbers numbers;
  std::int64_t occurrences = 1;  ///< identical messages (other ranks, repeats) folded into this one
  std::vector<int> ranks;        ///< ranks that printed it (capped)
};

struct Evidence {
  std::string file;
  std::int64_t line = 0;
  std::string text;
};

struct Fix {
  FixKind kind = FixKind::action;
  std::string text;
};

struct Diagnosis {
  std::string category;
  std::string signature_id;  ///< the signature of the key event
  Severity severity = Severity::error;
  bool root_cause = false;
  bool consequence = false;  ///< an echo of the root cause on other ranks / processes
  std::string phase;
  std::vector<Evidence> evidence;  ///< key line first
  std::string explanation;
  Numbers numbers;
  std::vector<Fix> fixes;  ///< ranked, cheapest first
  std::int64_t occurrences = 0;
};

struct DiagnosisReport {
  std::vector<Diagnosis> diagnoses;  ///< root cause first
  std::string summary;
  bool failure_found = false;  ///< a failure category (not only slow-run findings)
  std::int64_t lines_read = 0;
  std::vector<std::string> notes;  ///< e.g. where the config used for the fixes came from
};

}  // namespace meshplan
