#pragma once
// A finding of `check`: one rule that a verl (or Megatron-LM) launch would trip, with where,
// why, what verl would do and when, and the override lines that fix it.
#include <string>
#include <vector>

namespace meshplan {

/// Where a value came from: a script line, a YAML line, a --set flag ("" file, line 0).
struct SourceLocation {
  std::string file;
  int line = 0;
};

enum class Severity { error, warning, info };

struct Finding {
  Severity severity = Severity::error;
  std::string rule;               ///< stable id, e.g. "batch.train-divisible"
  std::vector<std::string> keys;  ///< every config key (or variable) involved
  std::string value;              ///< the offending value as written or resolved
  std::string message;            ///< what is wrong, and what verl would do and when
  std::vector<std::string> fix;   ///< concrete override lines (may be empty)
  SourceLocation location;
};

const char* severity_name(Severity severity);

}  // namespace meshplan
