#include "cli/number_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

namespace meshplan {
namespace {

CLI::Validator number_check(const std::string& name, std::function<bool(double)> ok, const std::string& requirement) {
  return CLI::Validator(
      [ok, requirement](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value) || std::isnan(value)) return "Value " + input + " is not a number";
        return ok(value) ? std::string() : "Value " + input + " is not " + requirement;
      },
      name);
}

}  // namespace

std::string short_number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{:.0f}", value);
  return fmt::format("{:.6g}", value);
}

CLI::Validator number_between(double min, double max) {
  return number_check(fmt::format("[{} - {}]", short_number(min), short_number(max)),
                      [min, max](double v) { return v >= min && v <= max; },
                      fmt::format("between {} and {}", short_number(min), short_number(max)));
}

CLI::Validator positive_number() {
  return number_check("POSITIVE", [](double v) { return v > 0; }, "greater than 0");
}

CLI::Validator non_negative_number() {
  return number_check("NONNEGATIVE", [](double v) { return v >= 0; }, "0 or more");
}

}  // namespace meshplan
