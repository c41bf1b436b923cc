#include <doctest/doctest.h>

#include "search/pareto.hpp"

namespace meshplan {
namespace {

PlanCandidate point(double gib, double tokens_per_second) {
  PlanCandidate candidate;
  candidate.peak_bytes = gib;
  candidate.tokens_per_second = tokens_per_second;
  return candidate;
}

}  // namespace

TEST_CASE("Pareto frontier of memory against throughput, hand-made points") {
  // Points (memory, tokens/s): A(10, 100) B(20, 150) C(15, 90) D(30, 150) E(25, 200) F(5, 50)
  // C is dominated by A (more memory, slower); D by B (more memory, equal speed) and by E.
  // Frontier by memory: F(5,50) A(10,100) B(20,150) E(25,200).
  ParetoFrontier frontier;
  for (const PlanCandidate& p : {point(10, 100), point(20, 150), point(15, 90), point(30, 150), point(25, 200),
                                 point(5, 50)}) {
    frontier.add(p);
  }
  const auto& points = frontier.points();
  REQUIRE(points.size() == 4);
  CHECK(points[0].peak_bytes == 5);
  CHECK(points[1].peak_bytes == 10);
  CHECK(points[2].peak_bytes == 20);
  CHECK(points[3].peak_bytes == 25);
  // A new point G(8, 120) dominates A(10, 100) but not B: F G B E.
  frontier.add(point(8, 120));
  REQUIRE(frontier.points().size() == 4);
  CHECK(frontier.points()[1].peak_bytes == 8);
  CHECK(!frontier.accepts(9, 110));
  CHECK(frontier.accepts(9, 130));
}

}  // namespace meshplan
