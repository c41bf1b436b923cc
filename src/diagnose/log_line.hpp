#pragma once
// One raw log line made readable: terminal colours and carriage-return progress bars removed,
// then the prefixes that launchers put in front of a message peeled off (Ray's
// "(WorkerDict pid=…, ip=…)" and "(VllmWorker rank=2 pid=…)", torch's "[rank3]:", SGLang's
// "[… TP12]", srun's "3: ", mpirun's "[1,3]<stdout>:", glog / Python / vLLM / dmesg timestamps
// and log levels, rich's box borders).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshplan {

/// The text a terminal would show for `raw`: ANSI escape sequences removed, and of the segments
/// separated by '\r' (progress bars redrawn in place) only the last non-empty one, without the
/// markdown emphasis ("**") of a log pasted into an issue. Returns a view into `raw` or into
/// `scratch`.
std::string_view clean_line(std::string_view raw, std::string& scratch);

/// The severity a prefix announced ("ERROR 11-27 …", "E1127 …", "… | ERROR | …", "ERROR:name:").
enum class LogLevel { none, debug, info, warning, error };

struct LinePrefix {
  std::string_view source;  ///< Ray process name ("WorkerDict", "TaskRunner", "raylet"); "" if none
  std::int64_t pid = -1;    ///< Ray's pid=…; -1 if none
  std::string_view ip;      ///< Ray's ip=…
  int rank = -1;            ///< "[rank3]:", "[default3]:", "rank=3", "TP3", "[1,3]<stdout>:"; -1 if none
  LogLevel level = LogLevel::none;
  /// Seconds since 1 January of a year-agnostic calendar (month * 31 days + day); glog stamps
  /// carry no year, so the year is ignored everywhere. nullopt when the line has no stamp.
  std::optional<double> time_seconds;
  std::string_view body;    ///< the message after every recognised prefix
};

/// Peels the prefixes off a cleaned line (any order, as launchers nest them).
LinePrefix parse_prefix(std::string_view line);

}  // namespace meshplan
