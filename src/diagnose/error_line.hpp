#pragma once
// The shape of an error in any log, whatever program printed it: a Python exception line
// ("ValueError: …", "torch.OutOfMemoryError: …", "ray.exceptions.RayTaskError(ValueError): …",
// a bare "AssertionError"), a native error ("CUDA error: …", "NCCL WARN …", "NCCL failure …"),
// or a message a logger marked ERROR; and the traceback frames ("File "x.py", line 3, in f") that
// say where it was raised. Pure functions over one cleaned message body.
#include <optional>
#include <string_view>

#include "diagnose/log_line.hpp"

namespace meshplan {

struct ErrorLine {
  std::string_view kind;     ///< the exception class ("ValueError", "torch.OutOfMemoryError"), or "NCCL WARN", "ERROR"
  std::string_view wrapped;  ///< the class a wrapper carries: "ValueError" in "RayTaskError(ValueError)"; "" if none
  std::string_view message;  ///< the text after "Class: " (may be empty)
  std::size_t offset = 0;    ///< where `kind` starts in the body
  /// A wrapper re-raising an error from elsewhere (Ray's RayTaskError/ActorDiedError, torchrun's
  /// ChildFailedError, vLLM's "Engine core initialization failed"), or a line a logger marked
  /// ERROR without an exception: it is the root cause only when nothing else is found.
  bool echo = false;
};

/// The error this message body reports; nullopt for ordinary lines, warnings and traceback source lines.
std::optional<ErrorLine> find_error(std::string_view body, LogLevel level);

struct Frame {
  std::string_view file;
  std::string_view line;
  std::string_view function;
};

/// A traceback frame line: `File "/x/y.py", line 12, in update_actor`; nullopt otherwise.
std::optional<Frame> parse_frame(std::string_view body);

}  // namespace meshplan
