#pragma once
// Turns the error lines no literal signature explained into events: each error line
// (error_line.hpp) waits for the few lines that continue its message (pydantic's "Value error, …",
// an assertion message wrapped over lines, NCCL's "Last error:"), then the shape signatures
// (signatures_shape.cpp) classify "Class: message"; an error they do not know becomes
// `unclassified_error`, a wrapper or ERROR-level echo `unclassified_echo`. Each error remembers the
// last traceback frame of its stream (where it was raised) and the framework that raised it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnosis.hpp"
#include "diagnose/log_line.hpp"

namespace meshplan {

/// One classified error line, ready to become a LogEvent.
struct ErrorEvent {
  std::size_t signature = 0;  ///< index into signatures()
  std::string body;           ///< the message body (fold key)
  std::string evidence;       ///< the cleaned line
  std::int64_t line = 0;
  std::optional<double> time_seconds;
  std::int64_t pid = -1;
  int rank = -1;
  std::string phase;
  Numbers numbers;  ///< exception, message, raised_in, framework, pid
};

class ErrorTracker {
 public:
  /// A line of the log. `explained`: a literal signature matched it (it ends a pending error and
  /// is not an error of its own). Finished errors are appended to `out`.
  void line(const LinePrefix& prefix, std::string_view cleaned, std::int64_t line_number,
            std::optional<double> time_seconds, std::string_view phase, bool explained, std::vector<ErrorEvent>& out);
  /// The end of a file: the pending error is finished; frames are forgotten.
  void finish(std::vector<ErrorEvent>& out);

 private:
  struct Pending {
    ErrorEvent event;
    std::string kind;
    std::string text;  ///< "Class(wrapped): message" plus continuation lines
    bool echo = false;
    int lines_left = 0;
  };
  void close(std::vector<ErrorEvent>& out);

  std::optional<Pending> pending_;
  std::map<std::int64_t, std::string> last_frame_;  ///< pid (or -1) -> "function (file:line)"
  std::map<std::int64_t, std::string> last_framework_;
};

/// The index in signatures() of the shape signature whose regex matches `text` (case-insensitive),
/// else of `unclassified_error`.
std::size_t classify_error_text(std::string_view text);

/// The index in signatures() of the signature with this id (it must exist).
std::size_t signature_index(std::string_view id);

/// The framework a source path belongs to ("…/site-packages/vllm/config.py" -> "vLLM"); "" if unknown.
std::string_view framework_of(std::string_view path);

}  // namespace meshplan
