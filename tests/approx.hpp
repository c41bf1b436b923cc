#pragma once
// Relative comparison of floating-point results. doctest::Approx passes when
// |a - b| < epsilon * (scale + max(|a|, |b|)) with scale 1 by default: for this project's small
// quantities (the seconds of one micro-batch, shares of a step, bytes in TB) that is an absolute
// tolerance of epsilon, under which 2.76e-4 s "equals" 6.34e-4 s at epsilon 1e-3. With scale 0 the
// tolerance is epsilon times the larger magnitude, whatever the unit; an expected 0 must be 0
// (the smallest normal double as the scale: doctest's strict `<` never passes a zero tolerance).
// Every test compares through approx() (tests/approx_usage_test.cpp keeps it so).
#include <doctest/doctest.h>

#include <limits>

namespace meshplan::test {

inline doctest::Approx approx(double value) {
  return doctest::Approx(value).scale(value == 0.0 ? std::numeric_limits<double>::min() : 0.0);
}

}  // namespace meshplan::test
