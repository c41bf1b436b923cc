// The fix renderer's train-batch fix where the gcd is more than 1 (issue 19): a step of minimal /
// gcd(minimal, n), not minimal, so the fix is the nearest batch verl accepts.
#include <doctest/doctest.h>

#include "diagnose/fix_renderer.hpp"

namespace meshplan {

TEST_CASE("train_batch_fit with gcd(minimal, n) > 1: the nearest accepted batch") {
  FixContext n4;
  n4.config = {{"actor_rollout_ref.rollout.n", "4"}};
  const Numbers numbers = {{"real_train_batch_size", NumberValue{244, "", false}},
                           {"minimal_batch_size", NumberValue{8, "", false}}};
  // real 244 = 61 x n 4; minimal 8: the step is 8 / gcd(8, 4) = 2, so 61 -> 62 (62 x 4 = 248 =
  // 31 x 8); a step of 8 would give 64.
  CHECK(fill_placeholders("{d:train_batch_fit}", numbers, "", n4) == "62");
  // n 12 with the batch from the config: gcd(8, 12) = 4, step 2 -> 62 (62 x 12 = 744 = 93 x 8).
  FixContext n12;
  n12.config = {{"actor_rollout_ref.rollout.n", "12"}, {"data.train_batch_size", "61"}};
  CHECK(fill_placeholders("{d:train_batch_fit}", {{"real_train_batch_size", NumberValue{732, "", false}},
                                                  {"minimal_batch_size", NumberValue{8, "", false}}},
                          "", n12) == "62");
  // rollout.n 0 in the config: no step can be worked out (gcd(8, 0) = 8 would give a step of 1 and
  // "fix" the batch to its own value), so no fix.
  FixContext n0;
  n0.config = {{"actor_rollout_ref.rollout.n", "0"}, {"data.train_batch_size", "61"}};
  CHECK_FALSE(fill_placeholders("{d:train_batch_fit}", numbers, "", n0).has_value());
}

}  // namespace meshplan
