#pragma once
// Every estimate can be explained: each term records its formula, inputs and source.
// Cost functions take a `Trace*` that may be null; when it is null they build no strings,
// so the search pays nothing for explainability.
#include <string>
#include <vector>

namespace meshplan {

struct TraceTerm {
  std::string name;     ///< e.g. "memory/actor_update/optimizer_states"
  double value = 0;
  std::string unit;     ///< "bytes", "seconds", "flops", ...
  std::string formula;  ///< e.g. "12 * params_per_rank / dp"
  std::string inputs;   ///< e.g. "params_per_rank=3.8e9, dp=8"
  std::string source;   ///< e.g. "ZeRO (Rajbhandari et al. 2020) §3.1"
};

using Trace = std::vector<TraceTerm>;

}  // namespace meshplan
