#pragma once
// Recording one memory term in a Trace. The inputs text is produced by a callable that runs
// only when the trace is non-null, so the hot path (trace == nullptr) builds no strings.
#include <string>
#include <utility>

#include "cost/trace.hpp"

namespace meshplan {

template <class InputsFn>
inline void trace_bytes(Trace* trace, const char* name, double bytes, const char* formula, const char* source,
                        InputsFn&& inputs) {
  if (trace == nullptr) return;
  trace->push_back(TraceTerm{name, bytes, "bytes", formula, std::forward<InputsFn>(inputs)(), source});
}

}  // namespace meshplan
