#pragma once
// Streams logs through the signature table: every line is cleaned and prefix-parsed, a single
// multi-literal pass (LiteralMatcher) picks the few lines that can match anything, and only those
// reach the regexes. Tracks, per process stream, the phase the latest traceback frames point at,
// the Hydra override list, verl's step metrics and the run's facts (run_facts.hpp); the error lines
// no signature explains become shape or unclassified events (error_events.hpp). Memory stays bounded: identical messages are
// folded and at most a few distinct ones are kept per signature and file.
#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "diagnose/diagnosis.hpp"
#include "diagnose/run_facts.hpp"
#include "diagnose/step_metrics.hpp"

namespace meshplan {

struct ScanOutput {
  std::vector<std::string> files;  ///< in the order scanned; LogEvent::file_index points here
  std::vector<LogEvent> events;
  std::map<std::string, std::string, std::less<>> overrides;  ///< Hydra "Error executing job with overrides"
  std::optional<Evidence> overrides_line;
  StepMetrics metrics;
  RunFacts facts;
  std::int64_t lines_read = 0;
};

class LogScanner {
 public:
  LogScanner();
  ~LogScanner();
  LogScanner(const LogScanner&) = delete;
  LogScanner& operator=(const LogScanner&) = delete;

  /// Reads one log to its end. An Error when the stream fails or holds no log: empty, only blank
  /// lines, or binary (NUL bytes); unknown content is not an error.
  Status scan(std::istream& in, std::string_view file_name);

  const ScanOutput& output() const { return output_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  ScanOutput output_;
};

/// The key=value pairs of a Hydra override list "['a=1', '+b.c=x', ...]" (leading +, ++, ~ dropped).
std::map<std::string, std::string, std::less<>> parse_override_list(std::string_view list);

}  // namespace meshplan
