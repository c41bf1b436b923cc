#pragma once
// Option checks whose messages write their bounds as people do ("not between 0 and 1", "not
// greater than 0"). CLI11's own Range and PositiveNumber print bounds with std::to_string, so a
// positive option refusing 0 printed DBL_MAX as a 309-digit number.
#include <CLI/CLI.hpp>

#include <string>

namespace meshplan {

/// A number in [min, max].
CLI::Validator number_between(double min, double max);
/// A number > 0.
CLI::Validator positive_number();
/// A number >= 0.
CLI::Validator non_negative_number();

/// `value` as people write it: an integer when whole, else up to 6 significant digits.
std::string short_number(double value);

}  // namespace meshplan
