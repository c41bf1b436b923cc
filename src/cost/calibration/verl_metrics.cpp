#include "cost/calibration/verl_metrics.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>
#include <vector>

namespace meshplan {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

/// "12.3", or numpy's repr "np.float64(12.3)" that some verl versions print.
bool parse_value(std::string_view text, double& value) {
  text = trim(text);
  constexpr std::string_view kNumpy = "np.float64(";
  if (text.substr(0, kNumpy.size()) == kNumpy && !text.empty() && text.back() == ')') {
    text = text.substr(kNumpy.size(), text.size() - kNumpy.size() - 1);
  }
  const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  return code == std::errc{} && end == text.data() + text.size();
}

}  // namespace

Result<VerlMetrics> parse_verl_metrics(std::string_view text, const std::string& file) {
  std::vector<std::map<std::string, double>> steps;
  std::istringstream lines{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const std::size_t start = line.find("step:");
    if (start == std::string::npos || line.find(" - ", start) == std::string::npos) continue;
    std::map<std::string, double> values;
    std::string_view rest = std::string_view(line).substr(start);
    while (!rest.empty()) {
      const std::size_t separator = rest.find(" - ");
      const std::string_view pair = trim(rest.substr(0, separator));
      rest = separator == std::string_view::npos ? std::string_view() : rest.substr(separator + 3);
      const std::size_t colon = pair.rfind(':');
      if (colon == std::string_view::npos) continue;
      const std::string key(trim(pair.substr(0, colon)));
      double value = 0;
      if (!parse_value(pair.substr(colon + 1), value)) {
        if (key.rfind("timing_s/", 0) == 0 || key.rfind("perf/", 0) == 0) {
          return Error{file, number, key, fmt::format("'{}' is not a number", trim(pair.substr(colon + 1)))};
        }
        continue;  // other metrics may be strings or lists; they are not compared
      }
      values[key] = value;
    }
    steps.push_back(std::move(values));
  }
  if (steps.empty()) {
    return Error{file, 0, "", "no verl metric lines (expected 'step:N - timing_s/gen:... - perf/mfu/actor:...')"};
  }
  VerlMetrics metrics;
  metrics.steps = static_cast<int>(steps.size());
  const std::size_t first = steps.size() > 1 ? 1 : 0;  // step 1 includes warm-up and compilation
  std::map<std::string, int> counts;
  for (std::size_t i = first; i < steps.size(); ++i) {
    for (const auto& [key, value] : steps[i]) {
      metrics.mean[key] += value;
      ++counts[key];
    }
  }
  for (auto& [key, sum] : metrics.mean) sum /= counts[key];
  metrics.steps_used = static_cast<int>(steps.size() - first);
  return metrics;
}

}  // namespace meshplan
