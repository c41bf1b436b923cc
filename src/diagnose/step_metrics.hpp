#pragma once
// verl's console metric lines ("step:3 - timing_s/gen:123.400 - perf/mfu/actor:0.210 - ...",
// printed by verl/utils/tracking.py's console logger through concat_dict_to_str), summed over the
// steps of a run in bounded memory, and the slow-run findings drawn from them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnosis.hpp"

namespace meshplan {

class StepMetrics {
 public:
  /// Adds the metrics of one line when `body` is a metric line; false (and nothing kept) otherwise.
  bool add(std::string_view body, const Evidence& where);

  std::int64_t steps() const { return steps_; }
  /// The mean of a metric over the steps after the first (warm-up) when there are several steps,
  /// over all steps otherwise; nullopt when it was never printed.
  std::optional<double> mean(std::string_view key) const;
  const std::optional<Evidence>& last_line() const { return last_line_; }

 private:
  struct Sum {
    double first = 0;      ///< value at the first step that printed it
    double later = 0;      ///< sum over the later steps
    std::int64_t later_count = 0;
  };
  static constexpr std::size_t kMaxKeys = 256;
  std::map<std::string, Sum, std::less<>> sums_;
  std::int64_t steps_ = 0;
  std::optional<Evidence> last_line_;
};

/// Slow-run findings (bottleneck_generation / _training / _data) without fixes, largest share
/// first; empty when the steps are balanced or no metrics were printed.
std::vector<Diagnosis> find_bottlenecks(const StepMetrics& metrics);

}  // namespace meshplan
