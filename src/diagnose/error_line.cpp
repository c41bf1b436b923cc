#include "diagnose/error_line.hpp"

#include <array>

namespace meshplan {

namespace {

bool is_identifier(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// Exceptions that re-raise an error from another process or thread: Ray's task and actor
/// wrappers (ray/exceptions.py), torchrun's ChildFailedError (torch/distributed/elastic).
constexpr std::array<std::string_view, 6> kWrappers = {"RayTaskError",  "RayActorError",    "ActorDiedError",
                                                       "ActorUnschedulableError", "ChildFailedError",
                                                       "WorkerCrashedError"};

bool is_wrapper(std::string_view kind) {
  const std::string_view last = kind.substr(kind.rfind('.') == std::string_view::npos ? 0 : kind.rfind('.') + 1);
  for (const std::string_view wrapper : kWrappers) {
    if (last == wrapper) return true;
  }
  return false;
}

/// "ValueError: …" at `at` (the index of the class name's suffix "Error"/"Exception"); the class
/// name is read leftwards, a wrapped class in parentheses and the message rightwards.
std::optional<ErrorLine> exception_at(std::string_view body, std::size_t at, std::size_t suffix_size) {
  const std::size_t end = at + suffix_size;
  if (end < body.size() && is_identifier(body[end])) return std::nullopt;  // "ErrorHandler"
  std::size_t start = at;
  while (start > 0 && (is_identifier(body[start - 1]) || body[start - 1] == '.')) --start;
  while (start < at && body[start] == '.') ++start;
  const std::string_view kind = body.substr(start, end - start);
  const std::size_t dot = kind.rfind('.');
  const char first = kind[dot == std::string_view::npos ? 0 : dot + 1];
  if (first < 'A' || first > 'Z') return std::nullopt;
  const bool garbled_start = body.substr(0, start).find_first_not_of('.') == std::string_view::npos;
  if (start > 0 && !garbled_start) {  // ".DistBackendError: …" after interleaved writes counts from the start
    if (start >= 2 && body.substr(start - 2, 2) == "::") return std::nullopt;  // C++: "c10::Error::Error("
    const char before = body[start - 1];
    if (before != ' ' && before != '\t' && before != ':' && before != ']' && before != '|' && before != '>' &&
        before != '(' && before != '`') {
      return std::nullopt;
    }
    const std::string_view left = body.substr(0, start);
    for (const std::string_view code : {"raise ", "except ", "import ", "isinstance("}) {
      if (left.ends_with(code)) return std::nullopt;  // a traceback's source line, not the error
    }
  }
  ErrorLine error;
  error.kind = kind;
  error.offset = start;
  std::size_t pos = end;
  if (pos < body.size() && body[pos] == '(') {
    const std::size_t close = body.find(')', pos);
    if (close == std::string_view::npos || close - pos > 64) return std::nullopt;
    error.wrapped = body.substr(pos + 1, close - pos - 1);
    pos = close + 1;
  }
  if (pos < body.size() && body[pos] == '.') ++pos;  // "DistBackendError.: …" from interleaved writes
  if (pos < body.size()) {
    if (body[pos] != ':') return std::nullopt;  // "Error executing job …", "Error(s) in loading …"
    if (body.substr(pos).starts_with("::")) return std::nullopt;  // C++ scope: "c10::Error::Error("
    error.message = trim(body.substr(pos + 1));
  }
  error.echo = is_wrapper(kind);
  return error;
}

std::optional<ErrorLine> native_error(std::string_view body, std::string_view marker, std::string_view kind) {
  const std::size_t at = body.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  ErrorLine error;
  error.kind = kind;
  error.offset = at;
  error.message = trim(body.substr(at + marker.size()));
  return error;
}

/// NCCL's trace of a failed call: "host:pid:tid [0] NCCL INFO init.cc:1350 -> 2" (NCCLCHECK in
/// nccl/src/include/checks.h logs each frame the error passes; the number is an ncclResult_t).
std::optional<ErrorLine> nccl_error_trace(std::string_view body) {
  static constexpr std::array<std::string_view, 8> kResults = {
      "ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"};
  const std::size_t info = body.find(" NCCL INFO ");
  const std::size_t arrow = body.rfind(" -> ");
  if (info == std::string_view::npos || arrow == std::string_view::npos || arrow < info) return std::nullopt;
  std::string_view code = body.substr(arrow + 4);
  code = code.substr(0, code.find(' '));
  if (code.size() != 1 || code[0] < '1' || code[0] > '7') return std::nullopt;
  ErrorLine error;
  error.kind = "NCCL trace";
  error.offset = info;
  error.message = kResults[static_cast<std::size_t>(code[0] - '0')];
  return error;
}

}  // namespace

std::optional<ErrorLine> find_error(std::string_view body, LogLevel level) {
  if (body.starts_with("File \"") || body.starts_with("Traceback")) return std::nullopt;
  // A native stack frame (PyTorch's c10 backtrace after a watchdog abort or a CUDA error):
  // "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (libc10.so)".
  if (body.starts_with("frame #")) return std::nullopt;
  for (const std::string_view suffix : {std::string_view("Error"), std::string_view("Exception")}) {
    std::size_t at = body.find(suffix);
    for (int tries = 0; at != std::string_view::npos && tries < 4; ++tries) {
      if (auto error = exception_at(body, at, suffix.size())) return error;
      at = body.find(suffix, at + 1);
    }
  }
  // Ray's actor creation failure names no class on its own line (ray/exceptions.py ActorDiedError).
  if (auto error = native_error(body, "error raised in its creation task", "ActorDiedError")) {
    error->echo = true;
    return error;
  }
  // Native libraries: NCCL's WARN lines and failures (nccl/src/include/debug.h), CUDA runtime errors.
  if (auto error = native_error(body, " NCCL WARN ", "NCCL WARN")) return error;
  if (auto error = native_error(body, "NCCL WARN ", "NCCL WARN"); error && error->offset == 0) return error;
  if (auto error = native_error(body, "NCCL failure ", "NCCL failure"); error && error->offset == 0) return error;
  if (auto trace = nccl_error_trace(body)) return trace;
  for (const std::string_view cuda : {std::string_view("CUDA error: "), std::string_view("CUDA Error: "),
                                      std::string_view("cuda error: ")}) {
    if (auto error = native_error(body, cuda, "CUDA error")) return error;
  }
  // A CUDA kernel's assert (PyTorch's CUDA_KERNEL_ASSERT): "Indexing.cu:1284: …: Assertion `x < n` failed."
  if (const std::size_t at = body.find("Assertion `"); at != std::string_view::npos && body.ends_with("` failed.")) {
    ErrorLine error;
    error.kind = "device assert";
    error.offset = at;
    error.message = body.substr(at);
    return error;
  }
  if (level == LogLevel::error && !body.empty() && body.front() != '^' && body.front() != '~') {
    ErrorLine error;
    error.kind = "ERROR";
    error.message = body;
    error.echo = true;
    return error;
  }
  return std::nullopt;
}

std::optional<Frame> parse_frame(std::string_view body) {
  constexpr std::string_view kFile = "File \"";
  if (!body.starts_with(kFile)) return std::nullopt;
  const std::size_t close = body.find('"', kFile.size());
  if (close == std::string_view::npos) return std::nullopt;
  Frame frame;
  frame.file = body.substr(kFile.size(), close - kFile.size());
  std::string_view rest = body.substr(close + 1);
  constexpr std::string_view kLine = ", line ";
  if (!rest.starts_with(kLine)) return std::nullopt;
  rest.remove_prefix(kLine.size());
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  frame.line = rest.substr(0, digits);
  rest.remove_prefix(digits);
  constexpr std::string_view kIn = ", in ";
  if (rest.starts_with(kIn)) {
    rest.remove_prefix(kIn.size());
    frame.function = rest.substr(0, rest.find(' '));
  }
  return frame;
}

}  // namespace meshplan
