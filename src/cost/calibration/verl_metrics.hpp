#pragma once
// verl's console metric lines (verl/utils/tracking.py, console logger):
//   step:3 - timing_s/gen:41.2 - timing_s/update_actor:20.5 - perf/mfu/actor:0.31 - ...
// read into per-key means over the steps, so `meshplan estimate --measured` can compare.
#include <map>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace meshplan {

struct VerlMetrics {
  std::map<std::string, double> mean;  ///< metric -> mean over the steps used
  int steps = 0;                       ///< metric lines read
  int steps_used = 0;                  ///< steps averaged (the first is dropped as warm-up when > 1)
};

/// Reads every line with "step:N" and " - key:value" pairs; other lines are skipped (a verl log
/// has much else). A value that is not a number is an error naming file:line and the key; a
/// file without metric lines is an error.
Result<VerlMetrics> parse_verl_metrics(std::string_view text, const std::string& file);

}  // namespace meshplan
